import { webhooksRoutes } from '../../shared/routes/webhooks.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getWebhook } from '../../shared/domain/webhooks/webhooks.js';

export const handler = httpHandler(webhooksRoutes.get, async ({ auth, params }) =>
  ok(await getWebhook(auth, params.id)),
);
