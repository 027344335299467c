import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { e2eApi, expectStatus } from '../support/typed-api.js';

const base = inject('serverUrl');
const committed = JSON.parse(readFileSync(resolve(import.meta.dirname, '..', '..', 'docs', 'openapi.json'), 'utf8'));

describe('the API reference on the local server', () => {
  it('serves the committed OpenAPI document without a key', async () => {
    const res = await fetch(`${base}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual(committed);
  });

  it('renders it at /docs with Swagger UI whose assets this server serves (no CDN)', async () => {
    const res = await fetch(`${base}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    const html = await res.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.sort()).toEqual(['docs/docs-init.js', 'docs/swagger-ui-bundle.js', 'docs/swagger-ui.css']);
    const types: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' };
    for (const ref of refs) {
      // relative to the page: /docs → /docs/<asset>
      const asset = await fetch(new URL(ref, `${base}/docs`));
      expect(asset.status, ref).toBe(200);
      expect(asset.headers.get('content-type'), ref).toBe(types[ref.split('.').pop()!]);
      const text = await asset.text();
      expect(text.length, ref).toBeGreaterThan(100);
      expect(text, ref).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs|fonts\.googleapis)/);
    }
    expect(await (await fetch(`${base}/docs/docs-init.js`)).text()).toMatch(/openapi\.json/);
    expect(await (await fetch(`${base}/docs/swagger-ui-bundle.js`)).text()).toMatch(/SwaggerUIBundle/);
  });

  it('sends /docs/ (with the slash) to the page, and serves a favicon', async () => {
    const res = await fetch(`${base}/docs/`, { redirect: 'manual' });
    expect(res.status).toBe(308);
    expect(new URL(res.headers.get('location')!, `${base}/docs/`).href).toBe(`${base}/docs`);
    const followed = await fetch(`${base}/docs/`);
    expect(followed.status).toBe(200);
    expect(followed.url).toBe(`${base}/docs`);
    expect(await followed.text()).toContain('swagger-ui');
    const icon = await fetch(`${base}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/x-icon');
    expect(Buffer.from(await icon.arrayBuffer()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
  });

  it('answers anything else under /docs, and other methods, with the API’s 404', async () => {
    for (const [method, path] of [
      ['GET', '/docs/index.html'],
      ['GET', '/docs/../package.json'],
      ['POST', '/openapi.json'],
      ['DELETE', '/docs'],
    ] as const) {
      const res = await fetch(`${base}${path}`, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.json()).toEqual({ error: 'Not Found', message: 'no such route' });
    }
  });

  it('the typed client generated from the document calls the API with the key, and reports errors typed', async () => {
    const api = e2eApi();
    const org = await expectStatus(api.GET('/organization'), 200);
    expect(org.plan).toMatch(/^(FREE|PRO|ENTERPRISE)$/);
    const product = await expectStatus(
      api.POST('/products', { body: { name: 'typed client bot', capabilities: ['answers'] } }),
      201,
    );
    const read = await expectStatus(api.GET('/products/{id}', { params: { path: { id: product.id } } }), 200);
    expect(read).toEqual(product);
    const page = await api.GET('/products', { params: { query: { ids: [product.id] } } });
    expect(page.data).toEqual([product]);
    expect(page.response.headers.get('x-total-count')).toBe('1');
    const invalid = await api.POST('/products', { body: { name: '' } });
    expect(invalid.response.status).toBe(400);
    expect(invalid.error).toEqual({ error: 'Bad Request', message: expect.stringContaining('name') });
    const wrongKey = await e2eApi('evk_wrong').GET('/organization');
    expect(wrongKey.response.status).toBe(401);
    expect(wrongKey.error).toEqual({ error: 'Unauthorized', message: 'missing or invalid API key' });
  });
});
