import { httpHandler, ok } from '../../shared/http/handler.js';
import * as Type from '@sinclair/typebox';
import { getSpan } from '../../shared/domain/sessions/spans.js';

// Any id is accepted here: one that does not start with trace_ is a 404, not a 400.
const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });

export const handler = httpHandler({ handler: 'traces/get', params: Params }, async ({ auth, params }) =>
  ok(await getSpan(auth, params.id)),
);
