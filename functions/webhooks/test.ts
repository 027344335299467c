import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { Delivery } from '../../shared/schemas/webhooks.js';
import { pingWebhook } from '../../shared/domain/webhooks/ping.js';

export const handler = httpHandler(
  { handler: 'webhooks/test', params: IdParams, response: Delivery },
  async ({ auth, params }) => ok(await pingWebhook(auth, params.id)),
);
