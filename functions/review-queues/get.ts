import { reviewQueuesRoutes } from '../../shared/routes/review-queues.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getQueue } from '../../shared/domain/review/queues.js';

export const handler = httpHandler(reviewQueuesRoutes.get, async ({ auth, params }) =>
  ok(await getQueue(auth, params.id)),
);
