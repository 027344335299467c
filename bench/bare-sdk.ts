/**
 * The cold-start reference of `npm run bench:cold`: a handler that only creates the DynamoDB
 * document client and does one GetItem, bundled with the functions' settings.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { id: string }) =>
  (await doc.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: event.id, sk: event.id } }))).Item ?? null;
