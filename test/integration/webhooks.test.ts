import { localWebhookQueue } from '../../infra/local/queues.js';
import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { newTenant } from '../support/api.js';
import { sendJson, startAgent, type SeenRequest, type TestAgentServer } from '../support/agent-server.js';
import { clock } from '../../shared/domain/common/clock.js';
import { emitEvent } from '../../shared/domain/webhooks/events.js';
import { ATTEMPT_TIMEOUT_MS, sweepDueDeliveries } from '../../shared/domain/webhooks/delivery.js';
import { drainRunQueue } from '../../infra/local/run-queue.js';
import { webhookDeadLetters, webhookDelayQueue } from '../../infra/local/webhook-queue.js';
import { handler as deliverer } from '../../functions/jobs/deliverer.js';
import { fakeClock, gate } from '../support/fake-clock.js';

let receiver: TestAgentServer;

beforeAll(async () => {
  process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'true';
  receiver = await startAgent();
});
afterAll(async () => {
  await receiver.close();
});
beforeEach(() => {
  localWebhookQueue.messages.length = 0;
  webhookDeadLetters.length = 0;
  receiver.requests.length = 0;
  receiver.setHandler((_req, res) => sendJson(res, 200, { ok: true }));
  process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'true';
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Delivers every job visible on the service clock (delayed ones stay), each twice when `duplicate`. */
const drain = (duplicate = false) =>
  drainRunQueue((e) => deliverer(e) as Promise<unknown>, { queue: webhookDelayQueue, visibleOnly: true, duplicate });

/** The sweep's narrowing to one organization's deliveries: other files' pending ones share the table. */
const ofOrg = (organizationId: string) => (d: { organizationId: string }) => d.organizationId === organizationId;

/** Moves the service clock to `ms` (epoch). */
function setClock(ms: number): void {
  vi.spyOn(clock, 'now').mockImplementation(() => new Date(ms));
}

/** Verifies a received request as a receiver would, with the Standard Webhooks recipe. */
function verify(req: SeenRequest, secret: string): boolean {
  const id = String(req.headers['webhook-id']);
  const ts = String(req.headers['webhook-timestamp']);
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${id}.${ts}.${req.body}`)
    .digest('base64');
  return String(req.headers['webhook-signature']).split(' ').includes(`v1,${expected}`);
}

async function newWebhook(events: string[] = ['ping', 'run.completed', 'run.failed'], path = '/hook') {
  const t = await newTenant();
  const res = await t.api.post('/webhooks', { url: `${receiver.url}${path}`, events, description: 'team alerts' });
  expect(res.status).toBe(201);
  return { ...t, webhook: res.body as { id: string; secret: string } };
}

describe('webhook endpoints', () => {
  it('creates an endpoint with its secret shown once, reads, lists, updates and deletes it', async () => {
    const t = await newTenant();
    const res = await t.api.post('/webhooks', {
      url: 'https://hooks.example.com/eval',
      events: ['run.completed', 'alert.opened'],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      url: 'https://hooks.example.com/eval',
      events: ['run.completed', 'alert.opened'],
      status: 'ENABLED',
      description: null,
      disabledReason: null,
      failingSince: null,
    });
    expect(res.body.id).toMatch(/^wh_/);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = res.body.id as string;

    const got = await t.api.get(`/webhooks/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('secret');
    expect(JSON.stringify(got.body)).not.toContain(res.body.secret.slice(6));

    await t.api.post('/webhooks', { url: 'http://receiver.example.org/b', events: ['ping'] });
    const list = await t.api.get('/webhooks', { limit: 1, sort: 'createdAt:asc' });
    expect(list.status).toBe(200);
    expect(list.headers['x-total-count']).toBe('2');
    expect(list.body).toHaveLength(1);
    expect(list.body[0].id).toBe(id);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    expect((await t.api.get('/webhooks', { events: 'ping' })).body.map((w: { url: string }) => w.url)).toEqual([
      'http://receiver.example.org/b',
    ]);

    const patched = await t.api.patch(`/webhooks/${id}`, {
      events: ['alert.resolved'],
      description: 'on call',
      status: 'DISABLED',
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      events: ['alert.resolved'],
      description: 'on call',
      status: 'DISABLED',
      disabledReason: 'disabled by a user',
    });
    const enabled = await t.api.patch(`/webhooks/${id}`, { status: 'ENABLED' });
    expect(enabled.body).toMatchObject({ status: 'ENABLED', disabledReason: null, disabledAt: null });

    const del = await t.api.del(`/webhooks/${id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id, deletedAt: expect.any(String) });
    expect((await t.api.get(`/webhooks/${id}`)).body.deletedAt).toBe(del.body.deletedAt);
    expect((await t.api.get('/webhooks')).headers['x-total-count']).toBe('1');
    expect((await t.api.patch(`/webhooks/${id}`, { description: 'x' })).status).toBe(404);
    expect((await t.api.get(`/webhooks/${id}/deliveries`)).status).toBe(404);
    expect((await t.api.post(`/webhooks/${id}/test`)).status).toBe(404);
  });

  it('refuses unknown events, other schemes, credentials, refused addresses and server-managed fields with 400s naming the field', async () => {
    const t = await newTenant();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ url: 'https://a.example.com', events: ['run.exploded'] }, /events/],
      [{ url: 'https://a.example.com', events: [] }, /events/],
      [{ url: 'https://a.example.com' }, /events/],
      [{ events: ['ping'] }, /url/],
      [{ url: 'ftp://a.example.com/x', events: ['ping'] }, /url must be an absolute http or https URL/],
      [{ url: 'not a url', events: ['ping'] }, /url must be an absolute http or https URL/],
      [{ url: 'https://user:pw@a.example.com', events: ['ping'] }, /url must not carry credentials/],
      [
        { url: 'http://169.254.169.254/latest/meta-data', events: ['ping'] },
        /url must not point at a refused address: 169\.254\.169\.254 is link-local/,
      ],
      [{ url: 'http://[::ffff:a9fe:a9fe]/', events: ['ping'] }, /link-local/],
      [{ url: 'https://a.example.com', events: ['ping'], secret: 'whsec_x' }, /secret/],
      [{ url: 'https://a.example.com', events: ['ping'], status: 'DISABLED' }, /status/],
    ];
    for (const [body, message] of cases) {
      const res = await t.api.post('/webhooks', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('Bad Request');
      expect(res.body.message).toMatch(message);
    }
    const ok = await t.api.post('/webhooks', { url: 'https://a.example.com', events: ['ping'] });
    expect((await t.api.patch(`/webhooks/${ok.body.id}`, { url: 'http://169.254.169.254/' })).body.message).toMatch(
      /link-local/,
    );
    expect((await t.api.patch(`/webhooks/${ok.body.id}`, {})).status).toBe(400);
    expect((await t.api.patch(`/webhooks/${ok.body.id}`, { status: 'BROKEN' })).status).toBe(400);
    expect((await t.api.get('/webhooks', { statuses: 'BROKEN' })).status).toBe(400);
    expect((await t.api.get(`/webhooks/${ok.body.id}/deliveries`, { statuses: 'DONE' })).status).toBe(400);
  });

  it("answers 403 for another organization's endpoint and 404 for none, and never lists it", async () => {
    const a = await newWebhook();
    const b = await newTenant();
    const id = a.webhook.id;
    for (const res of [
      await b.api.get(`/webhooks/${id}`),
      await b.api.patch(`/webhooks/${id}`, { description: 'mine now' }),
      await b.api.del(`/webhooks/${id}`),
      await b.api.post(`/webhooks/${id}/test`),
      await b.api.get(`/webhooks/${id}/deliveries`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('Forbidden');
    }
    expect((await b.api.get('/webhooks')).body).toEqual([]);
    expect((await b.api.get('/webhooks/wh_01NOSUCHWEBHOOK')).status).toBe(404);
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('webhook delivery', () => {
  it('pings with a Standard Webhooks signature the receiver can verify, and logs the attempt', async () => {
    const { api, webhook } = await newWebhook(['run.completed']);
    // The service clock stands at a whole second: the signed timestamp is that second.
    const at = Math.floor(Date.now() / 1000) * 1000;
    setClock(at);
    const res = await api.post(`/webhooks/${webhook.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      webhookId: webhook.id,
      type: 'ping',
      status: 'SUCCEEDED',
      attemptCount: 1,
      responseCode: 200,
      nextAttemptAt: null,
      error: null,
    });
    expect(receiver.requests).toHaveLength(1);
    const req = receiver.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/hook');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['webhook-id']).toBe(res.body.id);
    expect(req.headers['webhook-timestamp']).toBe(String(at / 1000));
    expect(verify(req, webhook.secret)).toBe(true);
    expect(req.json).toEqual({
      type: 'ping',
      timestamp: res.body.createdAt,
      data: { webhookId: webhook.id, message: expect.any(String) },
    });
    const log = await api.get(`/webhooks/${webhook.id}/deliveries`);
    expect(log.headers['x-total-count']).toBe('1');
    expect(log.body[0].attempts).toEqual([
      { attempt: 1, at: expect.any(String), responseCode: 200, durationMs: expect.any(Number), ok: true, error: null },
    ]);
    expect(log.body[0].payload).toEqual(req.json);
  });

  it('retries a failing endpoint after 5 s and 5 min (clock moved), then succeeds; each attempt is in the log', async () => {
    const { api, org, webhook } = await newWebhook(['run.completed']);
    receiver.setHandler((_req, res, i) => (i < 2 ? sendJson(res, 503, { error: 'busy' }) : sendJson(res, 204, {})));
    const t0 = Date.parse('2031-03-01T10:00:00.000Z');
    setClock(t0);
    expect(await emitEvent(org.id, 'run.completed', { id: 'run_X', status: 'COMPLETED' }, 'test#run_X')).toBe(true);
    await drain();
    expect(receiver.requests).toHaveLength(1);
    let [d] = (await api.get(`/webhooks/${webhook.id}/deliveries`)).body;
    expect(d).toMatchObject({
      type: 'run.completed',
      status: 'PENDING',
      attemptCount: 1,
      responseCode: 503,
      error: 'the endpoint answered 503: {"error":"busy"}',
      nextAttemptAt: new Date(t0 + 5_000).toISOString(),
    });

    // Not due yet: nothing is sent.
    setClock(t0 + 4_000);
    await drain();
    expect(receiver.requests).toHaveLength(1);
    setClock(t0 + 5_000);
    await drain();
    expect(receiver.requests).toHaveLength(2);
    [d] = (await api.get(`/webhooks/${webhook.id}/deliveries`)).body;
    expect(d).toMatchObject({
      status: 'PENDING',
      attemptCount: 2,
      nextAttemptAt: new Date(t0 + 5_000 + 300_000).toISOString(),
    });
    expect((await api.get(`/webhooks/${webhook.id}`)).body.failingSince).toBe(new Date(t0).toISOString());

    setClock(t0 + 5_000 + 300_000);
    await drain();
    expect(receiver.requests).toHaveLength(3);
    [d] = (await api.get(`/webhooks/${webhook.id}/deliveries`)).body;
    expect(d).toMatchObject({
      status: 'SUCCEEDED',
      attemptCount: 3,
      responseCode: 204,
      nextAttemptAt: null,
      error: null,
    });
    expect(
      d.attempts.map((a: { at: string; responseCode: number; ok: boolean }) => [
        Date.parse(a.at) - t0,
        a.responseCode,
        a.ok,
      ]),
    ).toEqual([
      [0, 503, false],
      [5_000, 503, false],
      [305_000, 204, true],
    ]);
    // Every attempt carries the same message id and a valid signature for its own timestamp.
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([d.id]));
    expect(receiver.requests.every((r) => verify(r, webhook.secret))).toBe(true);
    expect(receiver.requests.map((r) => Number(r.headers['webhook-timestamp']) * 1000 - t0)).toEqual([
      0, 5_000, 305_000,
    ]);
    expect((await api.get(`/webhooks/${webhook.id}`)).body.failingSince).toBeNull();
    expect(await api.get(`/webhooks/${webhook.id}/deliveries`, { statuses: 'PENDING' }).then((r) => r.body)).toEqual(
      [],
    );
  });

  it('waits longer than the queue delay through the sweep, and gives up after the 7th attempt (10 h)', async () => {
    const { api, org, webhook } = await newWebhook(['run.failed'], '/sweep');
    const mine = () => receiver.requests.filter((r) => r.url === '/sweep');
    receiver.setHandler((_req, res) => sendJson(res, 500, {}));
    const t0 = Date.parse('2031-04-01T00:00:00.000Z');
    setClock(t0);
    await emitEvent(org.id, 'run.failed', { id: 'run_Y' }, 'test#run_Y');
    await drain();
    let at = t0;
    const waits = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];
    for (const wait of waits) {
      at += wait;
      setClock(at - 1_500);
      await sweepDueDeliveries(clock.now(), ofOrg(org.id));
      await drain();
      const before = mine().length;
      setClock(at);
      // Waits above 15 minutes are not on the queue: the sweep puts them there once due.
      if (wait > 900_000) expect(localWebhookQueue.messages.filter((m) => m.body.includes(webhook.id))).toHaveLength(0);
      await sweepDueDeliveries(clock.now(), ofOrg(org.id));
      await drain();
      expect(mine().length).toBe(before + 1);
    }
    const [d] = (await api.get(`/webhooks/${webhook.id}/deliveries`)).body;
    expect(d).toMatchObject({ status: 'FAILED', attemptCount: 7, nextAttemptAt: null, responseCode: 500 });
    expect(d.attempts.map((a: { at: string }) => Date.parse(a.at) - t0)).toEqual([
      0, 5_000, 305_000, 2_105_000, 9_305_000, 27_305_000, 63_305_000,
    ]);
    setClock(at + 86_400_000);
    expect((await sweepDueDeliveries(clock.now(), ofOrg(org.id))).enqueued).toBe(0);
  });

  it('sends each attempt once when every job is delivered twice', async () => {
    const { api, org, webhook } = await newWebhook(['run.completed']);
    receiver.setHandler((_req, res, i) => sendJson(res, i === 0 ? 500 : 200, {}));
    const t0 = Date.parse('2031-05-01T00:00:00.000Z');
    setClock(t0);
    await emitEvent(org.id, 'run.completed', { id: 'run_Z' }, 'test#run_Z');
    // The same change emitted again (a redelivered job) sends nothing more.
    expect(await emitEvent(org.id, 'run.completed', { id: 'run_Z' }, 'test#run_Z')).toBe(false);
    await drain(true);
    setClock(t0 + 5_000);
    await drain(true);
    expect(receiver.requests).toHaveLength(2);
    const [d] = (await api.get(`/webhooks/${webhook.id}/deliveries`)).body;
    expect(d).toMatchObject({ status: 'SUCCEEDED', attemptCount: 2 });
    expect((await api.get(`/webhooks/${webhook.id}/deliveries`)).headers['x-total-count']).toBe('1');
    expect(
      (await api.get(`/webhooks/${webhook.id}/deliveries`, { ids: d.id })).body.map((x: { id: string }) => x.id),
    ).toEqual([d.id]);
    expect((await api.get(`/webhooks/${webhook.id}/deliveries`, { ids: 'msg_01NONE' })).body).toEqual([]);
    expect(webhookDeadLetters).toHaveLength(0);
  });

  it('refuses a loopback receiver at delivery time when private networks are not allowed, and logs why', async () => {
    const { api, webhook } = await newWebhook();
    process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'false';
    const res = await api.post(`/webhooks/${webhook.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'PENDING',
      attemptCount: 1,
      responseCode: null,
      error: 'address not allowed: 127.0.0.1 is loopback',
    });
    expect(receiver.requests).toHaveLength(0);
    // A literal loopback URL is now refused at update, as link-local always is.
    expect((await api.patch(`/webhooks/${webhook.id}`, { url: 'http://127.0.0.1:9/x' })).body.message).toMatch(
      /127\.0\.0\.1 is loopback/,
    );
  });

  it('gives up an attempt the receiver does not answer within 10 s, and retries it after 5 s', async () => {
    const { api, webhook } = await newWebhook(['ping'], '/slow');
    // The receiver takes the request and never answers: the attempt's timeout (on the fake clock)
    // expires once the request is there, without 10 real seconds.
    const held = gate();
    receiver.setHandler(() => held.open());
    const time = fakeClock({ expire: () => held.next() });
    const res = await api.post(`/webhooks/${webhook.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: 'ping',
      status: 'PENDING',
      attemptCount: 1,
      responseCode: null,
      error: 'the endpoint did not answer within 10 s',
      durationMs: 10_000,
    });
    expect(ATTEMPT_TIMEOUT_MS).toBe(10_000);
    expect(time.timeouts).toEqual([ATTEMPT_TIMEOUT_MS]);
    expect(Date.parse(res.body.nextAttemptAt) - Date.parse(res.body.lastAttemptAt)).toBe(5_000);
    expect(receiver.requests.filter((r) => r.url === '/slow')).toHaveLength(1);
  });

  it('disables an endpoint whose attempts all failed for 5 days, says why, and stops its deliveries', async () => {
    const { api, org, webhook } = await newWebhook(['run.completed', 'run.failed'], '/disabled');
    // Other tests' endpoints may still have attempts due on the moved clock: count this one's.
    const mine = () => receiver.requests.filter((r) => r.url === '/disabled');
    receiver.setHandler((_req, res) => sendJson(res, 410, { gone: true }));
    const t0 = Date.parse('2031-06-01T00:00:00.000Z');
    setClock(t0);
    await emitEvent(org.id, 'run.failed', { id: 'run_1' }, 'test#d1');
    await drain();
    setClock(t0 + 4 * 86_400_000);
    await emitEvent(org.id, 'run.failed', { id: 'run_2' }, 'test#d2');
    await drain();
    expect((await api.get(`/webhooks/${webhook.id}`)).body).toMatchObject({
      status: 'ENABLED',
      failingSince: new Date(t0).toISOString(),
    });
    setClock(t0 + 5 * 86_400_000);
    await emitEvent(org.id, 'run.failed', { id: 'run_3' }, 'test#d3');
    await drain();
    const wh = (await api.get(`/webhooks/${webhook.id}`)).body;
    expect(wh.status).toBe('DISABLED');
    expect(wh.disabledAt).toBe(new Date(t0 + 5 * 86_400_000).toISOString());
    expect(wh.disabledReason).toMatch(
      /every delivery attempt since 2031-06-01T00:00:00.000Z failed .*the endpoint answered 410/,
    );
    // Pending retries stop at their next attempt, and new events skip the endpoint.
    const sent = mine().length;
    setClock(t0 + 6 * 86_400_000);
    await sweepDueDeliveries(clock.now(), ofOrg(org.id));
    await drain();
    expect(await emitEvent(org.id, 'run.failed', { id: 'run_4' }, 'test#d4')).toBe(false);
    expect(mine().length).toBe(sent);
    const log = (await api.get(`/webhooks/${webhook.id}/deliveries`)).body as { status: string; error: string }[];
    expect(log.every((d) => d.status === 'FAILED')).toBe(true);
    expect(log.some((d) => /the webhook is disabled/.test(d.error))).toBe(true);
    // Re-enabled by the user: clean state.
    const again = await api.patch(`/webhooks/${webhook.id}`, { status: 'ENABLED' });
    expect(again.body).toMatchObject({ status: 'ENABLED', disabledReason: null, failingSince: null });
  });
});
