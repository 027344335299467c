/**
 * Builds the OpenAPI 3.1 document from the route table and the schemas each handler declares
 * (the same objects ajv validates with). `npm run openapi` writes docs/openapi.json.
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import type { TObject, TSchema } from '@sinclair/typebox';
import { routes } from './routes.js';
import type { Contract } from '../shared/http/handler.js';
import { withStorageBounds } from '../shared/schemas/ajv.js';

const ROOT = resolve(import.meta.dirname, '..');

/** The plain JSON Schema ajv validates with: TypeBox's symbol keys dropped, number bounds added. */
const plain = (schema: TSchema): Record<string, unknown> => withStorageBounds(schema) as unknown as Record<string, unknown>;

function parameters(schema: TObject | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: plain(s as TSchema),
    ...(where === 'query' && (s as { type?: string }).type === 'array' ? { style: 'form', explode: true } : {}),
  }));
}

const errorBody = {
  type: 'object',
  required: ['error', 'message'],
  properties: { error: { type: 'string', description: 'the HTTP reason phrase' }, message: { type: 'string', description: 'names the field and the rule' } },
};

/** The content map of a body or answer: JSON, or each media type the route declares (the schema is the JSON form). */
function mediaContent(contract: Contract, schema: TSchema): Record<string, { schema: unknown }> {
  return Object.fromEntries((contract.mediaTypes ?? ['application/json']).map((m) => [m, { schema: plain(schema) }]));
}

export async function buildOpenApi(version: string): Promise<Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const mod = (await import(pathToFileURL(resolve(ROOT, 'functions', `${route.handler}.ts`)).href)) as { handler: { contract?: Contract } };
    const contract = mod.handler.contract;
    if (!contract) throw new Error(`functions/${route.handler}.ts does not use httpHandler`);
    const success = route.method === 'POST' && /\/(create|batch)$/.test(route.handler) ? '201' : '200';
    (paths[route.path] ??= {})[route.method.toLowerCase()] = {
      operationId: route.handler.replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase()),
      security: [{ apiKey: [] }],
      parameters: [...parameters(contract.params, 'path'), ...parameters(contract.query, 'query')],
      ...(contract.body ? { requestBody: { required: true, content: mediaContent(contract, contract.body) } } : {}),
      responses: {
        [success]: { description: 'success', ...(contract.response ? { content: mediaContent(contract, contract.response) } : {}) },
        default: { description: 'error', content: { 'application/json': { schema: errorBody } } },
      },
      ...(route.access !== 'member' ? { description: `access: ${route.access}` } : {}),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Evaluation platform API', version },
    components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'evk_<key> (or the legacy evk-<key>)' } } },
    paths,
  };
}

if (process.argv[1] && import.meta.filename === resolve(process.argv[1])) {
  // Handler modules read their configuration at load; placeholders are enough to read schemas.
  for (const name of ['TABLE_NAME', 'BUCKET_NAME', 'EVALUATOR_FUNCTION_NAME', 'SCANNER_FUNCTION_NAME', 'AGGREGATOR_FUNCTION_NAME', 'RUNNER_FUNCTION_NAME']) process.env[name] ??= 'openapi';
  const pkg = JSON.parse((await import('node:fs')).readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { version: string };
  const doc = await buildOpenApi(pkg.version);
  writeFileSync(resolve(ROOT, 'docs', 'openapi.json'), `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`wrote docs/openapi.json (${Object.keys(doc.paths as object).length} paths)`);
}
