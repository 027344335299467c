import { runsRoutes } from '../../shared/routes/runs.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getRunWithLabels } from '../../shared/domain/review/run-view.js';

export const handler = httpHandler(runsRoutes.get, async ({ auth, params }) =>
  ok(await getRunWithLabels(auth, params.id)),
);
