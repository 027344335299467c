import { describe, expect, inject, it } from 'vitest';
import { http, waitForStatus } from '../support/e2e-http.js';

/**
 * Barge-in on `npm start`: PHONE runs whose service cuts into the example voice agent's answers
 * (the server's phone line dials it, the LLM stub speaks, hears and plays the simulated user). The
 * agent that stops when spoken over recovers; the one started with barge-in off does not.
 */

/** A product whose version dials `number`, and a SCENARIOS test of one three-turn case. */
async function phoneScenario(number: string) {
  const product = (await http('POST', '/products', { name: `barge-in ${number}` })).body;
  const phone = (await http('POST', '/phoneConnections', { productId: product.id, name: 'line', phoneNumber: number }))
    .body;
  const version = (await http('POST', '/versions', { productId: product.id, name: 'v1', phoneConnectionId: phone.id }))
    .body;
  const presigned = (await http('GET', '/storage/generate-put-presigned-url?fileName=calls.csv&contentType=text/csv'))
    .body;
  const put = await fetch(presigned.url, {
    method: 'PUT',
    body: 'goal,user_persona,max_iterations\nget a refund,caller,3\n',
    headers: { 'content-type': 'text/csv' },
  });
  expect(put.status).toBe(200);
  const test = (
    await http('POST', '/tests', {
      productId: product.id,
      name: 'calls',
      type: 'SCENARIOS',
      uri: presigned.uri,
      strategies: ['spoken'],
    })
  ).body;
  expect(test.status).toBe('SUCCESS');
  return { version, test };
}

/** Runs the scenario with a barge-in after 500 ms; the finished run and its turns. */
async function bargeInRun(number: string) {
  const { version, test } = await phoneScenario(number);
  const created = await http('POST', '/runs', {
    versionId: version.id,
    testId: test.id,
    metricIds: ['met_non_empty_output'],
    bargeInAfterMs: 500,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body).toMatchObject({ channel: 'PHONE', bargeInAfterMs: 500 });
  const run = await waitForStatus(`/runs/${created.body.id}`, ['PENDING', 'RUNNING'], 150_000);
  const [session] = (await http('GET', `/sessions?runIds=${run.id}`)).body;
  const turns = (await http('GET', `/inferenceResults?sessionIds=${session.id}`)).body as any[];
  return { run, session, turns };
}

describe('barge-in on the local server', () => {
  it('records recoveries against the example voice agent, and none when its barge-in is off', async () => {
    const numbers = inject('bargeInNumbers');
    const [stops, talksOn] = await Promise.all([bargeInRun(numbers.stops), bargeInRun(numbers.talksOn)]);

    // Three turns; the second's answer was cut into by the third question.
    expect(stops.session).toMatchObject({ status: 'COMPLETED', turnCount: 3 });
    expect(stops.turns.map((t) => Boolean(t.metadata.bargeIn))).toEqual([false, true, false]);
    const recovered = stops.turns[1].metadata.bargeIn;
    expect(recovered.atMs).toBeGreaterThan(0);
    expect(recovered.agentStoppedAfterMs).not.toBeNull();
    expect(recovered.agentStoppedAfterMs).toBeLessThanOrEqual(1000);
    expect(stops.run.voice.bargeInRecovery).toEqual({
      rate: 1,
      p50: recovered.agentStoppedAfterMs,
      p95: recovered.agentStoppedAfterMs,
    });

    // Barge-in off: the agent talks on over the caller (never stopping within 3 s, or not within a second).
    const ignored = talksOn.turns.find((t) => t.metadata.bargeIn)?.metadata.bargeIn;
    expect(ignored).toBeDefined();
    if (ignored.agentStoppedAfterMs !== null) expect(ignored.agentStoppedAfterMs).toBeGreaterThan(1000);
    expect(talksOn.run.voice.bargeInRecovery.rate).toBeLessThan(stops.run.voice.bargeInRecovery.rate);
  }, 180_000);
});
