import { runsRoutes } from '../../shared/routes/runs.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { comparisonCasesFor } from '../../shared/domain/runs/comparison-cases.js';

export const handler = httpHandler(runsRoutes.comparisonCases, async ({ auth, params, query }) =>
  page(await comparisonCasesFor(auth, params.id, query)),
);
