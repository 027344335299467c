import { httpHandler, noContent, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { NextItemBody, ReviewTask } from '../../shared/schemas/review.js';
import { nextTask } from '../../shared/domain/review/labelling.js';

export const handler = httpHandler(
  { handler: 'review-queues/next', params: IdParams, body: NextItemBody, response: ReviewTask },
  async ({ auth, params, body }) => {
    const task = await nextTask(auth, params.id, body.reviewer);
    return task ? ok(task) : noContent();
  },
);
