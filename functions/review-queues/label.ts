import { httpHandler, ok } from '../../shared/http/handler.js';
import { LabelsPut, ItemParams, ReviewItem } from '../../shared/schemas/review.js';
import { putLabels } from '../../shared/domain/review/labelling.js';

export const handler = httpHandler(
  { handler: 'review-queues/label', params: ItemParams, body: LabelsPut, response: ReviewItem },
  async ({ auth, params, body }) => ok(await putLabels(auth, params.id, params.itemId, body)),
);
