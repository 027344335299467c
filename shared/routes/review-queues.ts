import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { IdParams } from '../schemas/common.js';
import { Deleted } from '../schemas/answers.js';
import {
  ItemParams,
  LabelsPut,
  NextItemBody,
  ReviewItem,
  ReviewItemListQuery,
  ReviewItemsAdd,
  ReviewItemsAdded,
  ReviewQueue,
  ReviewQueueCreate,
  ReviewQueueListQuery,
  ReviewQueueUpdate,
  ReviewTask,
} from '../schemas/review.js';

export const reviewQueuesRoutes = {
  create: route('POST', '/reviewQueues', 'review-queues/create', 'write', {
    body: ReviewQueueCreate,
    response: ReviewQueue,
  }),
  list: route('GET', '/reviewQueues', 'review-queues/list', 'read', {
    query: ReviewQueueListQuery,
    response: Type.Array(ReviewQueue),
  }),
  get: route('GET', '/reviewQueues/{id}', 'review-queues/get', 'read', { params: IdParams, response: ReviewQueue }),
  update: route('PATCH', '/reviewQueues/{id}', 'review-queues/update', 'write', {
    params: IdParams,
    body: ReviewQueueUpdate,
    response: ReviewQueue,
  }),
  delete: route('DELETE', '/reviewQueues/{id}', 'review-queues/delete', 'write', {
    params: IdParams,
    response: Deleted,
  }),
  addItems: route('POST', '/reviewQueues/{id}/items', 'review-queues/add-items', 'write', {
    params: IdParams,
    body: ReviewItemsAdd,
    response: ReviewItemsAdded,
  }),
  listItems: route('GET', '/reviewQueues/{id}/items', 'review-queues/list-items', 'read', {
    params: IdParams,
    query: ReviewItemListQuery,
    response: Type.Array(ReviewItem),
  }),
  next: route('POST', '/reviewQueues/{id}/next', 'review-queues/next', 'read', {
    capabilities: ['bucketRead'],
    params: IdParams,
    body: NextItemBody,
    response: ReviewTask,
  }),
  label: route('PUT', '/reviewQueues/{id}/items/{itemId}/labels', 'review-queues/label', 'write', {
    params: ItemParams,
    body: LabelsPut,
    response: ReviewItem,
  }),
};
