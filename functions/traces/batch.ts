import { created, httpHandler } from '../../shared/http/handler.js';
import { SpanBatch } from '../../shared/schemas/sessions.js';
import { createSpanBatch } from '../../shared/domain/sessions/spans.js';

export const handler = httpHandler({ handler: 'traces/batch', body: SpanBatch }, async ({ auth, body }) =>
  created(await createSpanBatch(auth, body)),
);
