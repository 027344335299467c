/**
 * Test cases and tests by id for reports of a run (comparison rows, JUnit): deleted ones included,
 * since a finished run still names the cases it ran; fields kept in S3 read back.
 */
import { keys } from './keys.js';
import { restoreItems } from './offload.js';
import { batchGet } from './query.js';
import { toRecord } from './records.js';
import type { TestCase, TestRecord } from '../schemas/tests.js';

/** The organization's test cases of these ids (missing ones left out), offloaded fields restored. */
export async function storedTestCases(orgId: string, ids: readonly string[]): Promise<Map<string, TestCase>> {
  const items = await batchGet(ids.map((id) => keys.catalog(orgId, 'TCASE', id)));
  const restored = await restoreItems(items);
  return new Map(restored.map((i) => [String(i.id), toRecord<TestCase>(i)]));
}

/** The organization's tests of these ids (missing ones left out). */
export async function storedTests(orgId: string, ids: readonly string[]): Promise<Map<string, TestRecord>> {
  const items = await batchGet(ids.map((id) => keys.catalog(orgId, 'TEST', id)));
  return new Map(items.map((i) => [String(i.id), toRecord<TestRecord>(i)]));
}
