import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { deleteQueue } from '../../shared/domain/review/queues.js';

export const handler = httpHandler({ handler: 'review-queues/delete', params: IdParams }, async ({ auth, params }) =>
  ok(await deleteQueue(auth, params.id)),
);
