import { reviewQueuesRoutes } from '../../shared/routes/review-queues.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createQueue } from '../../shared/domain/review/queues.js';

export const handler = httpHandler(reviewQueuesRoutes.create, async ({ auth, body }) =>
  created(await createQueue(auth, body)),
);
