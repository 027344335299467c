import { reviewQueuesRoutes } from '../../shared/routes/review-queues.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { deleteQueue } from '../../shared/domain/review/queues.js';

export const handler = httpHandler(reviewQueuesRoutes.delete, async ({ auth, params }) =>
  ok(await deleteQueue(auth, params.id)),
);
