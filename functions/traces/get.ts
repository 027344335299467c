import { tracesRoutes } from '../../shared/routes/traces.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getSpan } from '../../shared/domain/sessions/spans.js';

export const handler = httpHandler(tracesRoutes.get, async ({ auth, params }) => ok(await getSpan(auth, params.id)));
