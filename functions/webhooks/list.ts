import * as Type from '@sinclair/typebox';
import { httpHandler, page } from '../../shared/http/handler.js';
import { Webhook, WebhookListQuery } from '../../shared/schemas/webhooks.js';
import { listWebhooks } from '../../shared/domain/webhooks/webhooks.js';

export const handler = httpHandler(
  { handler: 'webhooks/list', query: WebhookListQuery, response: Type.Array(Webhook) },
  async ({ auth, query }) => page(await listWebhooks(auth, query)),
);
