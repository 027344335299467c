import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { deleteWebhook } from '../../shared/domain/webhooks/webhooks.js';

export const handler = httpHandler({ handler: 'webhooks/delete', params: IdParams }, async ({ auth, params }) =>
  ok(await deleteWebhook(auth, params.id)),
);
