/**
 * The route table: every route of the API, in the order the stack, the local server, the OpenAPI
 * document and the fuzzer take them. Each route is written once, in its resource's module under
 * `shared/routes/`: method, path, handler module, access, table grants, and the schemas of its
 * request and answer (shared/routes/route.ts). CDK (infra/stack.ts) and the local server
 * (infra/local/server.ts) read this list; a handler imports its own resource's module only, so a
 * function bundle holds the schemas of its resource, not the whole table.
 */
import type { Route, RouteContract } from './routes/route.js';
import { alertRulesRoutes } from './routes/alert-rules.js';
import { apiKeysRoutes } from './routes/api-keys.js';
import { buildInfoRoutes } from './routes/build-info.js';
import { endpointConnectionsRoutes } from './routes/endpoint-connections.js';
import { evaluationsRoutes } from './routes/evaluations.js';
import { inferenceResultsRoutes } from './routes/inference-results.js';
import { mcpRoutes } from './routes/mcp.js';
import { metricsRoutes } from './routes/metrics.js';
import { modelsRoutes } from './routes/models.js';
import { monitorsRoutes } from './routes/monitors.js';
import { organizationRoutes } from './routes/organization.js';
import { otelRoutes } from './routes/otel.js';
import { phoneConnectionsRoutes } from './routes/phone-connections.js';
import { productsRoutes } from './routes/products.js';
import { reviewQueuesRoutes } from './routes/review-queues.js';
import { runsRoutes } from './routes/runs.js';
import { sessionsRoutes } from './routes/sessions.js';
import { specificationsRoutes } from './routes/specifications.js';
import { storageRoutes } from './routes/storage.js';
import { testCasesRoutes } from './routes/test-cases.js';
import { testsRoutes } from './routes/tests.js';
import { tracesRoutes } from './routes/traces.js';
import { versionsRoutes } from './routes/versions.js';
import { webhooksRoutes } from './routes/webhooks.js';

export type { Access, Capability, DataAccess, HttpMethod, Route, RouteContract } from './routes/route.js';

export const routes: readonly RouteContract[] = [
  // organization and API keys
  organizationRoutes.get,
  organizationRoutes.update,
  apiKeysRoutes.create,
  apiKeysRoutes.list,
  apiKeysRoutes.get,
  apiKeysRoutes.delete,

  // products, versions, endpoint connections
  productsRoutes.create,
  productsRoutes.list,
  productsRoutes.get,
  productsRoutes.update,
  productsRoutes.delete,
  versionsRoutes.create,
  versionsRoutes.list,
  versionsRoutes.get,
  versionsRoutes.update,
  versionsRoutes.delete,
  endpointConnectionsRoutes.create,
  endpointConnectionsRoutes.list,
  endpointConnectionsRoutes.get,
  endpointConnectionsRoutes.update,
  endpointConnectionsRoutes.delete,
  endpointConnectionsRoutes.test,

  // metrics, evaluator models, specifications
  metricsRoutes.create,
  metricsRoutes.list,
  metricsRoutes.get,
  metricsRoutes.update,
  metricsRoutes.delete,
  modelsRoutes.list,
  modelsRoutes.put,
  specificationsRoutes.create,
  specificationsRoutes.list,
  specificationsRoutes.get,
  specificationsRoutes.update,
  specificationsRoutes.delete,
  specificationsRoutes.linkMetrics,
  specificationsRoutes.unlinkMetrics,
  specificationsRoutes.listMetrics,

  // tests (datasets), test cases, storage
  testsRoutes.create,
  testsRoutes.list,
  testsRoutes.get,
  testsRoutes.update,
  testsRoutes.delete,
  // generation
  testsRoutes.extend,
  testsRoutes.augment,
  testsRoutes.cancel,
  testCasesRoutes.create,
  testCasesRoutes.list,
  testCasesRoutes.get,
  testCasesRoutes.delete,
  storageRoutes.uploadUrl,
  storageRoutes.resolve,

  // sessions, turns (inference results), spans (traces), evaluations
  sessionsRoutes.create,
  sessionsRoutes.list,
  sessionsRoutes.get,
  sessionsRoutes.update,
  sessionsRoutes.delete,
  sessionsRoutes.metricCompatibility,
  inferenceResultsRoutes.create,
  inferenceResultsRoutes.batch,
  inferenceResultsRoutes.list,
  inferenceResultsRoutes.get,
  inferenceResultsRoutes.update,
  tracesRoutes.create,
  tracesRoutes.batch,
  tracesRoutes.list,
  tracesRoutes.get,
  tracesRoutes.delete,
  evaluationsRoutes.create,
  evaluationsRoutes.list,
  evaluationsRoutes.get,
  evaluationsRoutes.update,
  evaluationsRoutes.retry,

  // OpenTelemetry ingestion: OTLP/HTTP protobuf or JSON, maybe gzip
  otelRoutes.exportTraces,

  // runs: the service calls the agent
  runsRoutes.create,
  runsRoutes.list,
  runsRoutes.get,
  // The cancel queues the job that fails the run's waiting sessions.
  runsRoutes.cancel,
  // comparison with a base run (paired by test case); the cases' inputs may live in S3
  runsRoutes.comparison,
  runsRoutes.comparisonCases,
  runsRoutes.junit,

  // monitors
  // A user's status write sends monitor.status_changed.
  monitorsRoutes.create,
  monitorsRoutes.list,
  monitorsRoutes.get,
  monitorsRoutes.update,
  monitorsRoutes.delete,
  monitorsRoutes.results,
  // alert rules and alerts; deleting a rule resolves its open alert (alert.resolved)
  alertRulesRoutes.create,
  alertRulesRoutes.list,
  alertRulesRoutes.get,
  alertRulesRoutes.delete,
  monitorsRoutes.alerts,

  // human review: queues of sessions people label, and the judge's agreement with them
  reviewQueuesRoutes.create,
  reviewQueuesRoutes.list,
  reviewQueuesRoutes.get,
  reviewQueuesRoutes.update,
  reviewQueuesRoutes.delete,
  reviewQueuesRoutes.addItems,
  reviewQueuesRoutes.listItems,
  // The reviewer's next item reads the session's texts, which may live in S3.
  reviewQueuesRoutes.next,
  reviewQueuesRoutes.label,
  metricsRoutes.agreement,

  // webhooks
  webhooksRoutes.create,
  webhooksRoutes.list,
  webhooksRoutes.get,
  webhooksRoutes.update,
  webhooksRoutes.delete,
  webhooksRoutes.test,
  webhooksRoutes.deliveries,

  // phone connections
  phoneConnectionsRoutes.create,
  phoneConnectionsRoutes.list,
  phoneConnectionsRoutes.batchDelete,
  phoneConnectionsRoutes.get,
  phoneConnectionsRoutes.update,

  // MCP: the Model Context Protocol over Streamable HTTP (shared/routes/mcp.ts)
  mcpRoutes.server,
  mcpRoutes.get,
  mcpRoutes.delete,

  // build info
  buildInfoRoutes.get,
  buildInfoRoutes.services,
];

/**
 * Request and response bodies API Gateway passes as bytes (base64 in the proxy event, decoded back
 * from a base64 proxy result). Every type: OTLP bodies are protobuf or gzip-compressed JSON, and a
 * protobuf answer must reach clients that send no matching Accept header. JSON routes decode the
 * base64 body (shared/http/handler.ts); the local gateway does the same (infra/local/gateway.ts).
 */
export const BINARY_MEDIA_TYPES: readonly string[] = ['*/*'];

/** Scheduled and queue-driven functions (not behind the API). */
export interface Job {
  name: 'scanner' | 'aggregator' | 'evaluator' | 'runner' | 'generator' | 'deliverer' | 'sweeper' | 'voice';
  handler: string;
  /** `queue`: the evaluation queue; `runQueue`: the run queue; `generationQueue`: the generation queue; `webhookQueue`: webhook deliveries; `voiceQueue`: call recordings to analyse. */
  trigger: 'schedule' | 'queue' | 'runQueue' | 'generationQueue' | 'webhookQueue' | 'voiceQueue';
  /** Period of a scheduled job (default 5 minutes). */
  everyMinutes?: number;
  /** Modules left out of the bundle and shipped beside it, imported on first use (RUNTIME_MODULES of infra/constructs/app-function.ts). */
  runtimeModules?: readonly string[];
}

export const jobs: readonly Job[] = [
  { name: 'scanner', handler: 'jobs/scanner', trigger: 'schedule' },
  { name: 'aggregator', handler: 'jobs/aggregator', trigger: 'schedule' },
  { name: 'evaluator', handler: 'jobs/evaluator', trigger: 'queue' },
  { name: 'runner', handler: 'jobs/runner', trigger: 'runQueue' },
  { name: 'deliverer', handler: 'jobs/deliverer', trigger: 'webhookQueue' },
  // Attempts due after a wait longer than SQS's 15-minute delay (and lost jobs) go back on the queue.
  { name: 'sweeper', handler: 'jobs/webhook-sweeper', trigger: 'schedule', everyMinutes: 1 },
  // pdf.js (1.6 MiB) is read only for a PDF document: shipped beside the bundle, not in it.
  { name: 'generator', handler: 'jobs/generator', trigger: 'generationQueue', runtimeModules: ['unpdf/pdfjs'] },
  // A call recording's voice figures: decoded whole, with memory of its own (infra/function-memory.ts).
  { name: 'voice', handler: 'jobs/voice-figures', trigger: 'voiceQueue' },
];

export function routeOf(handler: string): RouteContract {
  const route = routes.find((x) => x.handler === handler);
  if (!route) throw new Error(`no route in the route table for handler ${handler}`);
  return route;
}

/** A stable construct id for a route, e.g. `GET /phoneConnections/{id}` → `GetPhoneConnectionsId`. */
export function routeId(route: Route): string {
  const words = [route.method.toLowerCase(), ...route.path.split(/[/{}-]+/).filter(Boolean)];
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}
