import { created, httpHandler } from '../../shared/http/handler.js';
import { WebhookCreate, WebhookCreated } from '../../shared/schemas/webhooks.js';
import { createWebhook } from '../../shared/domain/webhooks/webhooks.js';

export const handler = httpHandler(
  { handler: 'webhooks/create', body: WebhookCreate, response: WebhookCreated },
  async ({ auth, body }) => created(await createWebhook(auth, body)),
);
