import { reviewQueuesRoutes } from '../../shared/routes/review-queues.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { updateQueue } from '../../shared/domain/review/queues.js';

export const handler = httpHandler(reviewQueuesRoutes.update, async ({ auth, params, body }) =>
  ok(await updateQueue(auth, params.id, body)),
);
