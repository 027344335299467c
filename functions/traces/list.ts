import { tracesRoutes } from '../../shared/routes/traces.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listSpans } from '../../shared/domain/sessions/spans.js';

export const handler = httpHandler(tracesRoutes.list, async ({ auth, query }) => page(await listSpans(auth, query)));
