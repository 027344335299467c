import { webhooksRoutes } from '../../shared/routes/webhooks.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listWebhooks } from '../../shared/domain/webhooks/webhooks.js';

export const handler = httpHandler(webhooksRoutes.list, async ({ auth, query }) =>
  page(await listWebhooks(auth, query)),
);
