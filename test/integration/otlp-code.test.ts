import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { OTLP_MESSAGES_PATH, writeOtlpCode } from '../../infra/otlp-code.js';
import { type OtlpMessages, type OtlpMessageType, otlpMessages } from '../../shared/domain/telemetry/otlp-messages.js';

/**
 * A function bundle decodes OTLP with the protobufjs static code infra/otlp-code.ts writes; the
 * local server and the other tests with protobufjs reflection over the same definitions. Both must
 * answer every body alike: the same objects, the same errors, the same bytes.
 */
let generated: OtlpMessages;
beforeAll(async () => {
  await writeOtlpCode();
  ({ otlpMessages: generated } = (await import(pathToFileURL(OTLP_MESSAGES_PATH).href)) as {
    otlpMessages: OtlpMessages;
  });
}, 60_000);

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
});
