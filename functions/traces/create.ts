import { tracesRoutes } from '../../shared/routes/traces.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createSpan } from '../../shared/domain/sessions/spans.js';

export const handler = httpHandler(tracesRoutes.create, async ({ auth, body }) =>
  created(await createSpan(auth, body)),
);
