import { webhooksRoutes } from '../../shared/routes/webhooks.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { updateWebhook } from '../../shared/domain/webhooks/webhooks.js';

export const handler = httpHandler(webhooksRoutes.update, async ({ auth, params, body }) =>
  ok(await updateWebhook(auth, params.id, body)),
);
