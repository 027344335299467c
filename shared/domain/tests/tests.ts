import type { AuthContext } from '../../auth/context.js';
import { batchDelete, batchPut } from '../../db/batch.js';
import { discardObjects, offloadItem, type OffloadResult } from '../../db/offload.js';
import {
  createRecord,
  getRecord,
  itemFor,
  listOrgRecords,
  listProductRecords,
  updateRecord,
  type CatalogRecord,
} from '../../db/catalog.js';
import { generatingTestItem } from '../../db/generation.js';
import { caseItems, reserveCaseIndex } from '../../db/tests.js';
import { keys } from '../../db/keys.js';
import { batchGet } from '../../db/query.js';
import { toRecord } from '../../db/records.js';
import { ValidationError } from '../../errors.js';
import type { StoredSpecification } from '../../schemas/specifications.js';
import type { TestActivity, TestCreate, TestListQuery, TestUpdate } from '../../schemas/tests.js';
import { bucketName, localS3Endpoints, readObjectStream } from '../../storage/s3.js';
import { canonicalStorageUri, parseS3Uri } from '../../storage/uri.js';
import { clock } from '../common/clock.js';
import { specificationEntity, testEntity } from '../common/entities.js';
import { newId } from '../common/ids.js';
import { patchOf } from '../common/immutable.js';
import { anyOf, applyList, intersects, type Page } from '../common/list.js';
import { requireLiveProduct } from '../catalog/product-refs.js';
import { productLiveCheck } from '../catalog/products.js';
import { ownedKey } from './storage.js';
import { bodyReference } from '../common/references.js';
import { HeaderError, ImportError, readCases, type CaseDraft } from './test-import.js';
import {
  applySpecification,
  canonicalLanguageTag,
  checkTest,
  defaultStrategies,
  isExtendable,
  maxTestCasesOf,
} from './test-rules.js';
import { newGenerationState, queueGeneration } from '../generation/lifecycle.js';
import type { TestCase, TestRecord } from '../../schemas/tests.js';

/** A URI field of a test: canonical; an object of our bucket must sit under the caller's prefix (403). */
function storageField(auth: AuthContext, value: string | null | undefined, field: string): string | null {
  if (!value) return null;
  const canonical = canonicalStorageUri(value, field, localS3Endpoints);
  const loc = parseS3Uri(canonical);
  if (loc && loc.bucket === bucketName) ownedKey(auth, canonical, field);
  return canonical;
}

async function specificationFor(
  auth: AuthContext,
  id: string | null | undefined,
  productId: string,
): Promise<StoredSpecification | undefined> {
  if (!id) return undefined;
  const spec = await bodyReference(
    () => getRecord<StoredSpecification>(specificationEntity, auth.organizationId, id),
    'specificationId',
    id,
    'specification',
  );
  if (spec.productId !== productId) throw new ValidationError(`specificationId ${id} belongs to another product`);
  return spec;
}

export async function createTest(auth: AuthContext, input: TestCreate): Promise<TestRecord> {
  await requireLiveProduct(auth, input.productId);
  const spec = await specificationFor(auth, input.specificationId, input.productId);
  const { type, variants } = applySpecification(input, spec);
  const sourceTestId = input.sourceTestId;
  if (sourceTestId) {
    const source = await bodyReference(
      () => getRecord<TestRecord>(testEntity, auth.organizationId, sourceTestId),
      'sourceTestId',
      sourceTestId,
      'test',
    );
    if (source.type !== 'QUALITY')
      throw new ValidationError(
        `sourceTestId ${sourceTestId} names a ${source.type} test; scenarios are built from the cases of a QUALITY test`,
      );
  }
  const uri = input.uri ? canonicalStorageUri(input.uri, 'uri', localS3Endpoints) : null;
  const record: TestRecord = {
    id: newId('test'),
    organizationId: auth.organizationId,
    productId: input.productId,
    userId: auth.userId,
    name: input.name,
    type,
    models: input.models ?? [],
    groundTruthUri: storageField(auth, input.groundTruthUri, 'groundTruthUri'),
    uri,
    error: null,
    status: 'PENDING',
    fewShot: input.fewShot ?? null,
    languageCode: canonicalLanguageTag(input.languageCode ?? 'en'),
    backgroundNoiseProfile: input.backgroundNoiseProfile ?? null,
    backgroundNoiseLevel: input.backgroundNoiseLevel ?? null,
    variants: variants ?? [],
    customVariantDescription: input.customVariantDescription ?? null,
    strategies: defaultStrategies(type, input.strategies),
    customUserPersona: input.customUserPersona ?? null,
    maxTestCases: maxTestCasesOf(type, input.maxTestCases, Boolean(input.uri)),
    sourceTestId: input.sourceTestId ?? null,
    dataCatalogUri: storageField(auth, input.dataCatalogUri, 'dataCatalogUri'),
    metadata: input.metadata ?? {},
    specificationId: spec?.id ?? null,
    isExtendable: false,
    testCaseCount: 0,
    createdAt: clock.now().toISOString(),
  };
  record.isExtendable = isExtendable(record);
  checkTest(record);
  if (!uri) {
    // A generated test: PENDING, and its first step on the generation queue.
    const gen = newGenerationState('generate', 1, record.maxTestCases!);
    await createRecord(
      testEntity,
      record,
      [productLiveCheck(auth.organizationId, record.productId)],
      generatingTestItem(itemFor(testEntity, record), record.id, gen),
    );
    await queueGeneration(auth.organizationId, record.id, gen);
    return record;
  }
  return importUploadedTest(auth, record, ownedKey(auth, uri, 'uri'));
}

/**
 * An uploaded test: every row is read and checked before anything is written. A header that does
 * not fit the type is a 400 (nothing is created); a bad row gives a FAILED test naming the line and
 * problem, with no case; a good file gives SUCCESS with its cases.
 */
async function importUploadedTest(auth: AuthContext, record: TestRecord, key: string): Promise<TestRecord> {
  const stream = await readObjectStream(key);
  if (!stream) throw new ValidationError(`uri names no object: ${record.uri}`);
  let drafts: CaseDraft[];
  try {
    drafts = await readCases(record.type, stream);
  } catch (error) {
    if (!(error instanceof ImportError)) throw error;
    // A header that does not fit the type is the request's mistake, known now: nothing is created.
    if (error instanceof HeaderError) throw new ValidationError(`uri: ${error.message}`);
    const failed: TestRecord = { ...record, status: 'FAILED', error: error.message };
    return createRecord(testEntity, failed, [productLiveCheck(auth.organizationId, record.productId)]);
  }
  await createRecord(testEntity, record, [productLiveCheck(auth.organizationId, record.productId)]);
  const cases = drafts.map((d) => caseOf(record, d));
  let offloaded: [OffloadResult, Record<string, unknown>][] = [];
  try {
    // Large fields go to S3 first; each item then stays under 350 KB, so a BatchWriteItem of 25
    // stays far below its 16 MB.
    offloaded = await offloadCases(cases);
    await batchPut(offloaded.flatMap(([c, pointer]) => [c.item, pointer]));
  } catch (error) {
    // Nothing half-written: remove what was written, and say so on the test.
    const items = cases.flatMap((c) => caseItems(c));
    await batchDelete(items.map((i) => ({ pk: String(i.pk), sk: String(i.sk) }))).catch(() => undefined);
    await discardObjects(offloaded.flatMap(([c]) => c.written));
    await updateRecord(testEntity, auth.organizationId, record.id, {
      status: 'FAILED',
      error: 'the test cases could not be stored; create the test again',
    });
    throw error;
  }
  return updateRecord<TestRecord>(testEntity, auth.organizationId, record.id, {
    status: 'SUCCESS',
    testCaseCount: cases.length,
  });
}

function caseOf(test: TestRecord, d: CaseDraft): TestCase {
  return {
    id: newId('testCase'),
    organizationId: test.organizationId,
    productId: test.productId,
    testId: test.id,
    index: d.index,
    input: d.input,
    expectedOutput: d.expectedOutput,
    expectedTools: [],
    context: d.context,
    variant: d.variant ?? (test.variants.length === 1 ? test.variants[0]! : null),
    strategy: test.strategies.length === 1 ? test.strategies[0]! : null,
    languageCode: test.languageCode,
    goal: d.goal,
    userPersona: d.userPersona,
    scenario: d.scenario,
    stoppingCriterias: d.stoppingCriterias,
    maxIterations: d.maxIterations,
    isAugmented: false,
    createdAt: test.createdAt,
  };
}

/** Test-case fields that may live in S3: `orgs/<org>/testCases/<id>/<field>.json`. */
export const CASE_OFFLOADABLE = [
  'input',
  'expectedOutput',
  'context',
  'goal',
  'userPersona',
  'scenario',
  'stoppingCriterias',
  'expectedTools',
] as const;

/**
 * The items of test cases with what does not fit moved to S3 (objects written, in parallel, in
 * chunks so a 10,000-row import never holds every request open at once); pairs of the record's
 * offload result and its owner pointer. On a failure, the objects written are removed.
 */
export async function offloadCases(cases: TestCase[]): Promise<[OffloadResult, Record<string, unknown>][]> {
  const out: [OffloadResult, Record<string, unknown>][] = [];
  try {
    for (let i = 0; i < cases.length; i += 100) {
      const chunk = cases.slice(i, i + 100);
      const results = await Promise.all(
        chunk.map((c) =>
          offloadItem(caseItems(c)[0]!, {
            orgId: c.organizationId,
            kind: 'testCases',
            id: c.id,
            fields: CASE_OFFLOADABLE,
          }),
        ),
      );
      results.forEach((r, j) => {
        out.push([r, caseItems(chunk[j]!)[1]!]);
      });
    }
  } catch (error) {
    await discardObjects(out.flatMap(([r]) => r.written));
    throw error;
  }
  return out;
}

type StoredTest = TestRecord & TestActivity;

/** The record a client sees: every internal `_` field (activity, the generation cursor) dropped. */
function present(t: StoredTest): TestRecord {
  return toRecord<TestRecord>(t as unknown as Record<string, unknown>);
}

export async function getTest(auth: AuthContext, id: string): Promise<TestRecord> {
  return getRecord<TestRecord>(testEntity, auth.organizationId, id, { includeDeleted: true });
}

export async function listTests(auth: AuthContext, query: TestListQuery): Promise<Page<TestRecord>> {
  const [records, liveSpecs, caseTests] = await Promise.all([
    query.productIds
      ? listProductRecords<StoredTest>(testEntity, auth.organizationId, query.productIds, { keepInternal: true })
      : listOrgRecords<StoredTest>(testEntity, auth.organizationId, { keepInternal: true }),
    query.hasLiveSpecification === undefined
      ? undefined
      : listOrgRecords<CatalogRecord>(specificationEntity, auth.organizationId),
    query.testCaseIds ? testsOfCases(auth.organizationId, query.testCaseIds) : undefined,
  ]);
  const live = liveSpecs ? new Set(liveSpecs.map((s) => s.id)) : undefined;
  const page = applyList(records, query, {
    sortable: ['createdAt', 'name', 'type', 'status', 'productId'],
    filters: [
      ...anyOf<StoredTest>(query.productIds, (t) => t.productId),
      ...anyOf<StoredTest>(query.types, (t) => t.type),
      ...anyOf<StoredTest>(query.statuses, (t) => t.status),
      ...anyOf<StoredTest>(query.specificationIds, (t) => t.specificationId),
      ...(caseTests ? [(t: StoredTest) => caseTests.has(t.id)] : []),
      ...intersects<StoredTest>(query.versionIds, (t) => [...(t._versionIds ?? [])]),
      ...(live
        ? [
            (t: StoredTest) =>
              (t.specificationId !== null && live.has(t.specificationId)) === query.hasLiveSpecification,
          ]
        : []),
      ...(query.hasEvaluations === undefined
        ? []
        : [(t: StoredTest) => Boolean(t._hasEvaluations) === query.hasEvaluations]),
      ...(query.hasTraces === undefined ? [] : [(t: StoredTest) => Boolean(t._hasTraces) === query.hasTraces]),
    ],
  });
  return { items: page.items.map(present), total: page.total };
}

async function testsOfCases(orgId: string, caseIds: string[]): Promise<Set<string>> {
  const items = await batchGet(caseIds.map((id) => keys.catalog(orgId, 'TCASE', id)));
  return new Set(
    items
      .map((i) => toRecord<TestCase>(i))
      .filter((c) => !c.deletedAt)
      .map((c) => c.testId),
  );
}

export async function updateTest(auth: AuthContext, id: string, body: TestUpdate): Promise<TestRecord> {
  const { set } = patchOf(body, ['name', 'metadata']);
  return updateRecord<TestRecord>(testEntity, auth.organizationId, id, set);
}

export async function deleteTest(auth: AuthContext, id: string): Promise<{ id: string; deletedAt: string }> {
  const deletedAt = clock.now().toISOString();
  await updateRecord(testEntity, auth.organizationId, id, { deletedAt });
  return { id, deletedAt };
}

/** Reserves the next case index of a test (a counter on the test). */
export function nextCaseIndex(orgId: string, testId: string): Promise<number> {
  return reserveCaseIndex(orgId, testId);
}
