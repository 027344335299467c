import { expect } from 'vitest';
import type { Client } from './api.js';

export async function createProduct(api: Client, overrides: Record<string, unknown> = {}) {
  const res = await api.post('/products', {
    name: 'Support bot',
    description: 'Answers billing questions',
    capabilities: ['refunds'],
    ...overrides,
  });
  if (res.status !== 201) throw new Error(`product: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; name: string };
}

export const connectionBody = (productId: string, overrides: Record<string, unknown> = {}) => ({
  productId,
  name: 'chat endpoint',
  url: 'https://agent.example.com/chat',
  inputTemplate: '{"message": "{{ input.user_message }}"}',
  outputMapping: { output: '$.reply', retrieval_context: '$.sources[*].text' },
  type: 'CONVERSATION',
  ...overrides,
});

export async function createConnection(api: Client, productId: string, overrides: Record<string, unknown> = {}) {
  const res = await api.post('/endpointConnections', connectionBody(productId, overrides));
  if (res.status !== 201) throw new Error(`connection: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; type: string };
}

export async function createVersion(api: Client, productId: string, overrides: Record<string, unknown> = {}) {
  const res = await api.post('/versions', {
    productId,
    name: `v${Math.random().toString(36).slice(2, 8)}`,
    ...overrides,
  });
  if (res.status !== 201) throw new Error(`version: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; name: string };
}

/** A monitor of a product scoring every session with the predefined non-empty-output metric. */
export async function createMonitor(api: Client, productId: string, overrides: Record<string, unknown> = {}) {
  const res = await api.post('/monitors', {
    productId,
    name: 'checkout',
    metricGroupIds: ['mgrp_non_empty_output'],
    samplingPercentage: 100,
    ...overrides,
  });
  if (res.status !== 201) throw new Error(`monitor: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; name: string };
}

/** Uploads a CSV of test cases through a presigned URL, as a client does; its `s3://` URI. */
export async function uploadCsv(api: Client, text: string): Promise<string> {
  const res = await api.get('/storage/generate-put-presigned-url', { fileName: 'cases.csv', contentType: 'text/csv' });
  expect(res.status).toBe(200);
  const put = await fetch(res.body.url, { method: 'PUT', body: text, headers: { 'content-type': 'text/csv' } });
  expect(put.status).toBe(200);
  return res.body.uri;
}
