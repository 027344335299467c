import { bytes, httpHandler } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { JunitQuery } from '../../shared/schemas/runs.js';
import { runJunitFor } from '../../shared/domain/runs/junit.js';

export const handler = httpHandler(
  { handler: 'runs/junit', params: IdParams, query: JunitQuery, responseMediaTypes: ['application/xml'] },
  async ({ auth, params, query }) =>
    bytes('application/xml; charset=utf-8', Buffer.from(await runJunitFor(auth, params.id, query.baseRunId), 'utf8')),
);
