import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { MAX_RECEIVES, processBatch } from '../../shared/queue/batch.js';

const record = (id: string, body: unknown, receives: number) => ({
  messageId: id,
  body: JSON.stringify(body),
  attributes: { ApproximateReceiveCount: String(receives) },
});
const event = (...records: ReturnType<typeof record>[]) => ({ Records: records }) as unknown as SQSEvent;
const parse = (body: string) => JSON.parse(body) as { n: number };
const failing = async (job: { n: number }) => {
  if (job.n < 0) throw new Error(`job ${job.n} failed`);
};

describe('an SQS batch', () => {
  it('reports the records whose job throws, so SQS delivers them again', async () => {
    const out = await processBatch(event(record('a', { n: 1 }, 1), record('b', { n: -1 }, 1)), undefined, {
      label: 't',
      parse,
      describe: () => ({}),
      run: failing,
    });
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: 'b' }] });
  });

  it(`settles a job that throws on its last receive (${MAX_RECEIVES}) through giveUp, and only then`, async () => {
    const giveUp = vi.fn(async () => undefined);
    const out = await processBatch(
      event(
        record('early', { n: -1 }, MAX_RECEIVES - 1),
        record('last', { n: -2 }, MAX_RECEIVES),
        record('ok', { n: 3 }, MAX_RECEIVES),
      ),
      undefined,
      {
        label: 't',
        parse,
        describe: () => ({}),
        run: failing,
        giveUp,
      },
    );
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: 'early' }] });
    expect(giveUp).toHaveBeenCalledTimes(1);
    expect(giveUp).toHaveBeenCalledWith({ n: -2 }, expect.objectContaining({ message: 'job -2 failed' }));
  });

  it('leaves a record to the DLQ when giveUp fails too', async () => {
    const giveUp = vi.fn(async () => {
      throw new Error('table unavailable');
    });
    const out = await processBatch(event(record('last', { n: -1 }, MAX_RECEIVES + 1)), undefined, {
      label: 't',
      parse,
      describe: () => ({}),
      run: failing,
      giveUp,
    });
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: 'last' }] });
    expect(giveUp).toHaveBeenCalledTimes(1);
  });
});
