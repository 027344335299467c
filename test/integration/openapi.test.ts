import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../infra/openapi.js';
import { routes } from '../../infra/routes.js';

describe('OpenAPI document', () => {
  it('describes every route with the schemas the handlers validate with, and the committed copy is current', async () => {
    const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    const doc = (await buildOpenApi(pkg.version)) as { paths: Record<string, Record<string, { requestBody?: unknown; parameters: { name: string }[] }>> };
    for (const r of routes) expect(doc.paths[r.path]?.[r.method.toLowerCase()], `${r.method} ${r.path}`).toBeDefined();
    expect(doc.paths['/monitors/{id}/results']!.get!.parameters.map((p) => p.name)).toEqual(['id', 'days']);
    expect(doc.paths['/metrics']!.post!.requestBody).toBeDefined();
    const committed = JSON.parse(readFileSync(resolve(import.meta.dirname, '..', '..', 'docs', 'openapi.json'), 'utf8'));
    expect(committed, 'run `npm run openapi` after changing a route or a schema').toEqual(JSON.parse(JSON.stringify(doc)));
  });
});
