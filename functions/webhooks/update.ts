import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { Webhook, WebhookUpdate } from '../../shared/schemas/webhooks.js';
import { updateWebhook } from '../../shared/domain/webhooks/webhooks.js';

export const handler = httpHandler(
  { handler: 'webhooks/update', params: IdParams, body: WebhookUpdate, response: Webhook },
  async ({ auth, params, body }) => ok(await updateWebhook(auth, params.id, body)),
);
