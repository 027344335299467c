import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { CompatibilityQuery } from '../../shared/schemas/sessions.js';
import { metricCompatibility } from '../../shared/domain/evaluation/compatibility.js';

export const handler = httpHandler(
  { handler: 'sessions/metric-compatibility', params: IdParams, query: CompatibilityQuery },
  async ({ auth, params, query }) => ok(await metricCompatibility(auth, params.id, query.limit)),
);
