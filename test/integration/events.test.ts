import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes, jobs } from '../../shared/routes.js';
import { EVENTS_DIR, eventFileName } from '../../infra/local/make-events.js';
import { lambdaContext, loadHandler } from '../../infra/local/gateway.js';
import { seedDemoOrganization } from '../../infra/local/bootstrap.js';

const read = (file: string) => JSON.parse(readFileSync(join(EVENTS_DIR, file), 'utf8')) as Record<string, unknown>;

describe('sample events', () => {
  beforeAll(async () => {
    await seedDemoOrganization({});
  });

  it('exist for every route and job, and nothing else', () => {
    const expected = new Set([
      ...routes.map(eventFileName),
      'authorizer.json',
      ...jobs.map((j) => `jobs-${j.name}.json`),
      'jobs-probe.json',
      // The call-control function of voice runs (in the Voice nested stack, not the job table).
      'jobs-call-control.json',
    ]);
    expect(new Set(readdirSync(EVENTS_DIR))).toEqual(expected);
  });

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: its event runs through the function',
    async (_name, route) => {
      const file = eventFileName(route);
      expect(existsSync(join(EVENTS_DIR, file))).toBe(true);
      const handler = await loadHandler(route.handler);
      const res = (await handler(read(file), lambdaContext(route.handler))) as { statusCode: number; body: string };
      expect(res.statusCode).toBeLessThan(500);
      const body = JSON.parse(res.body);
      if (res.statusCode >= 400) expect(Object.keys(body).sort()).toEqual(['error', 'message']);
    },
  );

  it('the authorizer event is refused for its placeholder key, with Unauthorized', async () => {
    const authorizer = await loadHandler('authorizer');
    await expect(authorizer(read('authorizer.json'), lambdaContext('authorizer'))).rejects.toThrow('Unauthorized');
  });

  it.each(jobs.map((j) => [j.name, j] as const))(
    'job %s runs on its event and answers the build-info probe',
    async (_name, job) => {
      const handler = await loadHandler(job.handler);
      await expect(handler(read(`jobs-${job.name}.json`), lambdaContext(job.name))).resolves.toBeDefined();
      const stamp = await handler(read('jobs-probe.json'), lambdaContext(job.name));
      expect(stamp).toEqual({ version: expect.any(String), commit: expect.any(String), buildDate: expect.any(String) });
    },
  );
});
