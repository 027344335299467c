// Sends one conversation turn to the service through the OpenTelemetry JS SDK, as an agent would:
// an `invoke_agent` root span with the GenAI attributes the service maps, and a `chat` child span.
// Usage: BASE=http://127.0.0.1:$PORT KEY=evk_… VERSION=ver_… node examples/otel-export.mjs [session id]
// The SDK packages ask for Node 22.15+ (it also ran on Node 20.20); `npx node …` uses the project's Node 22.
import { context, DiagConsoleLogger, DiagLogLevel, diag, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

const { BASE, KEY, VERSION } = process.env;
if (!BASE || !KEY || !VERSION) throw new Error('set BASE, KEY and VERSION (see the README walkthrough)');
const sessionId = process.argv[2] ?? 'otel-demo-1';
diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.WARN); // a refused export or rejected spans show here

const exporter = new OTLPTraceExporter({ url: `${BASE}/otel/v1/traces`, headers: { Authorization: `Bearer ${KEY}` } });
const provider = new TracerProvider({
  // platform.version.id says which version the traffic comes from; on the resource, it applies to every span.
  resource: resourceFromAttributes({ 'service.name': 'support-bot', 'platform.version.id': VERSION }),
  spanProcessors: [new BatchSpanProcessor({ exporter })],
});
const tracer = provider.getTracer('support-bot', '1.0.0');

const question = 'Do you ship to Canada?';
const answer = 'Yes, we ship to Canada. Delivery takes 5 to 8 business days.';
// One trace is one turn: the root span gives its input, output and usage; session.id names the conversation.
const root = tracer.startSpan('invoke_agent support-bot', {
  attributes: {
    'session.id': sessionId,
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: question }] }]),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }] }]),
    'gen_ai.usage.input_tokens': 42,
    'gen_ai.usage.output_tokens': 17,
  },
});
const chat = tracer.startSpan(
  'chat gpt-4.1-mini',
  { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4.1-mini' } },
  trace.setSpan(context.active(), root),
);
chat.end();
root.setStatus({ code: SpanStatusCode.OK });
root.end(); // a span is exported only once it has ended

await provider.shutdown(); // flushes the batch processor: without it the process may exit before the export
console.log(`exported a turn of session.id "${sessionId}" to ${BASE}/otel/v1/traces`);
