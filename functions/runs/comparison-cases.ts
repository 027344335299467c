import { httpHandler, page } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { ComparisonCasesQuery } from '../../shared/schemas/runs.js';
import { comparisonCasesFor } from '../../shared/domain/runs/comparison-cases.js';

export const handler = httpHandler(
  { handler: 'runs/comparison-cases', params: IdParams, query: ComparisonCasesQuery },
  async ({ auth, params, query }) => page(await comparisonCasesFor(auth, params.id, query)),
);
