import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent, startAgent, type TestAgentServer } from '../support/agent-server.js';
import { base64, leetspeak } from '../../shared/domain/generation/strategies.js';
import { http, waitForStatus as waitFor } from '../support/e2e-http.js';

let agent: TestAgentServer;
beforeAll(async () => {
  agent = await startAgent(echoAgent);
});
afterAll(async () => {
  await agent.close();
});

describe('test generation over HTTP on the local server', () => {
  it('generates a RED_TEAMING test with base64 and leetspeak, then runs it against a local agent', async () => {
    const product = (
      await http('POST', '/products', {
        name: 'gen e2e bot',
        description: 'a support bot',
        securityBoundaries: ['never shares passwords'],
      })
    ).body;
    const created = await http('POST', '/tests', {
      productId: product.id,
      name: 'attacks',
      type: 'RED_TEAMING',
      variants: ['data_leakage'],
      strategies: ['base64', 'leetspeak'],
      maxTestCases: 6,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'PENDING',
      strategies: ['original', 'base64', 'leetspeak'],
      maxTestCases: 6,
      isExtendable: true,
    });
    const test = await waitFor(`/tests/${created.body.id}`, ['PENDING']);
    expect(test).toMatchObject({ status: 'SUCCESS', testCaseCount: 6, error: null });

    const cases = (await http('GET', `/testCases?testIds=${test.id}`)).body as {
      input: string;
      strategy: string;
      variant: string;
    }[];
    expect(cases).toHaveLength(6);
    const originals = cases.filter((c) => c.strategy === 'original').map((c) => c.input);
    expect(originals).toHaveLength(2);
    expect(
      cases
        .filter((c) => c.strategy === 'base64')
        .map((c) => c.input)
        .sort(),
    ).toEqual(originals.map(base64).sort());
    expect(
      cases
        .filter((c) => c.strategy === 'leetspeak')
        .map((c) => c.input)
        .sort(),
    ).toEqual(originals.map(leetspeak).sort());
    expect(cases.every((c) => c.variant === 'data_leakage')).toBe(true);

    const conversation = (
      await http('POST', '/endpointConnections', {
        productId: product.id,
        name: 'echo',
        url: `${agent.url}/chat`,
        inputTemplate: '{"message": "{{ input.user_message }}"}',
        outputMapping: { output: '$.reply' },
        type: 'CONVERSATION',
      })
    ).body;
    const version = (
      await http('POST', '/versions', {
        productId: product.id,
        name: 'v1',
        conversationEndpointConnectionId: conversation.id,
      })
    ).body;
    const run = await http('POST', '/runs', {
      versionId: version.id,
      testId: test.id,
      metricIds: ['met_non_empty_output'],
    });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    const done = await waitFor(`/runs/${run.body.id}`, ['PENDING', 'RUNNING']);
    expect(done).toMatchObject({ status: 'COMPLETED', progress: { total: 6, completed: 6, failed: 0 } });
    const sent = agent.requests.filter((r) => r.url === '/chat').map((r) => r.json.message as string);
    expect(sent.sort()).toEqual(cases.map((c) => c.input).sort());
  });

  it('cancels a generation, and refuses to extend a test that is not SUCCESS', async () => {
    const product = (await http('POST', '/products', { name: 'gen e2e bot 2', description: 'a support bot' })).body;
    const created = (
      await http('POST', '/tests', { productId: product.id, name: 'quality', type: 'QUALITY', maxTestCases: 1 })
    ).body;
    const cancel = await http('POST', `/tests/${created.id}/cancel`);
    // The generator may have finished already (the stub answers at once): then the cancel is a 409.
    if (cancel.status === 200) expect(cancel.body.status).toBe('CANCELLED');
    else expect(cancel).toMatchObject({ status: 409, body: { error: 'Conflict' } });
    const after = await waitFor(`/tests/${created.id}`, ['PENDING']);
    expect(['CANCELLED', 'SUCCESS']).toContain(after.status);
    expect((await http('POST', `/tests/${created.id}/extend`, { count: 2 })).status).toBe(409);
  });
});
