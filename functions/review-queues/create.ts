import { created, httpHandler } from '../../shared/http/handler.js';
import { ReviewQueue, ReviewQueueCreate } from '../../shared/schemas/review.js';
import { createQueue } from '../../shared/domain/review/queues.js';

export const handler = httpHandler(
  { handler: 'review-queues/create', body: ReviewQueueCreate, response: ReviewQueue },
  async ({ auth, body }) => created(await createQueue(auth, body)),
);
