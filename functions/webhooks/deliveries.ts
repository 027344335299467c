import { webhooksRoutes } from '../../shared/routes/webhooks.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listWebhookDeliveries } from '../../shared/domain/webhooks/webhooks.js';

export const handler = httpHandler(webhooksRoutes.deliveries, async ({ auth, params, query }) =>
  page(await listWebhookDeliveries(auth, params.id, query)),
);
