import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { Webhook } from '../../shared/schemas/webhooks.js';
import { getWebhook } from '../../shared/domain/webhooks/webhooks.js';

export const handler = httpHandler(
  { handler: 'webhooks/get', params: IdParams, response: Webhook },
  async ({ auth, params }) => ok(await getWebhook(auth, params.id)),
);
