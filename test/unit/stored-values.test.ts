import { describe, expect, it } from 'vitest';
import {
  budgetPerItem,
  ITEM_BUDGET_BYTES,
  offloadKey,
  planOffload,
  sizeOf,
  supersededObjects,
  TRANSACTION_BUDGET_BYTES,
} from '../../shared/db/offload.js';
import { ProductCreate, ProductUpdate, VersionCreate, VersionUpdate } from '../../shared/schemas/products.js';
import { EndpointConnectionCreate, EndpointConnectionUpdate } from '../../shared/schemas/endpoint-connections.js';
import { PhoneConnectionCreate, PhoneConnectionUpdate } from '../../shared/schemas/phone-connections.js';
import { MetricCreate, MetricUpdate, SCORING_FIELDS } from '../../shared/schemas/metrics.js';
import { SpecificationCreate, SpecificationUpdate } from '../../shared/schemas/specifications.js';
import { MonitorCreate, MonitorUpdate } from '../../shared/schemas/monitors.js';
import { TestCreate, TestUpdate } from '../../shared/schemas/tests.js';
import { SessionCreate, SessionUpdate } from '../../shared/schemas/sessions.js';
import { ApiKeyCreate, OrganizationUpdate } from '../../shared/schemas/organization.js';
import { compile } from '../../shared/schemas/ajv.js';
import { mergedSchema, worstCaseBytes } from '../support/worst-case.js';

const KB = 1024;

describe('what to offload', () => {
  const item = (fields: Record<string, unknown>) => ({ pk: 'SESSION#s', sk: 'TURN#000001', id: 'inf_1', ...fields });

  it('moves nothing when the item fits', () => {
    expect(planOffload(item({ input: 'a'.repeat(1000), output: 'b' }), ['input', 'output'], ITEM_BUDGET_BYTES)).toEqual(
      [],
    );
  });

  it('moves the largest field first, and only as many as needed', () => {
    const fits = item({
      input: 'a'.repeat(200 * KB),
      output: 'b'.repeat(300 * KB),
      retrievalContext: ['c'.repeat(10 * KB)],
    });
    expect(planOffload(fits, ['input', 'output', 'retrievalContext'], ITEM_BUDGET_BYTES)).toEqual(['output']);
  });

  it('counts bytes, not characters: 250,000 emoji are 1 MB', () => {
    const emoji = '😀'.repeat(250_000);
    expect(sizeOf(emoji)).toBe(1_000_002);
    expect(
      planOffload(item({ input: emoji, output: '雨'.repeat(250_000) }), ['input', 'output'], ITEM_BUDGET_BYTES),
    ).toEqual(['input', 'output']);
  });

  it('never chooses a null or absent field, nor one outside the list', () => {
    const big = item({ output: null, metadata: { x: 'm'.repeat(400 * KB) }, input: 'i'.repeat(100 * KB) });
    expect(planOffload(big, ['input', 'output'], ITEM_BUDGET_BYTES)).toEqual(['input']);
  });

  it('gives each item of a request its share of the request budget', () => {
    expect(budgetPerItem(1)).toBe(ITEM_BUDGET_BYTES);
    expect(budgetPerItem(100)).toBe(Math.floor(TRANSACTION_BUDGET_BYTES / 100));
    expect(budgetPerItem(100) * 100).toBeLessThanOrEqual(4 * KB * KB);
    expect(budgetPerItem(3, 64 * KB)).toBe(64 * KB);
  });

  it('names objects by organization, kind, id and field; a rewrite gets its own name', () => {
    expect(offloadKey('org_1', 'inferenceResults', 'inf_1', 'output')).toBe(
      'orgs/org_1/inferenceResults/inf_1/output.json',
    );
    expect(offloadKey('org_1', 'spans', 'trace_a', 'description', 'r1')).toBe(
      'orgs/org_1/spans/trace_a/description.r1.json',
    );
  });

  it('finds the objects an update no longer points at', () => {
    const before = { _offloaded: { input: 'k/input.json', output: 'k/output.json' } };
    expect(supersededObjects(before, { _offloaded: { input: 'k/input.json' } })).toEqual(['k/output.json']);
    expect(supersededObjects(before, {})).toEqual(['k/input.json', 'k/output.json']);
    expect(supersededObjects(undefined, {})).toEqual([]);
  });
});

describe('every stored record fits an item at its schema maxima', () => {
  // Ids, dates, keys and fields the service derives: generously more than any record adds.
  const OVERHEAD = 16 * KB;
  const records: [string, Record<string, unknown>, Record<string, unknown>, string[]][] = [
    ['product', ProductCreate, ProductUpdate, []],
    ['version', VersionCreate, VersionUpdate, ['productId']],
    ['endpoint connection', EndpointConnectionCreate, EndpointConnectionUpdate, ['productId']],
    ['phone connection', PhoneConnectionCreate, PhoneConnectionUpdate, ['productId']],
    ['metric', MetricCreate, MetricUpdate, [...SCORING_FIELDS]],
    ['specification', SpecificationCreate, SpecificationUpdate, ['productId', 'metricIds']],
    ['monitor', MonitorCreate, MonitorUpdate, ['productId']],
    ['test', TestCreate, TestUpdate, []],
    ['session', SessionCreate, SessionUpdate, []],
    ['api key', ApiKeyCreate, OrganizationUpdate, []],
  ];
  // Strings bounded by their pattern alone (an E.164 number has at most 16 characters).
  const byPattern: Record<string, Record<string, unknown>> = {
    phoneNumber: { type: 'string', maxLength: 16, pattern: 'E.164' },
  };
  it.each(records)('%s', (_name, create, update, immutable) => {
    // Fields accepted by a PATCH schema only to be refused by the domain ("cannot be changed") are not stored.
    const merged = mergedSchema(create, update, immutable);
    const properties = merged.properties as Record<string, unknown>;
    for (const [field, bound] of Object.entries(byPattern)) if (properties[field]) properties[field] = bound;
    const worst = worstCaseBytes(merged);
    expect(worst).toBeLessThanOrEqual(ITEM_BUDGET_BYTES - OVERHEAD);
  });

  it('the calculator sees what a schema leaves unbounded', () => {
    expect(worstCaseBytes({ type: 'string' })).toBe(Infinity);
    expect(worstCaseBytes({ type: 'string', maxLength: 10 })).toBe(42);
    expect(worstCaseBytes({ type: 'string', maxLength: 10, maxBytes: 8 })).toBe(10);
    expect(worstCaseBytes({ type: 'object', additionalProperties: true, maxProperties: 3 })).toBe(Infinity);
  });
});

describe('maxBytes', () => {
  const check = compile(ProductCreate);
  it('counts UTF-8 bytes of a list as JSON and names the field', () => {
    const statement = '😀'.repeat(2000); // 2,000 characters: within maxLength, 8 KB each
    expect(() => check({ name: 'p', capabilities: Array.from({ length: 7 }, () => statement) })).not.toThrow();
    expect(() => check({ name: 'p', capabilities: Array.from({ length: 9 }, () => statement) })).toThrow(
      'capabilities must be at most 65536 bytes as JSON',
    );
  });

  it('counts UTF-8 bytes of a string', () => {
    const checkVersion = compile(VersionCreate);
    const base = { productId: 'prd_1', name: 'v' };
    expect(() => checkVersion({ ...base, systemPrompt: 'a'.repeat(100_000) })).not.toThrow();
    expect(() => checkVersion({ ...base, systemPrompt: '😀'.repeat(65_537) })).toThrow(
      'systemPrompt must be at most 262144 bytes of UTF-8',
    );
  });

  it('names the key of an object whose keys are too long', () => {
    const checkConnection = compile(EndpointConnectionCreate);
    const base = {
      productId: 'prd_1',
      name: 'c',
      url: 'https://a.example',
      inputTemplate: '{}',
      type: 'CONVERSATION',
      outputMapping: { output: '$.x' },
    };
    expect(() => checkConnection({ ...base, headers: { ['X'.repeat(257)]: 'v' } })).toThrow(
      /^headers key 'X{40}…' must have at most 256 characters$/,
    );
  });
});
