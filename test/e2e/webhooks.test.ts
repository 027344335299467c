import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/e2e-http.js';
import { sendJson, startAgent, type SeenRequest, type TestAgentServer } from '../support/agent-server.js';

function verified(req: SeenRequest, secret: string): boolean {
  const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
    .update(`${req.headers['webhook-id']}.${req.headers['webhook-timestamp']}.${req.body}`)
    .digest('base64');
  return req.headers['webhook-signature'] === `v1,${expected}`;
}

async function until<T>(
  what: string,
  read: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

let receiver: TestAgentServer;
beforeAll(async () => {
  receiver = await startAgent();
});
afterAll(async () => {
  await receiver.close();
});

describe('webhooks over HTTP on the local server', () => {
  it('pings, then delivers a monitor status change from the in-process queue, retrying a failed attempt after 5 s', async () => {
    receiver.setHandler((_req, res) => sendJson(res, 200, {}));
    const created = await http('POST', '/webhooks', { url: `${receiver.url}/e2e`, events: ['monitor.status_changed'] });
    expect(created.status).toBe(201);
    const { id, secret } = created.body as { id: string; secret: string };

    const ping = await http('POST', `/webhooks/${id}/test`);
    expect(ping.status).toBe(200);
    expect(ping.body).toMatchObject({ type: 'ping', status: 'SUCCEEDED', responseCode: 200, attemptCount: 1 });
    expect(verified(receiver.requests[0]!, secret)).toBe(true);

    // The next request fails once: the retry comes 5 s later from the queue.
    receiver.setHandler((_req, res, i) => sendJson(res, i === 1 ? 502 : 200, {}));
    const product = (await http('POST', '/products', { name: 'webhook e2e' })).body;
    const monitor = (
      await http('POST', '/monitors', {
        productId: product.id,
        name: 'hooks',
        metricGroupIds: ['mgrp_non_empty_output'],
        samplingPercentage: 100,
      })
    ).body;
    expect((await http('PATCH', `/monitors/${monitor.id}`, { status: 'PAUSED' })).status).toBe(200);
    const latest = async () =>
      (await http('GET', `/webhooks/${id}/deliveries?types=monitor.status_changed`)).body[0] as
        | { status: string; attemptCount: number; lastAttemptAt: string; nextAttemptAt: string | null }
        | undefined;
    // After the failed attempt the retry is scheduled 5 s after it (the server's clock is not ours to move).
    const failed = await until('the failed first attempt', async () => {
      const d = await latest();
      return d?.status === 'PENDING' && d.attemptCount === 1 ? d : undefined;
    });
    expect(Date.parse(failed.nextAttemptAt!) - Date.parse(failed.lastAttemptAt)).toBe(5_000);
    const delivery = await until('the retried delivery', async () => {
      const log = await http('GET', `/webhooks/${id}/deliveries?types=monitor.status_changed`);
      return log.body[0]?.status === 'SUCCEEDED' ? log.body[0] : undefined;
    });
    expect(delivery.attempts.map((a: { responseCode: number }) => a.responseCode)).toEqual([502, 200]);
    // Not before its time.
    expect(Date.parse(delivery.attempts[1].at)).toBeGreaterThanOrEqual(Date.parse(failed.nextAttemptAt!));
    const events = receiver.requests.slice(1);
    expect(events).toHaveLength(2);
    expect(events.every((r) => verified(r, secret) && r.headers['webhook-id'] === delivery.id)).toBe(true);
    expect(events[1]!.json).toMatchObject({
      type: 'monitor.status_changed',
      data: { previousStatus: 'ACTIVE', status: 'PAUSED', changedBy: 'user', monitor: { id: monitor.id } },
    });
  });
});
