import { describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';

describe('build info', () => {
  it('is served to ENTERPRISE organizations and ADMIN keys only', async () => {
    const pro = await newTenant({ plan: 'PRO' });
    const enterprise = await newTenant({ plan: 'ENTERPRISE' });
    const admin = await newTenant({ plan: 'FREE', admin: true });
    expect((await pro.api.get('/build-info')).status).toBe(403);
    expect((await pro.api.get('/build-info/services')).body.error).toBe('Forbidden');
    const info = await enterprise.api.get('/build-info');
    expect(info.status).toBe(200);
    expect(info.body.api).toEqual({
      version: expect.any(String),
      commit: expect.any(String),
      buildDate: expect.any(String),
    });
    expect((await admin.api.get('/build-info')).status).toBe(200);
  });

  it('reports a downstream service that does not answer as unreachable, and still answers 200', async () => {
    // The integration environment points LAMBDA_ENDPOINT at a port nobody listens on.
    const t = await newTenant({ plan: 'ENTERPRISE' });
    const res = await t.api.get('/build-info/services');
    expect(res.status).toBe(200);
    expect(res.body.services.map((s: { name: string }) => s.name)).toEqual([
      'evaluator',
      'scanner',
      'aggregator',
      'runner',
      'generator',
    ]);
    for (const s of res.body.services)
      expect(s).toEqual({
        name: s.name,
        status: 'unreachable',
        version: 'unknown',
        commit: 'unknown',
        buildDate: 'unknown',
      });
  });
});
