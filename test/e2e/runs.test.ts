import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { echoAgent, startAgent, type TestAgentServer } from '../support/agent-server.js';
import { jsonClient } from '../support/http-client.js';

const base = inject('serverUrl');
const key = inject('demoApiKey');

const http = jsonClient(base, key);

async function upload(csv: string): Promise<string> {
  const presigned = await http('GET', '/storage/generate-put-presigned-url?fileName=cases.csv&contentType=text/csv');
  expect(presigned.status).toBe(200);
  const put = await fetch(presigned.body.url, { method: 'PUT', body: csv, headers: { 'content-type': 'text/csv' } });
  expect(put.status).toBe(200);
  return presigned.body.uri;
}

/** Polls the run until it leaves PENDING/RUNNING. */
async function waitForRun(id: string, timeoutMs = 50_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = (await http('GET', `/runs/${id}`)).body;
    if (!['PENDING', 'RUNNING'].includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${id} still ${run.status}: ${JSON.stringify(run.progress)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

let agent: TestAgentServer;
beforeAll(async () => {
  agent = await startAgent(echoAgent);
});
afterAll(async () => {
  await agent.close();
});

describe('runs over HTTP on the local server', () => {
  it('runs a QUALITY test against a local agent and a SCENARIOS test with the simulated user', async () => {
    const product = (await http('POST', '/products', { name: 'run e2e bot', description: 'echoes what it hears' })).body;
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
    expect(conversation.id).toMatch(/^econ_/);
    const version = (await http('POST', '/versions', { productId: product.id, name: 'v1', conversationEndpointConnectionId: conversation.id })).body;
    const spec = (await http('POST', '/specifications', { productId: product.id, description: 'repeats the question', type: 'CAPABILITY' })).body;
    expect((await http('POST', `/specifications/${spec.id}/metrics`, { metricIds: ['met_non_empty_output', 'met_text_similarity'] })).status).toBe(200);
    const quality = (
      await http('POST', '/tests', {
        productId: product.id,
        name: 'echo quality',
        type: 'QUALITY',
        specificationId: spec.id,
        uri: await upload('input,expected_output\nhello,hello\nhow are you,how are you\nrefund please,no refunds\n'),
      })
    ).body;
    expect(quality).toMatchObject({ status: 'SUCCESS', testCaseCount: 3 });

    const created = await http('POST', '/runs', { versionId: version.id, testId: quality.id, name: 'e2e quality' });
    expect(created.status).toBe(201);
    expect(created.body.progress).toEqual({ total: 3, pending: 3, running: 0, completed: 0, failed: 0 });
    const run = await waitForRun(created.body.id);
    expect(run).toMatchObject({ status: 'COMPLETED', progress: { total: 3, pending: 0, running: 0, completed: 3, failed: 0 } });
    const metrics = Object.fromEntries(run.metrics.map((m: { name: string }) => [m.name, m]));
    expect(metrics.non_empty_output).toMatchObject({ evaluated: 3, score: 1 });
    expect(metrics.text_similarity.evaluated).toBe(3);
    expect(metrics.text_similarity.score).toBeGreaterThan(0.6);
    expect(metrics.text_similarity.score).toBeLessThan(1);

    const sessions = await http('GET', `/sessions?runIds=${run.id}`);
    expect(sessions.total).toBe('3');
    const ids = sessions.body.map((s: { id: string }) => s.id);
    for (const s of sessions.body) expect(s).toMatchObject({ status: 'COMPLETED', runId: run.id, isProduction: false, turnCount: 1 });
    const turns = await http('GET', `/inferenceResults?sessionIds=${ids.join(',')}`);
    expect(turns.body.map((t: { input: string; output: string }) => [t.input, t.output]).sort()).toEqual([
      ['hello', 'hello'],
      ['how are you', 'how are you'],
      ['refund please', 'refund please'],
    ]);
    const evaluations = await http('GET', `/evaluations?sessionIds=${ids.join(',')}`);
    expect(evaluations.body).toHaveLength(6);
    expect(evaluations.body.every((e: { status: string }) => e.status === 'SUCCESS')).toBe(true);
    expect(agent.requests.filter((r) => r.url === '/chat')).toHaveLength(3);
    expect((await http('GET', `/runs?versionIds=${version.id}&statuses=COMPLETED`)).body.map((r: { id: string }) => r.id)).toEqual([run.id]);

    // SCENARIOS: the stub LLM plays the user (never stopping), so the conversation ends at max_iterations.
    const scenarios = (
      await http('POST', '/tests', {
        productId: product.id,
        name: 'refund scenarios',
        type: 'SCENARIOS',
        strategies: ['default'],
        uri: await upload('goal,user_persona,max_iterations\nget a refund,impatient customer,2\n'),
      })
    ).body;
    expect(scenarios.status).toBe('SUCCESS');
    const second = await http('POST', '/runs', { versionId: version.id, testId: scenarios.id, metricIds: ['met_goal_completion'] });
    expect(second.status).toBe(201);
    const done = await waitForRun(second.body.id);
    expect(done).toMatchObject({ status: 'COMPLETED', progress: { completed: 1 }, metrics: [{ metricId: 'met_goal_completion', evaluated: 1, score: 0.75 }] });
    const [session] = (await http('GET', `/sessions?runIds=${done.id}`)).body;
    expect(session).toMatchObject({ status: 'COMPLETED', stoppingReason: 'max_iterations', turnCount: 2 });
    const conversationTurns = (await http('GET', `/inferenceResults?sessionIds=${session.id}`)).body;
    expect(conversationTurns.map((t: { input: string }) => t.input)).toEqual([expect.stringMatching(/^simulated message/), expect.stringMatching(/^simulated message/)]);
    const [scored] = (await http('GET', `/evaluations?sessionIds=${session.id}`)).body;
    expect(scored).toMatchObject({ status: 'SUCCESS', score: 0.75, inferenceResultId: null });
  });
});
