import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { ReviewQueue } from '../../shared/schemas/review.js';
import { getQueue } from '../../shared/domain/review/queues.js';

export const handler = httpHandler(
  { handler: 'review-queues/get', params: IdParams, response: ReviewQueue },
  async ({ auth, params }) => ok(await getQueue(auth, params.id)),
);
