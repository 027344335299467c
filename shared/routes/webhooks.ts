import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { IdParams } from '../schemas/common.js';
import { Deleted } from '../schemas/answers.js';
import {
  Delivery,
  DeliveryListQuery,
  Webhook,
  WebhookCreate,
  WebhookCreated,
  WebhookListQuery,
  WebhookUpdate,
} from '../schemas/webhooks.js';

export const webhooksRoutes = {
  create: route('POST', '/webhooks', 'webhooks/create', 'write', { body: WebhookCreate, response: WebhookCreated }),
  list: route('GET', '/webhooks', 'webhooks/list', 'read', { query: WebhookListQuery, response: Type.Array(Webhook) }),
  get: route('GET', '/webhooks/{id}', 'webhooks/get', 'read', { params: IdParams, response: Webhook }),
  update: route('PATCH', '/webhooks/{id}', 'webhooks/update', 'write', {
    params: IdParams,
    body: WebhookUpdate,
    response: Webhook,
  }),
  delete: route('DELETE', '/webhooks/{id}', 'webhooks/delete', 'write', { params: IdParams, response: Deleted }),
  test: route('POST', '/webhooks/{id}/test', 'webhooks/test', 'write', {
    capabilities: ['webhookQueueSend'],
    params: IdParams,
    response: Delivery,
  }),
  deliveries: route('GET', '/webhooks/{id}/deliveries', 'webhooks/deliveries', 'read', {
    params: IdParams,
    query: DeliveryListQuery,
    response: Type.Array(Delivery),
  }),
};
