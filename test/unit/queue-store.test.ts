import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type LocalDelayQueue, memoryStore, type QueueStore } from '../../infra/local/queue-store.js';
import { openQueueDatabase, type QueueDatabase, QUEUES_FILE } from '../../infra/local/sqlite-queues.js';
import { startRunQueueConsumer } from '../../infra/local/run-queue.js';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'evp-queues-'));
  dirs.push(dir);
  return join(dir, QUEUES_FILE);
};

/** A queue under test: its store, how to send to it, its clock (moved by the test), its dead letters. */
interface Subject {
  store: QueueStore;
  send(bodies: string[], delayMs?: number): void;
  clock: { now: number };
  deadBodies(): string[];
  close(): void;
}

function memorySubject(): Subject {
  const clock = { now: 1_000_000 };
  const q: LocalDelayQueue = { queue: { messages: [], onEnqueue: undefined }, deadLetters: [], now: () => clock.now };
  let n = 0;
  return {
    store: memoryStore(q),
    clock,
    send(bodies, delayMs = 0) {
      for (const body of bodies)
        q.queue.messages.push({ id: `m-${++n}`, body, receiveCount: 0, visibleAt: clock.now + delayMs });
      q.queue.onEnqueue?.();
    },
    deadBodies: () => q.deadLetters.map((d) => d.body),
    close() {},
  };
}

function sqliteSubject(path = scratch()): Subject & { db: QueueDatabase } {
  const clock = { now: 1_000_000 };
  const db = openQueueDatabase(path, { clocks: { run: () => clock.now } });
  return {
    db,
    store: db.store('run'),
    clock,
    send: (bodies, delayMs = 0) => db.send('run', bodies, delayMs),
    deadBodies: () => db.deadLetters('run').map((d) => d.body),
    close: () => db.close(),
  };
}

const open: Subject[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

describe.each([
  ['in memory', memorySubject],
  ['in SQLite', () => sqliteSubject()],
] as const)('a local queue store %s: SQS semantics', (_name, make) => {
  const subject = () => {
    const s = make();
    open.push(s);
    return s;
  };

  it('delays a message, then gives each visible one to one receive, counting its receives', () => {
    const q = subject();
    q.send(['a', 'b']);
    q.send(['later'], 5_000);
    expect(q.store.waiting()).toBe(3);
    expect(q.store.nextVisibleAt()).toBe(q.clock.now);
    const [a] = q.store.receive(1);
    expect(a).toMatchObject({ body: 'a', receiveCount: 1 });
    // Hidden while its job runs: the next receive takes b, and nothing else is visible yet.
    expect(q.store.receive(10).map((m) => m.body)).toEqual(['b']);
    expect(q.store.receive(10)).toEqual([]);
    expect(q.store.waiting()).toBe(1);
    expect(q.store.nextVisibleAt()).toBe(q.clock.now + 5_000);
    q.clock.now += 5_000;
    expect(q.store.receive(10).map((m) => m.body)).toEqual(['later']);
  });

  it('a deleted message is gone; a released one comes back after the retry delay, a dead letter after its third receive', () => {
    const q = subject();
    q.send(['ok', 'failing']);
    const [ok, failing] = q.store.receive(2);
    q.store.delete(ok!);
    q.store.release(failing!, 1_000);
    expect(q.store.waiting()).toBe(1);
    expect(q.store.receive(1)).toEqual([]);
    q.clock.now += 1_000;
    const [second] = q.store.receive(1);
    expect(second).toMatchObject({ body: 'failing', receiveCount: 2 });
    q.store.release(second!, 1_000);
    q.clock.now += 1_000;
    const [third] = q.store.receive(1);
    expect(third).toMatchObject({ body: 'failing', receiveCount: 3 });
    q.store.release(third!, 1_000);
    q.clock.now += 1_000;
    expect(q.store.receive(1)).toEqual([]);
    expect(q.store.waiting()).toBe(0);
    expect(q.deadBodies()).toEqual(['failing']);
  });
});

describe('the SQLite queues: what a stop leaves, and redrive', () => {
  it('keeps its file in WAL mode: commits go to the write-ahead log beside it', () => {
    const path = scratch();
    const q = sqliteSubject(path);
    open.push(q);
    q.send(['a']);
    expect(existsSync(`${path}-wal`)).toBe(true);
  });

  it('delivers again what a runtime that stopped had in flight, its receive counted; a third such receive is its last', () => {
    const path = scratch();
    const before = sqliteSubject(path);
    before.send(['cut short', 'acknowledged', 'cut short three times']);
    const [cut, acked, often] = before.store.receive(3);
    before.store.delete(acked!);
    expect(cut!.receiveCount).toBe(1);
    // The runtime stops here (nothing more is written); the next one opens the same file.
    before.close();
    let q = sqliteSubject(path);
    expect(q.db.counts().run).toEqual({ waiting: 0, inFlight: 2, dead: 0 });
    expect(q.db.recoverInFlight()).toBe(2);
    expect(q.store.receive(10).map((m) => [m.body, m.receiveCount])).toEqual([
      ['cut short', 2],
      ['cut short three times', 2],
    ]);
    expect(often).toBeDefined();
    q.close();
    q = sqliteSubject(path);
    q.db.recoverInFlight();
    const again = q.store.receive(10);
    q.store.delete(again.find((m) => m.body === 'cut short')!);
    expect(again.find((m) => m.body === 'cut short three times')!.receiveCount).toBe(3);
    q.close();
    q = sqliteSubject(path);
    open.push(q);
    q.db.recoverInFlight();
    // Received three times and never acknowledged: the next receive moves it to the dead letters.
    expect(q.store.receive(10)).toEqual([]);
    expect(q.db.deadLetters('run')).toMatchObject([{ body: 'cut short three times', receiveCount: 3 }]);
  });

  it('redrive puts the dead letters back with no receive counted, from another connection to the same file', () => {
    const path = scratch();
    const q = sqliteSubject(path);
    open.push(q);
    q.send(['poison']);
    for (let i = 0; i < 3; i++) {
      q.clock.now += 1_000;
      q.store.release(q.store.receive(1)[0]!, 0);
    }
    expect(q.db.counts().run.dead).toBe(1);
    // `npm run admin -- redrive run` beside the running runtime.
    const admin = openQueueDatabase(path, { clocks: { run: () => q.clock.now } });
    expect(admin.redrive('run')).toBe(1);
    expect(admin.redrive('run')).toBe(0);
    expect(admin.redrive('evaluation')).toBe(0);
    admin.close();
    q.clock.now += 1;
    expect(q.store.receive(1)).toMatchObject([{ body: 'poison', receiveCount: 1 }]);
  });

  it('a running consumer finds redriven messages by itself (it polls when idle)', async () => {
    const path = scratch();
    const db = openQueueDatabase(path);
    const store = db.store('run');
    const seen: string[] = [];
    let fail = true;
    const consumer = startRunQueueConsumer(
      async (event: SQSEvent): Promise<SQSBatchResponse> => {
        seen.push(...event.Records.map((r) => `${r.body}#${r.attributes.ApproximateReceiveCount}`));
        return { batchItemFailures: fail ? event.Records.map((r) => ({ itemIdentifier: r.messageId })) : [] };
      },
      { concurrency: 2, store },
    );
    try {
      db.send('run', ['job'], 0);
      await expect.poll(() => db.counts().run.dead, { timeout: 10_000 }).toBe(1);
      expect(seen).toEqual(['job#1', 'job#2', 'job#3']);
      fail = false;
      const admin = openQueueDatabase(path);
      expect(admin.redrive('run')).toBe(1);
      admin.close();
      await expect.poll(() => seen.length, { timeout: 5_000 }).toBe(4);
      expect(seen[3]).toBe('job#1');
      await expect.poll(() => db.counts().run).toEqual({ waiting: 0, inFlight: 0, dead: 0 });
    } finally {
      await consumer.stop();
      db.close();
    }
  });
});
