import { reviewQueuesRoutes } from '../../shared/routes/review-queues.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { addItems } from '../../shared/domain/review/items.js';

export const handler = httpHandler(reviewQueuesRoutes.addItems, async ({ auth, params, body }) =>
  created(await addItems(auth, params.id, body)),
);
