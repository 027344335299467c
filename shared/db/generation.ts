import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { transact, type TransactItem } from './catalog.js';
import { doc, tableName } from './client.js';
import { releaseItem, reserveItem, settleItem } from './credits.js';
import { isConditionalCheckFailed } from './errors.js';
import { keys } from './keys.js';
import { leaseFreeBelow } from './leases.js';
import { toRecord } from './records.js';
import { activeShardOf } from './stall-watch.js';
import { allOf, LIVE, updateOf, type Condition } from './update.js';
import type { TestStatus } from '../schemas/tests.js';
import type { TestRecord } from '../schemas/tests.js';

/**
 * The generation cursor kept on the test item (`_gen`, never shown to clients) and the writes of
 * the generation job. Every write is conditional on the action (`seq`), the step
 * and the test's status, so a redelivered or stale job changes nothing, and a cancelled test
 * takes no more cases.
 */
export interface GenerationCharge {
  step: number;
  cycle: string;
  amount: number;
}

export interface GenerationState {
  /** The action's number: 1 for the first generation, +1 for each extend or augment. */
  seq: number;
  action: 'generate' | 'extend' | 'augment';
  /** Cases the action writes at most. */
  target: number;
  /** The next step to perform. */
  step: number;
  /** Cases the action has written. */
  written: number;
  /** QUALITY: where in the chunk list the action starts. */
  offset: number;
  /** Epoch ms until which a worker holds the current step. */
  lease?: number;
  /** Credits reserved for the current step's call, not yet settled or released. */
  charge?: GenerationCharge;
  /** The last step whose job was put on the queue. */
  queued?: number;
}

export type GeneratingTest = TestRecord & { _gen?: GenerationState };

const testKey = (orgId: string, id: string) => keys.catalog(orgId, 'TEST', id);

/** What a generation that starts writes on its test's item: its cursor, and its entry on the index of generating tests. */
const generationFields = (testId: string, gen: GenerationState) => ({
  _gen: gen,
  ...keys.generatingTest(activeShardOf(testId), testId),
});

/** The item of a new generated test (`item`, its catalog item) with the cursor of its first generation. */
export function generatingTestItem(
  item: Record<string, unknown>,
  testId: string,
  gen: GenerationState,
): Record<string, unknown> {
  return { ...item, ...generationFields(testId, gen) };
}

/** A test with its cursor (deleted ones included: the job stops on them). */
export async function getGeneratingTest(orgId: string, id: string): Promise<GeneratingTest | undefined> {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: testKey(orgId, id), ConsistentRead: true }));
  return out.Item ? toRecord<GeneratingTest>(out.Item, { keepInternal: true }) : undefined;
}

/** The condition "this action's step `step` is current and the test is in `status`". */
function current(seq: number, step: number, status: TestStatus) {
  return {
    expression: '#status = :active AND #g.#seq = :seq AND #g.#step = :step AND attribute_not_exists(#deletedAt)',
    names: { '#status': 'status', '#g': '_gen', '#seq': 'seq', '#step': 'step', '#deletedAt': 'deletedAt' },
    values: { ':active': status, ':seq': seq, ':step': step },
  };
}

class StepLost extends Error {}
class NoCredits extends Error {}

/**
 * Takes the current step for `leaseMs` (no other worker holds it), reserving the call's credits
 * on the organization in the same transaction unless this step already holds a reservation.
 */
export async function claimStep(
  orgId: string,
  testId: string,
  at: { seq: number; step: number; status: TestStatus },
  now: number,
  leaseMs: number,
  reserve?: { cycle: string; amount: number; limit: number | null },
): Promise<'claimed' | 'busy' | 'no-credits'> {
  const c = current(at.seq, at.step, at.status);
  const update: TransactItem = {
    Update: {
      TableName: tableName,
      Key: testKey(orgId, testId),
      UpdateExpression: `SET #g.#lease = :until${reserve ? ', #g.#charge = :charge' : ''}`,
      ConditionExpression: `${c.expression} AND (attribute_not_exists(#g.#lease) OR #g.#lease < :now)${reserve ? ' AND attribute_not_exists(#g.#charge)' : ''}`,
      ExpressionAttributeNames: { ...c.names, '#lease': 'lease', ...(reserve ? { '#charge': 'charge' } : {}) },
      ExpressionAttributeValues: {
        ...c.values,
        ':until': now + leaseMs,
        // A lease that ended, or one taken by a runtime that stopped (./leases.ts), is free.
        ':now': leaseFreeBelow(now, leaseMs),
        ...(reserve
          ? { ':charge': { step: at.step, cycle: reserve.cycle, amount: reserve.amount } satisfies GenerationCharge }
          : {}),
      },
    },
  };
  const items = reserve
    ? [update, reserveItem(keys.orgSpend(orgId, reserve.cycle), reserve.amount, reserve.limit)]
    : [update];
  try {
    await transact(items, (codes) =>
      codes[0] === 'ConditionalCheckFailed'
        ? new StepLost()
        : codes[1] === 'ConditionalCheckFailed'
          ? new NoCredits()
          : undefined,
    );
    return 'claimed';
  } catch (error) {
    if (error instanceof StepLost) return 'busy';
    if (error instanceof NoCredits) return 'no-credits';
    throw error;
  }
}

/** Gives the step back (a worker that failed unexpectedly), so a redelivery may take it at once. */
export async function releaseLease(orgId: string, testId: string, seq: number, step: number): Promise<void> {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: testKey(orgId, testId),
        UpdateExpression: 'REMOVE #g.#lease',
        ConditionExpression: '#g.#seq = :seq AND #g.#step = :step',
        ExpressionAttributeNames: { '#g': '_gen', '#seq': 'seq', '#step': 'step', '#lease': 'lease' },
        ExpressionAttributeValues: { ':seq': seq, ':step': step },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

/**
 * Writes a step's cases and moves the cursor, in one transaction, while the step is current and
 * the test still has `base` cases (the cases are numbered from it). `true` when written; `false`
 * when the step is no longer current (cancelled, or another worker moved on); `{ moved }` when
 * only the count changed (a case added by hand meanwhile took an index): renumber from `moved`.
 */
export async function commitStep(
  orgId: string,
  testId: string,
  at: { seq: number; step: number; status: TestStatus },
  items: Record<string, unknown>[],
  count: number,
  charge: GenerationCharge | undefined,
  base: number,
): Promise<boolean | { moved: number }> {
  const c = current(at.seq, at.step, at.status);
  const update: TransactItem = {
    Update: {
      TableName: tableName,
      Key: testKey(orgId, testId),
      UpdateExpression:
        'SET #g.#step = :next, #g.#written = #g.#written + :n, #count = if_not_exists(#count, :zero) + :n REMOVE #g.#lease, #g.#charge',
      ConditionExpression: `${c.expression} AND ${base === 0 ? '(attribute_not_exists(#count) OR #count = :base)' : '#count = :base'}`,
      ExpressionAttributeNames: {
        ...c.names,
        '#written': 'written',
        '#count': 'testCaseCount',
        '#lease': 'lease',
        '#charge': 'charge',
      },
      ExpressionAttributeValues: { ...c.values, ':next': at.step + 1, ':n': count, ':zero': 0, ':base': base },
    },
  };
  const puts: TransactItem[] = items.map((Item) => ({
    Put: { TableName: tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' },
  }));
  const settle = charge ? [settleItem(keys.orgSpend(orgId, charge.cycle), charge.amount)] : [];
  try {
    await transact([update, ...puts, ...settle], (codes) =>
      codes[0] === 'ConditionalCheckFailed' ? new StepLost() : undefined,
    );
    return true;
  } catch (error) {
    if (!(error instanceof StepLost)) throw error;
  }
  const now = await getGeneratingTest(orgId, testId);
  const stillCurrent =
    now && !now.deletedAt && now.status === at.status && now._gen?.seq === at.seq && now._gen.step === at.step;
  return stillCurrent && (now.testCaseCount ?? 0) !== base ? { moved: now.testCaseCount ?? 0 } : false;
}

/**
 * Closes a step's reservation that no commit will settle: `settle` for a valid answer whose cases
 * were not written (the test was cancelled meanwhile), `release` for a failed call. Only once:
 * false when it was closed before.
 */
export async function closeCharge(
  orgId: string,
  testId: string,
  seq: number,
  charge: GenerationCharge,
  how: 'settle' | 'release',
): Promise<boolean> {
  const update: TransactItem = {
    Update: {
      TableName: tableName,
      Key: testKey(orgId, testId),
      UpdateExpression: 'REMOVE #g.#charge',
      ConditionExpression: '#g.#seq = :seq AND #g.#charge.#step = :step',
      ExpressionAttributeNames: { '#g': '_gen', '#seq': 'seq', '#charge': 'charge', '#step': 'step' },
      ExpressionAttributeValues: { ':seq': seq, ':step': charge.step },
    },
  };
  const key = keys.orgSpend(orgId, charge.cycle);
  try {
    await transact(
      [update, how === 'settle' ? settleItem(key, charge.amount) : releaseItem(key, charge.amount)],
      (codes) => (codes[0] === 'ConditionalCheckFailed' ? new StepLost() : undefined),
    );
    return true;
  } catch (error) {
    if (!(error instanceof StepLost)) throw error;
    return false;
  }
}

/** Records that the job of `step` was put on the queue (a stale redelivery then puts it no more). */
export async function markQueued(orgId: string, testId: string, seq: number, step: number): Promise<void> {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: testKey(orgId, testId),
        UpdateExpression: 'SET #g.#queued = :step',
        ConditionExpression: '#g.#seq = :seq AND (attribute_not_exists(#g.#queued) OR #g.#queued < :step)',
        ExpressionAttributeNames: { '#g': '_gen', '#seq': 'seq', '#queued': 'queued' },
        ExpressionAttributeValues: { ':seq': seq, ':step': step },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

/**
 * Moves a live test from one of `from` to `set.status` (and the other fields of `set`), for the
 * action `seq` when given; the new cursor replaces the old one when `gen` is given (a generation
 * starts: the test goes on the index of generating tests too). Returns the
 * test as stored after the change, or undefined when the test was not in such a state.
 */
export async function transitionTest(
  orgId: string,
  testId: string,
  from: readonly TestStatus[],
  set: Partial<TestRecord> & { status: TestStatus },
  options: { seq?: number; gen?: GenerationState } = {},
): Promise<GeneratingTest | undefined> {
  const values = Object.fromEntries(from.map((s, i) => [`:from${i}`, s]));
  const inState: Condition = {
    expression: `#st IN (${Object.keys(values).join(', ')})`,
    names: { '#st': 'status' },
    values,
  };
  const ofAction: Condition | undefined =
    options.seq === undefined
      ? undefined
      : { expression: '#g.#seq = :seq', names: { '#g': '_gen', '#seq': 'seq' }, values: { ':seq': options.seq } };
  try {
    const out = await doc.send(
      new UpdateCommand({
        ...updateOf(
          testKey(orgId, testId),
          { ...set, ...(options.gen ? generationFields(testId, options.gen) : {}) },
          [],
          allOf(LIVE, inState, ofAction),
        ),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toRecord<GeneratingTest>(out.Attributes ?? {}, { keepInternal: true });
  } catch (error) {
    if (isConditionalCheckFailed(error)) return undefined;
    throw error;
  }
}
