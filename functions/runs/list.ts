import { runsRoutes } from '../../shared/routes/runs.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listRunsFor } from '../../shared/domain/runs/runs.js';

export const handler = httpHandler(runsRoutes.list, async ({ auth, query }) => page(await listRunsFor(auth, query)));
