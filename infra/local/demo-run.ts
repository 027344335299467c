/**
 * `npm run demo:run` (while `npm start` runs): starts a small support agent on 127.0.0.1, wires it
 * to a demo product as its CONVERSATION endpoint, uploads a QUALITY test, links metrics, runs the
 * test over HTTP and prints the run's progress and scores as they change, then the sessions.
 * Everything goes through the public API, exactly as a user would do it.
 */
import { createServer } from 'node:http';
import { exitWith } from './cli.js';
import { apiKey, baseUrl } from './demo-target.js';

let base = '';
let key = '';
try {
  base = baseUrl();
  key = apiKey();
} catch (error) {
  exitWith(error);
}

async function http(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const out = (await res.json()) as any;
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${out.message ?? JSON.stringify(out)}`);
  return out;
}

// A small agent: knows two answers, says so when it does not know, takes ~100 ms to think.
const KNOWN: Record<string, string> = {
  'where is my order': 'Your order ships today and arrives in 2 days.',
  'can i get a refund': 'Yes: refunds are accepted within 30 days of delivery.',
};
const agent = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const { message = '' } = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { message?: string };
    const reply = KNOWN[message.toLowerCase().replace(/[?!.]+$/, '')] ?? "I'm sorry, I don't know that yet.";
    setTimeout(
      () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answer: { text: reply } })),
      100,
    );
  });
});
await new Promise<void>((r) => agent.listen(0, '127.0.0.1', () => r()));
const agentUrl = `http://127.0.0.1:${(agent.address() as { port: number }).port}`;
console.log(`Demo agent listening on ${agentUrl}`);

try {
  const product = await http('POST', '/products', {
    name: `Demo run bot ${new Date().toISOString().slice(0, 16)}`,
    description: 'Answers order and refund questions',
  });
  const connection = await http('POST', '/endpointConnections', {
    productId: product.id,
    name: 'demo agent',
    url: `${agentUrl}/chat`,
    inputTemplate: '{"message": "{{ input.user_message }}", "session": "{{ platform_session_id }}"}',
    outputMapping: { output: '$.answer.text' },
    type: 'CONVERSATION',
    timeout: 10,
  });
  const version = await http('POST', '/versions', {
    productId: product.id,
    name: 'v1',
    conversationEndpointConnectionId: connection.id,
  });
  const spec = await http('POST', '/specifications', {
    productId: product.id,
    description: 'Answers order and refund questions correctly',
    type: 'CAPABILITY',
  });
  await http('POST', `/specifications/${spec.id}/metrics`, {
    metricIds: ['met_non_empty_output', 'met_text_similarity', 'met_rouge'],
  });
  const upload = await http('GET', '/storage/generate-put-presigned-url?fileName=demo-run.csv&contentType=text/csv');
  const csv = [
    'input,expected_output',
    'Where is my order?,Your order ships today and arrives in 2 days.',
    'Can I get a refund?,Yes: refunds are accepted within 30 days of delivery.',
    'Do you ship abroad?,We ship to 40 countries.',
    'Where is my order,Your order ships today and arrives in 2 days.',
  ].join('\n');
  const put = await fetch(upload.url, { method: 'PUT', body: `${csv}\n`, headers: { 'content-type': 'text/csv' } });
  if (put.status !== 200) throw new Error(`upload failed with ${put.status}`);
  const test = await http('POST', '/tests', {
    productId: product.id,
    name: 'demo questions',
    type: 'QUALITY',
    uri: upload.uri,
    specificationId: spec.id,
  });
  console.log(`Test ${test.id}: ${test.status}, ${test.testCaseCount} cases`);

  let run = await http('POST', '/runs', { versionId: version.id, testId: test.id, name: 'demo run' });
  console.log(`Run ${run.id} created`);
  let last = '';
  const deadline = Date.now() + 120_000;
  while (['PENDING', 'RUNNING'].includes(run.status) && Date.now() < deadline) {
    const line = `  ${run.status.padEnd(9)} ${Object.entries(run.progress as Record<string, number>)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`;
    if (line !== last) console.log(line);
    last = line;
    await new Promise((r) => setTimeout(r, 250));
    run = await http('GET', `/runs/${run.id}`);
  }
  console.log(
    `  ${run.status.padEnd(9)} ${Object.entries(run.progress as Record<string, number>)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  console.log('Scores:');
  for (const m of run.metrics) {
    const ci = m.confidenceInterval
      ? ` (95% ${m.confidenceInterval.lower.toFixed(2)}–${m.confidenceInterval.upper.toFixed(2)})`
      : '';
    console.log(
      `  ${m.name.padEnd(18)} ${m.score === null ? '—' : m.score.toFixed(3)}${ci}  evaluated ${m.evaluated}, failed ${m.failed}, skipped ${m.skipped}`,
    );
  }
  const sessions = await http('GET', `/sessions?runIds=${run.id}&sort=createdAt:asc`);
  const turns = await http(
    'GET',
    `/inferenceResults?sessionIds=${sessions.map((s: { id: string }) => s.id).join(',')}`,
  );
  console.log('Turns:');
  for (const t of turns) console.log(`  ${JSON.stringify(t.input)} → ${JSON.stringify(t.output)} (${t.latencyMs} ms)`);
} catch (error) {
  agent.close();
  agent.closeAllConnections();
  exitWith(error);
} finally {
  agent.close();
  agent.closeAllConnections();
}
