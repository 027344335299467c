import { describe, expect, it } from 'vitest';
import {
  buildRequest,
  RequestBuildError,
  renderTemplate,
  TemplateRenderError,
  USER_AGENT,
} from '../../shared/domain/runs/caller/index.js';
import type { AgentConnection } from '../../shared/domain/runs/caller/index.js';
import { checkInputTemplate } from '../../shared/domain/catalog/endpoint-connection-rules.js';

const body = '{"message": "{{ input.user_message }}"}';
const parse = (template: string, variables: Record<string, unknown>) => JSON.parse(renderTemplate(template, variables));

describe('renderTemplate: printed strings are JSON-string-escaped', () => {
  it.each([
    ['quotes', 'he said "hi"'],
    ['backslashes', 'C:\\temp\\new \\"x\\"'],
    ['newlines and tabs', 'line 1\nline 2\r\n\tend'],
    ['control characters', 'bell\u0007 nul\u0000 esc\u001b'],
    ['unicode', 'café 日本語 emoji 🎉 rtl \u202e sep \u2028\u2029'],
    ['template-looking text', '{{ input.user_message }} {% raw %}'],
  ])('keeps %s intact inside a JSON string', (_name, message) => {
    expect(parse(body, { input: { user_message: message } })).toEqual({ message });
  });

  it('escapes strings that filters return', () => {
    expect(
      parse('{"m": "{{ input.user_message | upper }}", "t": "{{ input.user_message | trim }}"}', {
        input: { user_message: ' a"b ' },
      }),
    ).toEqual({ m: ' A"B ', t: 'a"b' });
  });

  it('prints numbers and booleans as they are, objects and arrays as JSON', () => {
    expect(
      parse('{"n": {{ n }}, "b": {{ b }}, "o": {{ o }}, "a": {{ a }}}', {
        n: 2.5,
        b: true,
        o: { k: 'v"' },
        a: [1, 'x'],
      }),
    ).toEqual({ n: 2.5, b: true, o: { k: 'v"' }, a: [1, 'x'] });
  });

  it('`dump` prints any value as JSON, without escaping it twice', () => {
    const input = { user_message: 'q "1"\n', extra: [1, { a: null }] };
    const out = parse(
      '{"input": {{ input | dump }}, "msg": {{ input.user_message | dump }}, "turns": {{ past_turns | dump }}}',
      {
        input,
        past_turns: [{ input: 'hi', output: 'hello "you"' }],
      },
    );
    expect(out).toEqual({ input, msg: 'q "1"\n', turns: [{ input: 'hi', output: 'hello "you"' }] });
  });

  it('an undefined variable prints nothing', () => {
    expect(
      renderTemplate('{"a": "{{ missing }}", "b": "{{ input.nope.deeper }}", "c": "{{ nothing | dump }}"}', {
        input: {},
      }),
    ).toBe('{"a": "", "b": "", "c": ""}');
  });

  it('loops over past turns, and macro output is not escaped twice', () => {
    const template =
      '{% macro turn(t) %}{"role": "user", "content": "{{ t.input }}"}, {"role": "assistant", "content": "{{ t.output }}"}{% endmacro %}' +
      '{"messages": [{% for t in past_turns %}{{ turn(t) }}, {% endfor %}{"role": "user", "content": "{{ input.user_message }}"}]}';
    const out = parse(template, { past_turns: [{ input: 'a "1"', output: 'b\\2' }], input: { user_message: 'c\n3' } });
    expect(out.messages).toEqual([
      { role: 'user', content: 'a "1"' },
      { role: 'assistant', content: 'b\\2' },
      { role: 'user', content: 'c\n3' },
    ]);
  });

  it('comparisons see the raw values', () => {
    expect(
      renderTemplate("{% if input.user_message == 'a\"b' %}yes{% endif %}", { input: { user_message: 'a"b' } }),
    ).toBe('yes');
  });

  it('`safe` prints raw text on purpose', () => {
    expect(renderTemplate('{{ raw | safe }}', { raw: '"x"' })).toBe('"x"');
  });

  it('a template that does not compile is a TemplateRenderError', () => {
    expect(() => renderTemplate('{{ input.user_message ', {})).toThrow(TemplateRenderError);
  });

  it("a compile error names its line and column, and the connection's check reports the same", () => {
    const template = '{"a": "{{ input.user_message }}",\n "b": "{% if %}"}';
    expect(() => renderTemplate(template, {})).toThrow('[Line 2, Column 14] unexpected token: %}');
    expect(() => checkInputTemplate(template)).toThrow(
      'inputTemplate is not a valid Nunjucks template: [Line 2, Column 14] unexpected token: %}',
    );
  });

  it('includes no file: a template has no loader to read one with', () => {
    expect(() => renderTemplate('{% include "package.json" %}', {})).toThrow(/template not found: package\.json/);
  });

  it('url context percent-encodes printed strings; raw context prints them as they are', () => {
    expect(
      renderTemplate('https://agent.test/s/{{ session_id }}?q={{ q }}', { session_id: 'a/b c', q: 'x&y=z#' }, 'url'),
    ).toBe('https://agent.test/s/a%2Fb%20c?q=x%26y%3Dz%23');
    expect(renderTemplate('Session {{ session_id }}', { session_id: 'a "b"' }, 'raw')).toBe('Session a "b"');
  });
});

const connection = (overrides: Partial<AgentConnection> = {}): AgentConnection => ({
  id: 'econ_1',
  url: 'https://agent.test/chat',
  httpMethod: 'POST',
  authType: 'NONE',
  inputTemplate: body,
  outputMapping: { output: '$.reply' },
  ...overrides,
});

describe('buildRequest', () => {
  it('renders the body and adds the standard headers', () => {
    const req = buildRequest(connection(), { input: { user_message: 'hi "there"' }, inference_result_id: 'inf_1' });
    expect(req.method).toBe('POST');
    expect(JSON.parse(req.body!)).toEqual({ message: 'hi "there"' });
    expect(req.headers).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      'X-Inference-Result-Id': 'inf_1',
    });
    expect(USER_AGENT).toMatch(/^eval-platform-api\//);
  });

  it('fails before any call when the rendered body is not JSON', () => {
    // A number printed where the template expects nothing breaks the document.
    expect(() =>
      buildRequest(connection({ inputTemplate: '{"m": "{{ input.user_message }}", "n": {{ count }}}' }), {
        input: { user_message: 'x' },
      }),
    ).toThrow(/^the rendered inputTemplate is not valid JSON: /);
    expect(() =>
      buildRequest(connection({ inputTemplate: '{"m": {{ input.user_message }}}' }), { input: { user_message: 'x' } }),
    ).toThrow(RequestBuildError);
  });

  it('renders URL and header templates', () => {
    const req = buildRequest(
      connection({
        url: 'https://agent.test/sessions/{{ session_id }}/turns',
        headers: { 'X-Session': '{{ session_id }}', 'X-Lang': '{{ language_code }}' },
      }),
      { input: { user_message: 'x' }, session_id: 's 1/2', language_code: 'fr' },
    );
    expect(req.url.toString()).toBe('https://agent.test/sessions/s%201%2F2/turns');
    expect(req.headers['X-Session']).toBe('s 1/2');
    expect(req.headers['X-Lang']).toBe('fr');
  });

  it('refuses a header value that gains a line break', () => {
    expect(() =>
      buildRequest(connection({ headers: { 'X-S': '{{ s }}' } }), { input: { user_message: 'x' }, s: 'a\r\nEvil: 1' }),
    ).toThrow(/header X-S contains a line break/);
  });

  it('GET and DELETE send the rendered object as query parameters and no body', () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const req = buildRequest(
        connection({
          httpMethod: method,
          inputTemplate: '{"q": "{{ input.user_message }}", "n": 2, "tags": ["a", "b"], "o": {"k": 1}}',
        }),
        {
          input: { user_message: 'a&b' },
        },
      );
      expect(req.body).toBeNull();
      expect(req.headers['Content-Type']).toBeUndefined();
      expect(req.url.searchParams.get('q')).toBe('a&b');
      expect(req.url.searchParams.get('n')).toBe('2');
      expect(req.url.searchParams.getAll('tags')).toEqual(['a', 'b']);
      expect(req.url.searchParams.get('o')).toBe('{"k":1}');
    }
  });

  it.each([
    ['BEARER', { authToken: 't0k3n' }, 'Authorization', 'Bearer t0k3n'],
    ['API_KEY', { authToken: 't0k3n' }, 'X-API-Key', 't0k3n'],
    [
      'BASIC',
      { username: 'ann', password: 'pw:1' },
      'Authorization',
      `Basic ${Buffer.from('ann:pw:1').toString('base64')}`,
    ],
  ] as const)('adds the %s auth header', (authType, creds, name, value) => {
    const req = buildRequest(connection({ authType, ...creds }), { input: { user_message: 'x' } });
    expect(req.headers[name]).toBe(value);
    expect(req.authHeader).toBe(name);
  });

  it('a custom header that sets the auth header wins, and Content-Type is kept when set', () => {
    const req = buildRequest(
      connection({
        authType: 'BEARER',
        authToken: 't',
        headers: { authorization: 'Token custom', 'content-type': 'application/vnd.x+json' },
      }),
      {
        input: { user_message: 'x' },
      },
    );
    expect(req.headers.authorization).toBe('Token custom');
    expect(req.headers.Authorization).toBeUndefined();
    expect(req.headers['Content-Type']).toBeUndefined();
    expect(req.authHeader).toBeUndefined();
  });
});
