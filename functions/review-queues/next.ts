import { reviewQueuesRoutes } from '../../shared/routes/review-queues.js';
import { httpHandler, noContent, ok } from '../../shared/http/handler.js';
import { nextTask } from '../../shared/domain/review/labelling.js';

export const handler = httpHandler(reviewQueuesRoutes.next, async ({ auth, params, body }) => {
  const task = await nextTask(auth, params.id, body.reviewer);
  return task ? ok(task) : noContent();
});
