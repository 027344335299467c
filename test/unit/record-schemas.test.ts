import type { Static } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type * as R from '../../shared/schemas/records.js';
import type { EndpointConnection } from '../../shared/schemas/endpoint-connections.js';
import type { EvaluatorModel, Metric } from '../../shared/schemas/metrics.js';
import type { Monitor } from '../../shared/schemas/monitors.js';
import type { Product, Version } from '../../shared/schemas/products.js';
import type { Session, Span, Turn } from '../../shared/schemas/sessions.js';
import type { Specification } from '../../shared/schemas/specifications.js';
import type { TestCase, TestRecord } from '../../shared/schemas/tests.js';
import type { ApiKeyRecord } from '../../shared/domain/accounts/organization.js';
import type { OrganizationView } from '../../shared/domain/accounts/organization-view.js';
import type { CompatibilityEntry } from '../../shared/domain/evaluation/compatibility.js';
import type { MonitorResults } from '../../shared/domain/monitors/results.js';
import type { EndpointConnectionTestResult } from '../../shared/schemas/endpoint-connection-test.js';

/**
 * The records the OpenAPI document describes (shared/schemas/records.ts) and the types the code
 * answers with describe the same values: each is assignable to the other, so a field added to
 * one and not the other fails the type check (`npx tsc --noEmit` checks these lines).
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const checks: Record<string, true> = {
  product: true satisfies Same<Static<typeof R.ProductRecord>, Product>,
  version: true satisfies Same<Static<typeof R.VersionRecord>, Version>,
  endpointConnection: true satisfies Same<Static<typeof R.EndpointConnectionRecord>, EndpointConnection>,
  endpointConnectionTest: true satisfies Same<
    Static<typeof R.EndpointConnectionTestResultRecord>,
    EndpointConnectionTestResult
  >,
  metric: true satisfies Same<Static<typeof R.MetricRecord>, Metric>,
  evaluatorModel: true satisfies Same<Static<typeof R.EvaluatorModelRecord>, EvaluatorModel>,
  specification: true satisfies Same<Static<typeof R.SpecificationRecord>, Specification>,
  test: true satisfies Same<Static<typeof R.TestRecordSchema>, TestRecord>,
  testCase: true satisfies Same<Static<typeof R.TestCaseRecord>, TestCase>,
  session: true satisfies Same<Static<typeof R.SessionRecord>, Session>,
  turn: true satisfies Same<Static<typeof R.TurnRecord>, Turn>,
  span: true satisfies Same<Static<typeof R.SpanRecord>, Span>,
  monitor: true satisfies Same<Static<typeof R.MonitorRecord>, Monitor>,
  monitorResults: true satisfies Same<Static<typeof R.MonitorResultsRecord>, MonitorResults>,
  compatibility: true satisfies Same<Static<typeof R.CompatibilityEntryRecord>, CompatibilityEntry>,
  organization: true satisfies Same<Static<typeof R.OrganizationRecord>, OrganizationView>,
  apiKey: true satisfies Same<Static<typeof R.ApiKeyRecord>, ApiKeyRecord>,
};

describe('record schemas of the API reference', () => {
  it('match the types the code answers with, field for field (checked by the type checker)', () => {
    expect(Object.keys(checks)).toHaveLength(17);
  });
});
