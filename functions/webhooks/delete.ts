import { webhooksRoutes } from '../../shared/routes/webhooks.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { deleteWebhook } from '../../shared/domain/webhooks/webhooks.js';

export const handler = httpHandler(webhooksRoutes.delete, async ({ auth, params }) =>
  ok(await deleteWebhook(auth, params.id)),
);
