import { webhooksRoutes } from '../../shared/routes/webhooks.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { pingWebhook } from '../../shared/domain/webhooks/ping.js';

export const handler = httpHandler(webhooksRoutes.test, async ({ auth, params }) =>
  ok(await pingWebhook(auth, params.id)),
);
