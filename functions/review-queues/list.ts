import * as Type from '@sinclair/typebox';
import { httpHandler, page } from '../../shared/http/handler.js';
import { ReviewQueue, ReviewQueueListQuery } from '../../shared/schemas/review.js';
import { listQueues } from '../../shared/domain/review/queues.js';

export const handler = httpHandler(
  { handler: 'review-queues/list', query: ReviewQueueListQuery, response: Type.Array(ReviewQueue) },
  async ({ auth, query }) => page(await listQueues(auth, query)),
);
