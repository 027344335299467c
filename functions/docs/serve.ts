import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { join } from 'node:path';
import { apiDocsAnswer, DOCS_PATHS } from '../../shared/http/api-docs.js';
import { GATEWAY_BODIES } from '../../shared/http/errors.js';

// The document and the swagger-ui assets are files shipped beside the bundle (infra/stack.ts copies them).
const dir = import.meta.dirname;
const files = { document: join(dir, 'openapi.json'), assets: dir };

/** `GET /openapi.json`, `/docs` and `/docs/{asset}` without a key: the API reference. */
export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  // `/docs/` reaches the page's resource: told apart by the path, so it is redirected to `/docs`.
  const trailing = event.resource === DOCS_PATHS.page && event.path?.endsWith('/');
  const path =
    event.resource === DOCS_PATHS.asset
      ? `/docs/${event.pathParameters?.asset ?? ''}`
      : trailing
        ? `${DOCS_PATHS.page}/`
        : event.resource;
  return (
    apiDocsAnswer(event.httpMethod, path, files) ?? {
      statusCode: 404,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(GATEWAY_BODIES.notFound),
    }
  );
};
