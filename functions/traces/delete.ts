import { tracesRoutes } from '../../shared/routes/traces.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { deleteSpan } from '../../shared/domain/sessions/spans.js';

export const handler = httpHandler(tracesRoutes.delete, async ({ auth, params }) =>
  ok(await deleteSpan(auth, params.id)),
);
