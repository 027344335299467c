import * as Type from '@sinclair/typebox';
import { httpHandler, page } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { Delivery, DeliveryListQuery } from '../../shared/schemas/webhooks.js';
import { listWebhookDeliveries } from '../../shared/domain/webhooks/webhooks.js';

export const handler = httpHandler(
  { handler: 'webhooks/deliveries', params: IdParams, query: DeliveryListQuery, response: Type.Array(Delivery) },
  async ({ auth, params, query }) => page(await listWebhookDeliveries(auth, params.id, query)),
);
