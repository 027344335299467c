import { tracesRoutes } from '../../shared/routes/traces.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createSpanBatch } from '../../shared/domain/sessions/spans.js';

export const handler = httpHandler(tracesRoutes.batch, async ({ auth, body }) =>
  created(await createSpanBatch(auth, body)),
);
