import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent, startAgent, type TestAgentServer } from '../support/agent-server.js';
import { e2eApi, expectStatus } from '../support/typed-api.js';

const api = e2eApi();

async function upload(csv: string): Promise<string> {
  const presigned = await expectStatus(
    api.GET('/storage/generate-put-presigned-url', {
      params: { query: { fileName: 'cases.csv', contentType: 'text/csv' } },
    }),
    200,
  );
  const put = await fetch(presigned.url, { method: 'PUT', body: csv, headers: { 'content-type': 'text/csv' } });
  expect(put.status).toBe(200);
  return presigned.uri;
}

/** Polls the run until it leaves PENDING/RUNNING. */
async function waitForRun(id: string, timeoutMs = 50_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await expectStatus(api.GET('/runs/{id}', { params: { path: { id } } }), 200);
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
    const product = await expectStatus(
      api.POST('/products', { body: { name: 'run e2e bot', description: 'echoes what it hears' } }),
      201,
    );
    const conversation = await expectStatus(
      api.POST('/endpointConnections', {
        body: {
          productId: product.id,
          name: 'echo',
          url: `${agent.url}/chat`,
          inputTemplate: '{"message": "{{ input.user_message }}"}',
          outputMapping: { output: '$.reply' },
          type: 'CONVERSATION',
        },
      }),
      201,
    );
    expect(conversation.id).toMatch(/^econ_/);
    const version = await expectStatus(
      api.POST('/versions', {
        body: { productId: product.id, name: 'v1', conversationEndpointConnectionId: conversation.id },
      }),
      201,
    );
    const spec = await expectStatus(
      api.POST('/specifications', {
        body: { productId: product.id, description: 'repeats the question', type: 'CAPABILITY' },
      }),
      201,
    );
    await expectStatus(
      api.POST('/specifications/{id}/metrics', {
        params: { path: { id: spec.id } },
        body: { metricIds: ['met_non_empty_output', 'met_text_similarity'] },
      }),
      200,
    );
    const quality = await expectStatus(
      api.POST('/tests', {
        body: {
          productId: product.id,
          name: 'echo quality',
          type: 'QUALITY',
          specificationId: spec.id,
          uri: await upload('input,expected_output\nhello,hello\nhow are you,how are you\nrefund please,no refunds\n'),
        },
      }),
      201,
    );
    expect(quality).toMatchObject({ status: 'SUCCESS', testCaseCount: 3 });

    const created = await expectStatus(
      api.POST('/runs', { body: { versionId: version.id, testId: quality.id, name: 'e2e quality' } }),
      201,
    );
    expect(created.progress).toEqual({ total: 3, pending: 3, running: 0, completed: 0, failed: 0 });
    const run = await waitForRun(created.id);
    expect(run).toMatchObject({
      status: 'COMPLETED',
      progress: { total: 3, pending: 0, running: 0, completed: 3, failed: 0 },
    });
    const metrics = Object.fromEntries(run.metrics.map((m) => [m.name, m]));
    expect(metrics.non_empty_output).toMatchObject({ evaluated: 3, score: 1 });
    expect(metrics.text_similarity!.evaluated).toBe(3);
    expect(metrics.text_similarity!.score).toBeGreaterThan(0.6);
    expect(metrics.text_similarity!.score).toBeLessThan(1);

    const sessions = await api.GET('/sessions', { params: { query: { runIds: [run.id] } } });
    expect(sessions.response.headers.get('x-total-count')).toBe('3');
    const ids = sessions.data!.map((s) => s.id);
    for (const s of sessions.data!)
      expect(s).toMatchObject({ status: 'COMPLETED', runId: run.id, isProduction: false, turnCount: 1 });
    const turns = await expectStatus(api.GET('/inferenceResults', { params: { query: { sessionIds: ids } } }), 200);
    expect(turns.map((t) => [t.input, t.output]).sort()).toEqual([
      ['hello', 'hello'],
      ['how are you', 'how are you'],
      ['refund please', 'refund please'],
    ]);
    const evaluations = await expectStatus(api.GET('/evaluations', { params: { query: { sessionIds: ids } } }), 200);
    expect(evaluations).toHaveLength(6);
    expect(evaluations.every((e) => e.status === 'SUCCESS')).toBe(true);
    expect(agent.requests.filter((r) => r.url === '/chat')).toHaveLength(3);
    const completed = await expectStatus(
      api.GET('/runs', { params: { query: { versionIds: [version.id], statuses: ['COMPLETED'] } } }),
      200,
    );
    expect(completed.map((r) => r.id)).toEqual([run.id]);

    // SCENARIOS: the stub LLM plays the user (never stopping), so the conversation ends at max_iterations.
    const scenarios = await expectStatus(
      api.POST('/tests', {
        body: {
          productId: product.id,
          name: 'refund scenarios',
          type: 'SCENARIOS',
          strategies: ['written'],
          uri: await upload('goal,user_persona,max_iterations\nget a refund,impatient customer,2\n'),
        },
      }),
      201,
    );
    expect(scenarios.status).toBe('SUCCESS');
    const second = await expectStatus(
      api.POST('/runs', { body: { versionId: version.id, testId: scenarios.id, metricIds: ['met_goal_completion'] } }),
      201,
    );
    const done = await waitForRun(second.id);
    expect(done).toMatchObject({
      status: 'COMPLETED',
      progress: { completed: 1 },
      metrics: [{ metricId: 'met_goal_completion', evaluated: 1, score: 0.75 }],
    });
    const [session] = await expectStatus(api.GET('/sessions', { params: { query: { runIds: [done.id] } } }), 200);
    expect(session).toMatchObject({ status: 'COMPLETED', stoppingReason: 'max_iterations', turnCount: 2 });
    const conversationTurns = await expectStatus(
      api.GET('/inferenceResults', { params: { query: { sessionIds: [session!.id] } } }),
      200,
    );
    expect(conversationTurns.map((t) => t.input)).toEqual([
      expect.stringMatching(/^simulated message/),
      expect.stringMatching(/^simulated message/),
    ]);
    const [scored] = await expectStatus(
      api.GET('/evaluations', { params: { query: { sessionIds: [session!.id] } } }),
      200,
    );
    expect(scored).toMatchObject({ status: 'SUCCESS', score: 0.75, inferenceResultId: null });
  });
});
