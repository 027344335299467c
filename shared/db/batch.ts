import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import type { Key } from './keys.js';

type Item = Record<string, unknown>;

async function writeChunk(requests: Record<string, unknown>[]): Promise<void> {
  let pending = requests;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(2000, 25 * 2 ** attempt)));
    if (attempt > 10) throw new Error('BatchWrite kept returning unprocessed items');
    const out = await doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } }));
    pending = (out.UnprocessedItems?.[tableName] ?? []) as Record<string, unknown>[];
  }
}

/** Writes many items (chunks of 25, a few chunks in flight, unprocessed items retried). Not atomic. */
export async function batchPut(items: Item[], concurrency = 8): Promise<void> {
  await runChunks(
    items.map((Item) => ({ PutRequest: { Item } })),
    concurrency,
  );
}

export async function batchDelete(keyList: Key[], concurrency = 8): Promise<void> {
  await runChunks(
    keyList.map((k) => ({ DeleteRequest: { Key: { pk: k.pk, sk: k.sk } } })),
    concurrency,
  );
}

async function runChunks(requests: Record<string, unknown>[], concurrency: number): Promise<void> {
  const chunks: Record<string, unknown>[][] = [];
  for (let i = 0; i < requests.length; i += 25) chunks.push(requests.slice(i, i + 25));
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, chunks.length) }, async () => {
      while (next < chunks.length) await writeChunk(chunks[next++]!);
    }),
  );
}
