import { created, httpHandler } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { ReviewItemsAdd, ReviewItemsAdded } from '../../shared/schemas/review.js';
import { addItems } from '../../shared/domain/review/items.js';

export const handler = httpHandler(
  { handler: 'review-queues/add-items', params: IdParams, body: ReviewItemsAdd, response: ReviewItemsAdded },
  async ({ auth, params, body }) => created(await addItems(auth, params.id, body)),
);
