import { created, httpHandler } from '../../shared/http/handler.js';
import { SpanCreate } from '../../shared/schemas/sessions.js';
import { createSpan } from '../../shared/domain/sessions/spans.js';

export const handler = httpHandler({ handler: 'traces/create', body: SpanCreate }, async ({ auth, body }) =>
  created(await createSpan(auth, body)),
);
