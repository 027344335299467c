import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { ResultsQuery } from '../../shared/schemas/monitors.js';
import { monitorResults } from '../../shared/domain/monitors/results.js';

export const handler = httpHandler(
  { handler: 'monitors/results', params: IdParams, query: ResultsQuery },
  async ({ auth, params, query }) => ok(await monitorResults(auth, params.id, query.days ?? 7)),
);
