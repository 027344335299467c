import { httpHandler, page } from '../../shared/http/handler.js';
import { RunListQuery } from '../../shared/schemas/runs.js';
import { listRunsFor } from '../../shared/domain/runs/runs.js';

export const handler = httpHandler({ handler: 'runs/list', query: RunListQuery }, async ({ auth, query }) =>
  page(await listRunsFor(auth, query)),
);
