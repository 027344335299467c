import { httpHandler, ok } from '../../shared/http/handler.js';
import * as Type from '@sinclair/typebox';
import { deleteSpan } from '../../shared/domain/sessions/spans.js';

const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });

export const handler = httpHandler({ handler: 'traces/delete', params: Params }, async ({ auth, params }) =>
  ok(await deleteSpan(auth, params.id)),
);
