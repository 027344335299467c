import * as Type from '@sinclair/typebox';
import { httpHandler, page } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { ReviewItem, ReviewItemListQuery } from '../../shared/schemas/review.js';
import { listItems } from '../../shared/domain/review/items.js';

export const handler = httpHandler(
  {
    handler: 'review-queues/list-items',
    params: IdParams,
    query: ReviewItemListQuery,
    response: Type.Array(ReviewItem),
  },
  async ({ auth, params, query }) => page(await listItems(auth, params.id, query)),
);
