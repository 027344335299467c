import { reviewQueuesRoutes } from '../../shared/routes/review-queues.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { putLabels } from '../../shared/domain/review/labelling.js';

export const handler = httpHandler(reviewQueuesRoutes.label, async ({ auth, params, body }) =>
  ok(await putLabels(auth, params.id, params.itemId, body)),
);
