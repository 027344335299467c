import { createRequire } from 'node:module';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { clock } from '../../shared/domain/common/clock.js';
import { MAX_RECEIVES } from '../../shared/queue/receives.js';
import type { QueueName } from '../../shared/queue/sqs.js';
import type { QueueStore, ReceivedMessage } from './queue-store.js';

/**
 * The local runtime's durable queues: every message of the five job queues in one SQLite file of
 * the data directory (Node's built-in `node:sqlite`), so that `npm start` after any stop delivers
 * what was not acknowledged. This module holds all of their SQL.
 *
 * One table; a message is `waiting` (visible from `visible_at`, epoch ms on its queue's clock),
 * `in_flight` (received by this runtime, its job running) or `dead` (the queue's dead letters).
 * A message in flight stays so until its job ends: only one runtime runs on a data directory
 * (state.ts), so every message in flight when a runtime starts was left by one that stopped, and
 * `recoverInFlight` makes it visible again at once, its receives counted, as SQS does after a
 * visibility timeout. Other processes (`npm run admin -- redrive`) open the same file: WAL lets
 * them read and write beside the runtime, and the runtime's consumers poll for what they put back.
 */

export const QUEUES_FILE = 'queues.sqlite';
export const QUEUE_NAMES: readonly QueueName[] = ['evaluation', 'run', 'webhook', 'generation', 'voice'];

/** A dead letter as the operator sees it. */
export interface DeadLetter {
  id: string;
  body: string;
  receiveCount: number;
  sentAt: number;
}

export interface QueueCounts {
  waiting: number;
  inFlight: number;
  dead: number;
}

export interface QueueDatabase {
  readonly path: string;
  /** Puts bodies on a queue, visible after `delayMs` (the local transport of shared/queue/sqs.ts). */
  send(queue: QueueName, bodies: string[], delayMs: number): void;
  /** The store of one queue, for its consumer. */
  store(queue: QueueName): QueueStore;
  /** Makes every message left in flight by a runtime that stopped visible again; answers how many. */
  recoverInFlight(): number;
  /** Moves a queue's dead letters back onto it, visible at once with no receive counted; answers how many. */
  redrive(queue: QueueName): number;
  deadLetters(queue: QueueName): DeadLetter[];
  counts(): Record<QueueName, QueueCounts>;
  close(): void;
}

/** Where each queue counts its delays: the webhook queue on the service clock, the others on the wall clock. */
const defaultClocks: Record<QueueName, () => number> = {
  evaluation: () => Date.now(),
  run: () => Date.now(),
  webhook: () => clock.now().getTime(),
  generation: () => Date.now(),
  voice: () => Date.now(),
};

const ARN_NAMES: Record<QueueName, string> = {
  evaluation: 'evaluation-jobs',
  run: 'run-jobs',
  webhook: 'webhook-jobs',
  generation: 'generation-jobs',
  voice: 'voice-jobs',
};

/** How often an idle consumer looks for messages another process put back. */
const POLL_MS = 250;

/**
 * `node:sqlite` without its one ExperimentalWarning (Node 22 prints it when the module loads):
 * only that warning is held back, while the module loads; every other warning is printed as usual.
 */
function loadSqlite(): typeof import('node:sqlite') {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    const text = typeof warning === 'string' ? warning : warning.message;
    if (type === 'ExperimentalWarning' && text.startsWith('SQLite ')) return;
    return (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return createRequire(import.meta.url)('node:sqlite') as typeof import('node:sqlite');
  } finally {
    process.emitWarning = emit;
  }
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  queue TEXT NOT NULL,
  body TEXT NOT NULL,
  receive_count INTEGER NOT NULL DEFAULT 0,
  visible_at INTEGER NOT NULL,
  sent_at INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('waiting', 'in_flight', 'dead'))
);
CREATE INDEX IF NOT EXISTS messages_by_queue ON messages (queue, state, visible_at);
`;

const idOf = (queue: string, seq: number | bigint) => `${queue}-${seq}`;
const seqOf = (id: string) => Number(id.slice(id.lastIndexOf('-') + 1));

/**
 * Opens (creating when missing) the queue database at `path`. WAL with `synchronous = NORMAL`: a
 * commit survives the process being killed; a power cut may lose the last commits, never the
 * file's consistency (FULL would sync every commit, 2–3 ms each on this kind of disk, inside the
 * event loop). `clocks` replaces a queue's clock (tests).
 */
export function openQueueDatabase(
  path: string,
  options: { clocks?: Partial<Record<QueueName, () => number>> } = {},
): QueueDatabase {
  const { DatabaseSync } = loadSqlite();
  const db: DatabaseSync = new DatabaseSync(path, { timeout: 5_000 });
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  db.exec(SCHEMA);
  const clocks = { ...defaultClocks, ...options.clocks };
  let open = true;

  const sql = {
    insert: db.prepare(
      "INSERT INTO messages (queue, body, receive_count, visible_at, sent_at, state) VALUES (?, ?, 0, ?, ?, 'waiting')",
    ),
    // SQS moves a message to the DLQ when a receive finds it received maxReceiveCount times already:
    // here a message whose last receive was cut short by a stop.
    overReceived: db.prepare(
      "UPDATE messages SET state = 'dead' WHERE queue = ? AND state = 'waiting' AND visible_at <= ? AND receive_count >= ?",
    ),
    take: db.prepare(
      `UPDATE messages SET state = 'in_flight', receive_count = receive_count + 1
       WHERE seq IN (SELECT seq FROM messages WHERE queue = ? AND state = 'waiting' AND visible_at <= ?
                     ORDER BY visible_at, seq LIMIT ?)
       RETURNING seq, body, receive_count`,
    ),
    delete: db.prepare("DELETE FROM messages WHERE seq = ? AND state = 'in_flight'"),
    release: db.prepare(
      `UPDATE messages SET state = CASE WHEN receive_count >= ? THEN 'dead' ELSE 'waiting' END, visible_at = ?
       WHERE seq = ? AND state = 'in_flight'`,
    ),
    waiting: db.prepare("SELECT COUNT(*) AS n FROM messages WHERE queue = ? AND state = 'waiting'"),
    next: db.prepare("SELECT MIN(visible_at) AS at FROM messages WHERE queue = ? AND state = 'waiting'"),
    recover: db.prepare("UPDATE messages SET state = 'waiting' WHERE state = 'in_flight'"),
    redrive: db.prepare(
      "UPDATE messages SET state = 'waiting', receive_count = 0, visible_at = ? WHERE queue = ? AND state = 'dead'",
    ),
    dead: db.prepare(
      "SELECT seq, body, receive_count, sent_at FROM messages WHERE queue = ? AND state = 'dead' ORDER BY seq",
    ),
    counts: db.prepare('SELECT queue, state, COUNT(*) AS n FROM messages GROUP BY queue, state'),
  } satisfies Record<string, StatementSync>;

  /** Runs `work` in one write transaction (taken at once: no other writer can slip in between). */
  const transaction = <T>(work: () => T): T => {
    db.exec('BEGIN IMMEDIATE');
    try {
      const out = work();
      db.exec('COMMIT');
      return out;
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  };

  const watchers = new Map<QueueName, () => void>();

  const store = (queue: QueueName): QueueStore => {
    const now = clocks[queue];
    return {
      arnName: ARN_NAMES[queue],
      now,
      pollMs: POLL_MS,
      receive(max) {
        if (!open || max <= 0) return [];
        const at = now();
        return transaction(() => {
          sql.overReceived.run(queue, at, MAX_RECEIVES);
          const rows = sql.take.all(queue, at, max) as { seq: number; body: string; receive_count: number }[];
          return rows
            .sort((a, b) => a.seq - b.seq)
            .map((r): ReceivedMessage => ({ id: idOf(queue, r.seq), body: r.body, receiveCount: r.receive_count }));
        });
      },
      delete(message) {
        // A job that outlived its runtime's stop finds the file closed: its message is delivered again.
        if (open) sql.delete.run(seqOf(message.id));
      },
      release(message, retryMs) {
        if (open) sql.release.run(MAX_RECEIVES, now() + retryMs, seqOf(message.id));
      },
      waiting: () => (open ? Number((sql.waiting.get(queue) as { n: number }).n) : 0),
      nextVisibleAt() {
        if (!open) return undefined;
        const at = (sql.next.get(queue) as { at: number | null }).at;
        return at === null ? undefined : Number(at);
      },
      watch(wake) {
        if (wake) watchers.set(queue, wake);
        else watchers.delete(queue);
      },
    };
  };

  return {
    path,
    send(queue, bodies, delayMs) {
      if (!open) throw new Error(`the local ${queue} queue is closed (the runtime is stopping)`);
      const visibleAt = clocks[queue]() + delayMs;
      const sentAt = Date.now();
      transaction(() => {
        for (const body of bodies) sql.insert.run(queue, body, visibleAt, sentAt);
      });
      watchers.get(queue)?.();
    },
    store,
    recoverInFlight: () => Number(sql.recover.run().changes),
    redrive: (queue) => Number(sql.redrive.run(clocks[queue](), queue).changes),
    deadLetters: (queue) =>
      (sql.dead.all(queue) as { seq: number; body: string; receive_count: number; sent_at: number }[]).map((r) => ({
        id: idOf(queue, r.seq),
        body: r.body,
        receiveCount: r.receive_count,
        sentAt: r.sent_at,
      })),
    counts() {
      const out = Object.fromEntries(QUEUE_NAMES.map((q) => [q, { waiting: 0, inFlight: 0, dead: 0 }])) as Record<
        QueueName,
        QueueCounts
      >;
      for (const row of sql.counts.all() as { queue: QueueName; state: string; n: number }[]) {
        const counts = out[row.queue];
        if (!counts) continue;
        if (row.state === 'waiting') counts.waiting = row.n;
        else if (row.state === 'in_flight') counts.inFlight = row.n;
        else counts.dead = row.n;
      }
      return out;
    },
    close() {
      if (!open) return;
      open = false;
      watchers.clear();
      db.close();
    },
  };
}
