import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptions, PROJECT_ROOT } from '../../infra/constructs/app-function.js';
import { OTLP_MESSAGES_PATH, writeOtlpCode } from '../../infra/otlp-code.js';
import * as otlp from '../../shared/domain/telemetry/otlp.js';
import { type OtlpMessages, type OtlpMessageType, otlpMessages } from '../../shared/domain/telemetry/otlp-messages.js';

/**
 * A function bundle decodes OTLP with the protobufjs static code infra/otlp-code.ts writes; the
 * local server and the other tests with protobufjs reflection over the same definitions. Both must
 * answer every body alike: the same objects, the same errors, the same bytes.
 */
let generated: OtlpMessages;
/** shared/domain/telemetry/otlp.ts bundled as a function is: `#otlp-messages` is the static code. */
let bundled: typeof otlp;
let dir: string;
beforeAll(async () => {
  await writeOtlpCode();
  ({ otlpMessages: generated } = (await import(pathToFileURL(OTLP_MESSAGES_PATH).href)) as {
    otlpMessages: OtlpMessages;
  });
  dir = mkdtempSync(join(tmpdir(), 'otlp-code-'));
  writeFileSync(
    join(dir, 'entry.ts'),
    `export * from ${JSON.stringify(resolve(PROJECT_ROOT, 'shared/domain/telemetry/otlp.ts'))};`,
  );
  const out = await build({
    ...esbuildOptions(join(dir, 'out')),
    entryPoints: [{ in: join(dir, 'entry.ts'), out: 'entry' }],
    metafile: true,
  });
  expect(Object.keys(out.metafile.inputs)).toContain('.build/otlp/otlp-static.js');
  bundled = (await import(pathToFileURL(join(dir, 'out', 'entry.mjs')).href)) as typeof otlp;
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** How the trace route reads a request (shared/domain/telemetry/otlp.ts) and how the tests read answers. */
const READINGS = [
  { longs: String, enums: Number, bytes: String, arrays: true, defaults: false },
  { longs: Number, defaults: false },
  { defaults: true },
];

/** What one implementation answers: the message read every way above, or the error it throws. */
function outcome(run: () => object, type: OtlpMessageType): unknown {
  try {
    const message = run();
    return READINGS.map((options) => type.toObject(message, options));
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const bytes = (min: number, max: number) =>
  fc.uint8Array({ minLength: min, maxLength: max }).map((b) => Buffer.from(b).toString('base64'));
const uint64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String);
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String);
const text = fc.string({ maxLength: 12, unit: 'binary' });

const { anyValue } = fc.letrec<{ anyValue: Record<string, unknown>; keyValue: Record<string, unknown> }>((tie) => ({
  anyValue: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ stringValue: text }),
    fc.record({ boolValue: fc.boolean() }),
    fc.record({ intValue: fc.oneof(int64, fc.integer()) }),
    fc.record({ doubleValue: fc.double() }),
    fc.record({ bytesValue: bytes(0, 8) }),
    fc.record({ arrayValue: fc.record({ values: fc.array(tie('anyValue'), { maxLength: 3 }) }) }),
    fc.record({ kvlistValue: fc.record({ values: fc.array(tie('keyValue'), { maxLength: 3 }) }) }),
  ),
  keyValue: fc.record({ key: text, value: tie('anyValue') }, { requiredKeys: ['key'] }),
}));
const attributes = fc.array(fc.record({ key: text, value: anyValue }), { maxLength: 3 });

const span = fc.record(
  {
    traceId: bytes(0, 16),
    spanId: bytes(0, 8),
    traceState: text,
    parentSpanId: bytes(0, 8),
    flags: fc.nat({ max: 2 ** 32 - 1 }),
    name: text,
    kind: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom('SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT')),
    startTimeUnixNano: uint64,
    endTimeUnixNano: fc.oneof(uint64, fc.nat()),
    attributes,
    droppedAttributesCount: fc.nat({ max: 2 ** 32 - 1 }),
    events: fc.array(fc.record({ timeUnixNano: uint64, name: text, attributes }), { maxLength: 2 }),
    links: fc.array(fc.record({ traceId: bytes(16, 16), spanId: bytes(8, 8), traceState: text, attributes }), {
      maxLength: 2,
    }),
    status: fc.record({
      message: text,
      code: fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constant('STATUS_CODE_ERROR')),
    }),
  },
  { requiredKeys: [] },
);

const exportRequest = fc.record({
  resourceSpans: fc.array(
    fc.record(
      {
        resource: fc.record({ attributes, droppedAttributesCount: fc.nat() }, { requiredKeys: [] }),
        scopeSpans: fc.array(
          fc.record(
            {
              scope: fc.record({ name: text, version: text, attributes }, { requiredKeys: [] }),
              spans: fc.array(span, { maxLength: 3 }),
              schemaUrl: text,
            },
            { requiredKeys: [] },
          ),
          { maxLength: 2 },
        ),
        schemaUrl: text,
      },
      { requiredKeys: [] },
    ),
    { maxLength: 2 },
  ),
});

/** A request with one value swapped for anything: what a client's broken JSON body gives fromObject. */
const brokenRequest = fc
  .tuple(exportRequest, fc.anything({ maxDepth: 2 }), fc.nat(), fc.nat())
  .map(([request, junk, at, key]) => {
    const paths: [Record<string, unknown>, string][] = [];
    const walk = (value: unknown) => {
      if (typeof value !== 'object' || value === null) return;
      for (const [k, v] of Object.entries(value)) {
        paths.push([value as Record<string, unknown>, k]);
        walk(v);
      }
    };
    walk(request);
    if (paths.length === 0) return { resourceSpans: junk } as Record<string, unknown>;
    const [holder, name] = paths[at % paths.length]!;
    holder[key % 2 === 0 ? name : `${name}Extra`] = junk;
    return request as Record<string, unknown>;
  });

const NAMES = Object.keys(otlpMessages) as (keyof OtlpMessages)[];

describe('OTLP static code (infra/otlp-code.ts) and reflection', () => {
  it('read every protobuf request alike', () => {
    const request = otlpMessages.ExportTraceServiceRequest;
    fc.assert(
      fc.property(exportRequest, (value) => {
        const body = request.encode(request.fromObject(value)).finish();
        expect(outcome(() => generated.ExportTraceServiceRequest.decode(body), request)).toEqual(
          outcome(() => request.decode(body), request),
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('read every JSON request alike, and refuse a broken one with the same error', () => {
    const request = otlpMessages.ExportTraceServiceRequest;
    fc.assert(
      fc.property(fc.oneof(exportRequest, brokenRequest), (value) => {
        expect(outcome(() => generated.ExportTraceServiceRequest.fromObject(structuredClone(value)), request)).toEqual(
          outcome(() => request.fromObject(structuredClone(value)), request),
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('read any bytes alike: the same message or the same error, for every message', () => {
    fc.assert(
      fc.property(fc.constantFrom(...NAMES), fc.uint8Array({ maxLength: 64 }), (name, body) => {
        expect(outcome(() => generated[name].decode(body), otlpMessages[name])).toEqual(
          outcome(() => otlpMessages[name].decode(body), otlpMessages[name]),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('write the answers byte for byte alike', () => {
    const answers = fc.oneof(
      fc.record({
        name: fc.constant('ExportTraceServiceResponse' as const),
        value: fc.record(
          { partialSuccess: fc.record({ rejectedSpans: fc.oneof(int64, fc.nat()), errorMessage: text }) },
          { requiredKeys: [] },
        ),
      }),
      fc.record({
        name: fc.constant('Status' as const),
        value: fc.record({ code: fc.integer({ min: -1, max: 20 }), message: text }, { requiredKeys: [] }),
      }),
    );
    fc.assert(
      fc.property(answers, ({ name, value }) => {
        const reflected = otlpMessages[name].encode(otlpMessages[name].fromObject(value)).finish();
        expect(Buffer.from(generated[name].encode(generated[name].fromObject(value)).finish())).toEqual(
          Buffer.from(reflected),
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('decode requests in a function bundle as the trace route does unbundled: spans, errors and answers', () => {
    const request = otlpMessages.ExportTraceServiceRequest;
    const spansOrError = (call: () => unknown) => {
      try {
        return { spans: call() };
      } catch (error) {
        return { error: (error as Error).name, message: (error as Error).message };
      }
    };
    fc.assert(
      fc.property(fc.oneof(exportRequest, brokenRequest), fc.boolean(), (value, asJson) => {
        let body: Buffer;
        if (asJson) body = Buffer.from(JSON.stringify(value));
        else {
          const encoded = spansOrError(() => request.encode(request.fromObject(structuredClone(value))).finish());
          if (!('spans' in encoded)) return;
          body = Buffer.from(encoded.spans as Uint8Array);
        }
        const format = asJson ? 'json' : 'protobuf';
        expect(spansOrError(() => bundled.decodeExportRequest(body, format))).toEqual(
          spansOrError(() => otlp.decodeExportRequest(body, format)),
        );
      }),
      { numRuns: 1000 },
    );
    // A well-formed request in both encodings: its spans, with the attributes of every kind.
    const wellFormed = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'agent' } }] },
          scopeSpans: [
            {
              scope: { name: 'sdk', version: '1' },
              spans: [
                {
                  traceId: '5b8efff798038103d269b633813fc60c',
                  spanId: 'eee19b7ec3c1b174',
                  name: 'llm',
                  kind: 3,
                  startTimeUnixNano: '1700000000000000000',
                  endTimeUnixNano: '1700000000500000000',
                  attributes: [
                    { key: 'n', value: { intValue: '9007199254740993' } },
                    { key: 'd', value: { doubleValue: 0.5 } },
                    { key: 'l', value: { arrayValue: { values: [{ boolValue: true }] } } },
                  ],
                  status: { code: 2, message: 'failed' },
                },
              ],
            },
          ],
        },
      ],
    };
    const json = Buffer.from(JSON.stringify(wellFormed));
    const spans = otlp.decodeExportRequest(json, 'json');
    expect(spans).toHaveLength(1);
    expect(bundled.decodeExportRequest(json, 'json')).toEqual(spans);
    const protobuf = Buffer.from(
      request
        .encode(
          request.fromObject(
            JSON.parse(JSON.stringify(wellFormed), (k, v) =>
              ['traceId', 'spanId'].includes(k) ? Buffer.from(v, 'hex').toString('base64') : v,
            ),
          ),
        )
        .finish(),
    );
    expect(bundled.decodeExportRequest(protobuf, 'protobuf')).toEqual(spans);
    expect(bundled.encodeExportResponse('protobuf', { rejectedSpans: 2, errorMessage: 'x' })).toEqual(
      otlp.encodeExportResponse('protobuf', { rejectedSpans: 2, errorMessage: 'x' }),
    );
    expect(bundled.encodeStatus(413, 'too large')).toEqual(otlp.encodeStatus(413, 'too large'));
  });
});
