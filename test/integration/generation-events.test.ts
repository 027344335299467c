import { localGenerationQueue, localWebhookQueue } from '../../infra/local/queues.js';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';
import { createProduct } from '../support/fixtures.js';
import { sendJson, startAgent, type TestAgentServer } from '../support/agent-server.js';
import { generatorAnswer, startLlmStub, type LlmStub } from '../support/llm-server.js';
import { setLlmConfig } from '../../shared/llm/client.js';
import { drainRunQueue, generationDeadLetters } from '../../infra/local/run-queue.js';
import { webhookDelayQueue } from '../../infra/local/webhook-queue.js';
import { handler as generator } from '../../functions/jobs/generator.js';
import { handler as deliverer } from '../../functions/jobs/deliverer.js';

/** test.generated / test.failed: sent once per generation, also when every job is delivered twice. */

let llm: LlmStub;
let receiver: TestAgentServer;

beforeAll(async () => {
  process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'true';
  llm = await startLlmStub(generatorAnswer);
  receiver = await startAgent();
});
afterAll(async () => {
  setLlmConfig({ baseUrl: undefined });
  await llm.close();
  await receiver.close();
});
beforeEach(() => {
  localGenerationQueue.messages.length = 0;
  localWebhookQueue.messages.length = 0;
  generationDeadLetters.length = 0;
  llm.setHandler(generatorAnswer);
  receiver.setHandler((_req, res) => sendJson(res, 200, {}));
  setLlmConfig({ baseUrl: llm.url, timeoutMs: 2000, backoffMs: 10, maxAttempts: 2 });
});

const generationQueue = { queue: localGenerationQueue, deadLetters: generationDeadLetters, now: () => Date.now() };
const generate = () =>
  drainRunQueue((e: SQSEvent) => generator(e) as Promise<unknown>, { queue: generationQueue, duplicate: true });
const deliver = () =>
  drainRunQueue((e: SQSEvent) => deliverer(e) as Promise<unknown>, {
    queue: webhookDelayQueue,
    visibleOnly: true,
    duplicate: true,
  });

async function tenantListening() {
  const t = await newTenant();
  const path = `/${t.org.id}`;
  const hook = await t.api.post('/webhooks', {
    url: `${receiver.url}${path}`,
    events: ['test.generated', 'test.failed'],
  });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  const product = await createProduct(t.api, { description: 'Answers billing questions of Acme customers' });
  const received = () =>
    receiver.requests
      .filter((r) => r.url === path)
      .map((r) => r.json as { type: string; data: { id: string; status: string; error: string | null } });
  return { ...t, product, received };
}

describe('events of generated tests', () => {
  it('a generated test that reaches SUCCESS is sent once as test.generated, with every job delivered twice', async () => {
    const t = await tenantListening();
    const created = await t.api.post('/tests', {
      productId: t.product.id,
      name: 'probes',
      type: 'RED_TEAMING',
      variants: ['misuse'],
      strategies: ['base64'],
      maxTestCases: 4,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await generate();
    await deliver();
    expect(t.received()).toEqual([
      expect.objectContaining({
        type: 'test.generated',
        data: expect.objectContaining({ id: created.body.id, status: 'SUCCESS' }),
      }),
    ]);
    // Running the queues again changes nothing.
    await generate();
    await deliver();
    expect(t.received()).toHaveLength(1);
  });

  it('a generation that fails is sent once as test.failed, with its error', async () => {
    const t = await tenantListening();
    setLlmConfig({ baseUrl: undefined });
    const created = await t.api.post('/tests', {
      productId: t.product.id,
      name: 'probes',
      type: 'RED_TEAMING',
      variants: ['misuse'],
      maxTestCases: 2,
    });
    expect(created.status).toBe(201);
    await generate();
    await deliver();
    expect(t.received()).toEqual([
      expect.objectContaining({
        type: 'test.failed',
        data: expect.objectContaining({
          id: created.body.id,
          status: 'FAILED',
          error: expect.stringContaining('no generator model is configured'),
        }),
      }),
    ]);
  });

  it('a cancelled generation sends nothing', async () => {
    const t = await tenantListening();
    const created = await t.api.post('/tests', {
      productId: t.product.id,
      name: 'probes',
      type: 'RED_TEAMING',
      variants: ['misuse'],
      maxTestCases: 2,
    });
    expect((await t.api.post(`/tests/${created.body.id}/cancel`)).status).toBe(200);
    await generate();
    await deliver();
    expect(t.received()).toEqual([]);
  });
});
