import { webhooksRoutes } from '../../shared/routes/webhooks.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createWebhook } from '../../shared/domain/webhooks/webhooks.js';

export const handler = httpHandler(webhooksRoutes.create, async ({ auth, body }) =>
  created(await createWebhook(auth, body)),
);
