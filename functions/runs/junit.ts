import { runsRoutes } from '../../shared/routes/runs.js';
import { bytes, httpHandler } from '../../shared/http/handler.js';
import { runJunitFor } from '../../shared/domain/runs/junit.js';

export const handler = httpHandler(runsRoutes.junit, async ({ auth, params, query }) =>
  bytes('application/xml; charset=utf-8', Buffer.from(await runJunitFor(auth, params.id, query.baseRunId), 'utf8')),
);
