import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { ReviewQueue, ReviewQueueUpdate } from '../../shared/schemas/review.js';
import { updateQueue } from '../../shared/domain/review/queues.js';

export const handler = httpHandler(
  { handler: 'review-queues/update', params: IdParams, body: ReviewQueueUpdate, response: ReviewQueue },
  async ({ auth, params, body }) => ok(await updateQueue(auth, params.id, body)),
);
