import { reviewQueuesRoutes } from '../../shared/routes/review-queues.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listQueues } from '../../shared/domain/review/queues.js';

export const handler = httpHandler(reviewQueuesRoutes.list, async ({ auth, query }) =>
  page(await listQueues(auth, query)),
);
