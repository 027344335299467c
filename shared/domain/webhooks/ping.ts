import type { AuthContext } from '../../auth/context.js';
import { commitOnce, deliveryPut, getDelivery } from '../../db/webhooks.js';
import type { Delivery } from '../../schemas/webhooks.js';
import { clock } from '../common/clock.js';
import { newId } from '../common/ids.js';
import { attemptDelivery } from './delivery.js';
import { messageBody, newDelivery, retentionTtl } from './events.js';
import { deliveryView, liveWebhook } from './webhooks.js';

// Its own module: only the test route delivers, so the other webhook routes carry no delivery code
// (the outbound client, its address guard, the metrics it counts).

/**
 * POST /webhooks/{id}/test: a `ping` to this endpoint (whatever its events, even disabled), its
 * first attempt made now; a failed one is retried on the schedule like any delivery. Answers the
 * delivery with that attempt.
 */
export async function pingWebhook(auth: AuthContext, id: string): Promise<Delivery> {
  const webhook = await liveWebhook(auth, id);
  const now = clock.now();
  const at = now.toISOString();
  const messageId = newId('message', now.getTime());
  const delivery = newDelivery(
    webhook,
    messageId,
    'ping',
    messageBody('ping', at, { webhookId: webhook.id, message: 'a test message from the evaluation platform' }),
    at,
  );
  await commitOnce([deliveryPut(delivery, retentionTtl(now))]);
  await attemptDelivery({
    kind: 'deliver',
    organizationId: auth.organizationId,
    webhookId: id,
    deliveryId: messageId,
    attempt: 1,
  });
  return deliveryView((await getDelivery(id, messageId))!);
}
