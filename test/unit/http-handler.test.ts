import { describe, expect, it } from 'vitest';
import * as Type from '@sinclair/typebox';
import { created, httpHandler, ok, page } from '../../shared/http/handler.js';
import { ConflictError } from '../../shared/errors.js';
import { proxyEvent, context } from '../support/events.js';

const Body = Type.Object({ name: Type.String({ minLength: 1 }) }, { additionalProperties: false });
const Query = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1 })) }, { additionalProperties: false });

const echo = httpHandler({ handler: 'api-keys/create', body: Body }, async ({ body, auth }) =>
  created({ name: body.name, org: auth.organizationId }),
);
const failing = httpHandler({ handler: 'api-keys/create', body: Body }, async () => {
  throw new Error('DynamoDB said: table arn:aws:dynamodb:secret');
});
const conflicting = httpHandler({ handler: 'api-keys/create', body: Body }, async () => {
  throw new ConflictError('name taken');
});
const listing = httpHandler({ handler: 'api-keys/list', query: Query }, async ({ query }) =>
  page({ items: [query.limit ?? 0], total: 7 }),
);
const adminOnly = httpHandler({ handler: 'organization/update' }, async () => ok({ done: true }));

const post = (body: string | null, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
  proxyEvent({ httpMethod: 'POST', body, headers });

async function run(fn: typeof echo, event = post('{"name":"x"}')) {
  const res = await fn(event, context());
  return { status: res.statusCode, body: JSON.parse(res.body), headers: res.headers ?? {} };
}

describe('the Middy stack', () => {
  it('parses, validates and answers JSON with the status of the reply helper', async () => {
    const res = await run(echo);
    expect(res).toMatchObject({ status: 201, body: { name: 'x', org: 'org_test' } });
    expect(res.headers['Content-Type']).toBe('application/json');
  });

  it('normalises header names (content-type in any case)', async () => {
    expect((await run(echo, post('{"name":"x"}', { 'CONTENT-TYPE': 'application/json; charset=utf-8' }))).status).toBe(
      201,
    );
  });

  it('answers 400 for malformed JSON, saying what and where', async () => {
    expect(await run(echo, post('{"name":'))).toMatchObject({
      status: 400,
      body: {
        error: 'Bad Request',
        message: 'the request body is not valid JSON: it ends before its JSON value does (at line 1, column 9)',
      },
    });
    expect((await run(echo, post('{"name": "x",\n  "id" 2}'))).body.message).toBe(
      "the request body is not valid JSON: Expected ':' after property name at line 2, column 8",
    );
    expect((await run(echo, post('{"name": [1,]}'))).body.message).toBe(
      "the request body is not valid JSON: unexpected token ']'",
    );
  });

  it('answers 415 for a non-JSON content type and a missing one', async () => {
    expect((await run(echo, post('{"name":"x"}', { 'content-type': 'text/plain' }))).status).toBe(415);
    expect((await run(echo, post('{"name":"x"}', {}))).body.error).toBe('Unsupported Media Type');
  });

  it('answers 400 naming an unknown field and a missing body', async () => {
    expect((await run(echo, post('{"name":"x","id":"mine"}'))).body.message).toBe("unknown field 'id'");
    // A near miss names the field the route takes.
    expect((await run(echo, post('{"name":"x","nmae":"y"}'))).body.message).toBe(
      "unknown field 'nmae'; did you mean 'name'?",
    );
    expect((await run(echo, post('{"nmae":"x"}'))).body.message).toBe(
      "name is required; the body has 'nmae': did you mean 'name'?",
    );
    expect((await run(echo, post('{"Name":"x"}'))).body.message).toBe(
      "name is required; the body has 'Name': did you mean 'name'?",
    );
    // Nothing near: the plain message.
    expect((await run(echo, post('{"name":"x","zzzzzz":1}'))).body.message).toBe("unknown field 'zzzzzz'");
    expect((await run(echo, post(null))).body.message).toBe('a JSON request body is required');
  });

  it('takes an empty body or {} on a route without a body, and refuses anything else with 400', async () => {
    const cancel = httpHandler({ handler: 'runs/cancel' }, async () => ok({ cancelled: true }));
    for (const body of [null, '', '  ', '{}', ' { } ', '{}\n']) {
      expect(await run(cancel as typeof echo, post(body)), JSON.stringify(body)).toMatchObject({
        status: 200,
        body: { cancelled: true },
      });
    }
    // Clients that always send JSON may send {} without a Content-Type too.
    expect((await run(cancel as typeof echo, post('{}', {}))).status).toBe(200);
    for (const body of ['{"a":1}', '[]', 'null', 'x', '{}{}']) {
      const res = await run(cancel as typeof echo, post(body));
      expect(res, body).toMatchObject({
        status: 400,
        body: { error: 'Bad Request', message: 'this route takes no request body (an empty body or {} only)' },
      });
    }
  });

  it('hides internals of unexpected failures behind a 500', async () => {
    const res = await run(failing);
    expect(res.status).toBe(500);
    expect(res.body.error).toBe('Internal Server Error');
    expect(JSON.stringify(res.body)).not.toContain('secret');
  });

  it('maps typed errors once', async () => {
    expect(await run(conflicting)).toMatchObject({ status: 409, body: { error: 'Conflict', message: 'name taken' } });
  });

  it('lists with X-Total-Count and coerced query values', async () => {
    const res = await run(
      listing as typeof echo,
      proxyEvent({ queryStringParameters: { limit: '3' }, multiValueQueryStringParameters: { limit: ['3'] } }),
    );
    expect(res).toMatchObject({ status: 200, body: [3] });
    expect(res.headers['X-Total-Count']).toBe('7');
    const bad = await run(listing as typeof echo, proxyEvent({ queryStringParameters: { other: '1' } }));
    expect(bad).toMatchObject({ status: 400, body: { message: "unknown query parameter 'other'" } });
  });

  it('enforces the route access level from the route table', async () => {
    const res = await run(adminOnly as typeof echo, proxyEvent({ httpMethod: 'PATCH' }));
    expect(res).toMatchObject({ status: 403, body: { error: 'Forbidden' } });
    const admin = await run(
      adminOnly as typeof echo,
      proxyEvent({ httpMethod: 'PATCH', auth: { organizationId: 'o', userId: 'u', role: 'ADMIN', plan: 'FREE' } }),
    );
    expect(admin.status).toBe(200);
  });

  it('answers 401 when invoked without an authorizer context', async () => {
    expect(
      (await run(echo, { ...post('{"name":"x"}'), requestContext: { ...post(null).requestContext, authorizer: null } }))
        .status,
    ).toBe(401);
  });
});
