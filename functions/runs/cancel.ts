import { runsRoutes } from '../../shared/routes/runs.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { cancelRun } from '../../shared/domain/runs/runs.js';

export const handler = httpHandler(runsRoutes.cancel, async ({ auth, params }) => ok(await cancelRun(auth, params.id)));
