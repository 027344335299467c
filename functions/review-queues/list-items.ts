import { reviewQueuesRoutes } from '../../shared/routes/review-queues.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listItems } from '../../shared/domain/review/items.js';

export const handler = httpHandler(reviewQueuesRoutes.listItems, async ({ auth, params, query }) =>
  page(await listItems(auth, params.id, query)),
);
