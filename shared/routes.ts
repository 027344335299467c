/**
 * The route table: the one place a route's method, path, handler module and access level are
 * written. CDK (infra/stack.ts) and the local server (infra/local/server.ts) both read it.
 *
 * - `handler` is the module under `functions/` (without extension) exporting `handler`.
 * - `access`: who may call it. `member` = any valid key; `admin` = ADMIN role;
 *   `adminOrEnterprise` = ADMIN role or an organization on the ENTERPRISE plan.
 * - `data`: the table access its function is granted (`read` routes get read-only grants).
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Access = 'member' | 'admin' | 'adminOrEnterprise';
export type DataAccess = 'read' | 'write';
/** Extra permissions a route's function needs beyond the table (`tableSelect`: PartiQL reads). */
export type Capability =
  | 'bucketRead'
  | 'bucketWrite'
  | 'invokeJobs'
  | 'queueSend'
  | 'runQueueSend'
  | 'webhookQueueSend'
  | 'generationQueueSend'
  | 'tableSelect';

export interface Route {
  method: HttpMethod;
  path: string;
  handler: string;
  access: Access;
  data: DataAccess;
  capabilities?: readonly Capability[];
}

const r = (method: HttpMethod, path: string, handler: string, data: DataAccess, extra: Partial<Route> = {}): Route => ({
  method,
  path,
  handler,
  access: 'member',
  data,
  ...extra,
});

/** Create, list, read, update and (soft) delete of one resource. */
const crud = (base: string, folder: string): Route[] => [
  r('POST', base, `${folder}/create`, 'write'),
  r('GET', base, `${folder}/list`, 'read'),
  r('GET', `${base}/{id}`, `${folder}/get`, 'read'),
  r('PATCH', `${base}/{id}`, `${folder}/update`, 'write'),
  r('DELETE', `${base}/{id}`, `${folder}/delete`, 'write'),
];

export const routes: readonly Route[] = [
  // organization and API keys
  r('GET', '/organization', 'organization/get', 'read'),
  r('PATCH', '/organizations/{id}', 'organization/update', 'write', { access: 'admin' }),
  r('POST', '/apiKeys', 'api-keys/create', 'write'),
  r('GET', '/apiKeys', 'api-keys/list', 'read'),
  r('GET', '/apiKeys/{id}', 'api-keys/get', 'read'),
  r('DELETE', '/apiKeys/{id}', 'api-keys/delete', 'write'),

  // products, versions, endpoint connections
  ...crud('/products', 'products'),
  ...crud('/versions', 'versions'),
  ...crud('/endpointConnections', 'endpoint-connections'),
  r('POST', '/endpointConnections/{id}/test', 'endpoint-connections/test', 'write'),

  // metrics, evaluator models, specifications
  ...crud('/metrics', 'metrics'),
  r('GET', '/models', 'models/list', 'read'),
  r('PUT', '/models/{name}', 'models/put', 'write', { access: 'admin' }),
  ...crud('/specifications', 'specifications'),
  r('POST', '/specifications/{id}/metrics', 'specifications/link-metrics', 'write'),
  r('DELETE', '/specifications/{id}/metrics', 'specifications/unlink-metrics', 'write'),
  r('GET', '/specifications/{id}/metrics', 'specifications/list-metrics', 'read'),

  // tests (datasets), test cases, storage
  ...crud('/tests', 'tests').map((x) =>
    x.handler === 'tests/create' ? { ...x, capabilities: ['bucketRead', 'generationQueueSend'] as const } : x,
  ),
  // generation
  r('POST', '/tests/{id}/extend', 'tests/extend', 'write', { capabilities: ['generationQueueSend'] }),
  r('POST', '/tests/{id}/augment', 'tests/augment', 'write', { capabilities: ['generationQueueSend'] }),
  r('POST', '/tests/{id}/cancel', 'tests/cancel', 'write'),
  r('POST', '/testCases', 'test-cases/create', 'write'),
  r('GET', '/testCases', 'test-cases/list', 'read'),
  r('GET', '/testCases/{id}', 'test-cases/get', 'read'),
  r('DELETE', '/testCases/{id}', 'test-cases/delete', 'write'),
  r('GET', '/storage/generate-put-presigned-url', 'storage/upload-url', 'read', { capabilities: ['bucketWrite'] }),
  r('GET', '/storage', 'storage/resolve', 'read', { capabilities: ['bucketRead'] }),

  // sessions, turns (inference results), spans (traces), evaluations
  ...crud('/sessions', 'sessions'),
  r('GET', '/sessions/{id}/metricCompatibility', 'sessions/metric-compatibility', 'read', {
    capabilities: ['bucketRead'],
  }),
  r('POST', '/inferenceResults', 'inference-results/create', 'write'),
  r('POST', '/inferenceResults/batch', 'inference-results/batch', 'write'),
  r('GET', '/inferenceResults', 'inference-results/list', 'read'),
  r('GET', '/inferenceResults/{id}', 'inference-results/get', 'read'),
  r('PATCH', '/inferenceResults/{id}', 'inference-results/update', 'write'),
  r('POST', '/traces', 'traces/create', 'write', { capabilities: ['bucketWrite'] }),
  r('POST', '/traces/batch', 'traces/batch', 'write', { capabilities: ['bucketWrite'] }),
  r('GET', '/traces', 'traces/list', 'read', { capabilities: ['bucketRead'] }),
  r('GET', '/traces/{id}', 'traces/get', 'read', { capabilities: ['bucketRead'] }),
  r('DELETE', '/traces/{id}', 'traces/delete', 'write'),
  r('POST', '/evaluations', 'evaluations/create', 'write', { capabilities: ['bucketRead', 'queueSend'] }),
  r('GET', '/evaluations', 'evaluations/list', 'read'),
  r('GET', '/evaluations/{id}', 'evaluations/get', 'read'),
  r('PATCH', '/evaluations/{id}', 'evaluations/update', 'write'),
  r('POST', '/evaluations/{id}/retry', 'evaluations/retry', 'write', { capabilities: ['queueSend'] }),

  // OpenTelemetry ingestion: OTLP/HTTP protobuf or JSON, maybe gzip
  r('POST', '/otel/v1/traces', 'otel/export-traces', 'write', { capabilities: ['bucketWrite'] }),

  // runs: the service calls the agent
  r('POST', '/runs', 'runs/create', 'write', { capabilities: ['runQueueSend'] }),
  r('GET', '/runs', 'runs/list', 'read'),
  r('GET', '/runs/{id}', 'runs/get', 'read'),
  // The cancel queues the job that fails the run's waiting sessions.
  r('POST', '/runs/{id}/cancel', 'runs/cancel', 'write', { capabilities: ['runQueueSend'] }),
  // comparison with a base run (paired by test case); the cases' inputs may live in S3
  r('GET', '/runs/{id}/comparison', 'runs/comparison', 'read'),
  r('GET', '/runs/{id}/comparison/cases', 'runs/comparison-cases', 'read', { capabilities: ['bucketRead'] }),
  r('GET', '/runs/{id}/junit', 'runs/junit', 'read', { capabilities: ['bucketRead'] }),

  // monitors
  // A user's status write sends monitor.status_changed.
  ...crud('/monitors', 'monitors').map((x) =>
    x.handler === 'monitors/update' ? { ...x, capabilities: ['webhookQueueSend'] as const } : x,
  ),
  r('GET', '/monitors/{id}/results', 'monitors/results', 'read', { capabilities: ['tableSelect'] }),
  // alert rules and alerts; deleting a rule resolves its open alert (alert.resolved)
  r('POST', '/monitors/{id}/alertRules', 'alert-rules/create', 'write'),
  r('GET', '/monitors/{id}/alertRules', 'alert-rules/list', 'read'),
  r('GET', '/monitors/{id}/alertRules/{ruleId}', 'alert-rules/get', 'read'),
  r('DELETE', '/monitors/{id}/alertRules/{ruleId}', 'alert-rules/delete', 'write', {
    capabilities: ['webhookQueueSend'],
  }),
  r('GET', '/monitors/{id}/alerts', 'monitors/alerts', 'read'),

  // human review: queues of sessions people label, and the judge's agreement with them
  ...crud('/reviewQueues', 'review-queues'),
  r('POST', '/reviewQueues/{id}/items', 'review-queues/add-items', 'write'),
  r('GET', '/reviewQueues/{id}/items', 'review-queues/list-items', 'read'),
  // The reviewer's next item reads the session's texts, which may live in S3.
  r('POST', '/reviewQueues/{id}/next', 'review-queues/next', 'read', { capabilities: ['bucketRead'] }),
  r('PUT', '/reviewQueues/{id}/items/{itemId}/labels', 'review-queues/label', 'write'),
  r('GET', '/metrics/{id}/agreement', 'metrics/agreement', 'read'),

  // webhooks
  ...crud('/webhooks', 'webhooks'),
  r('POST', '/webhooks/{id}/test', 'webhooks/test', 'write', { capabilities: ['webhookQueueSend'] }),
  r('GET', '/webhooks/{id}/deliveries', 'webhooks/deliveries', 'read'),

  // phone connections
  r('POST', '/phoneConnections', 'phone-connections/create', 'write'),
  r('GET', '/phoneConnections', 'phone-connections/list', 'read'),
  r('DELETE', '/phoneConnections/batch', 'phone-connections/batch-delete', 'write'),
  r('GET', '/phoneConnections/{id}', 'phone-connections/get', 'read'),
  r('PATCH', '/phoneConnections/{id}', 'phone-connections/update', 'write'),

  // MCP: the Model Context Protocol over Streamable HTTP, stateless with JSON answers; its tools
  // call the use cases of the routes above (runs, comparisons, monitors, review), hence their grants.
  r('POST', '/mcp', 'mcp/server', 'write', { capabilities: ['bucketRead', 'runQueueSend', 'tableSelect'] }),
  // No SSE stream to open and no session to end: 405 (shared/mcp/method-not-allowed.ts).
  r('GET', '/mcp', 'mcp/get', 'read'),
  r('DELETE', '/mcp', 'mcp/delete', 'read'),

  // build info
  r('GET', '/build-info', 'build-info/get', 'read', { access: 'adminOrEnterprise' }),
  r('GET', '/build-info/services', 'build-info/services', 'read', {
    access: 'adminOrEnterprise',
    capabilities: ['invokeJobs'],
  }),
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
  name: 'scanner' | 'aggregator' | 'evaluator' | 'runner' | 'generator' | 'deliverer' | 'sweeper';
  handler: string;
  /** `queue`: the evaluation queue; `runQueue`: the run queue; `generationQueue`: the generation queue; `webhookQueue`: webhook deliveries. */
  trigger: 'schedule' | 'queue' | 'runQueue' | 'generationQueue' | 'webhookQueue';
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
];

export function routeOf(handler: string): Route {
  const route = routes.find((x) => x.handler === handler);
  if (!route) throw new Error(`no route in the route table for handler ${handler}`);
  return route;
}

/** A stable construct id for a route, e.g. `GET /phoneConnections/{id}` → `GetPhoneConnectionsId`. */
export function routeId(route: Route): string {
  const words = [route.method.toLowerCase(), ...route.path.split(/[/{}-]+/).filter(Boolean)];
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}
