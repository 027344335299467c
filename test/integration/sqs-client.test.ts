import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendBatches, sendJobs, sqsEndpoint, type LocalQueue } from '../../shared/queue/sqs.js';
import { startFakeAws, type FakeAnswer, type FakeRequest } from '../support/fake-aws.js';

// The queue modules send SendMessageBatch themselves (AWS JSON 1.0, SignatureV4 for `sqs`; no SDK
// SQS client). A tiny HTTP server on 127.0.0.1 plays SQS; the queue URL names it, and the requests
// go to the queue URL's origin as the SDK client sent them (SQS_ENDPOINT is not set here).
let sqs: Awaited<ReturnType<typeof startFakeAws>>;
beforeAll(async () => {
  sqs = await startFakeAws();
});
afterEach(() => sqs.reset());
afterAll(() => sqs.close());

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
type Entry = { Id: string; MessageBody: string; DelaySeconds?: number };
const entries = (r: FakeRequest) => (JSON.parse(r.body) as { Entries: Entry[] }).Entries;
/** SQS accepting every entry, with the MD5 of each body, as the real service answers. */
const accept = (r: FakeRequest): FakeAnswer => ({
  headers: { 'content-type': 'application/x-amz-json-1.0' },
  body: JSON.stringify({ Successful: entries(r).map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: md5(e.MessageBody) })), Failed: [] }),
});
const queueUrl = () => `${sqs.endpoint}/123456789012/run-queue`;
const local: LocalQueue = { messages: [], onEnqueue: undefined };

describe('SendMessageBatch without the SDK', () => {
  it('posts AWS JSON 1.0 to the queue URL origin, 10 entries per request, signed with SigV4 for sqs', async () => {
    sqs.reset(accept);
    const bodies = Array.from({ length: 23 }, (_, i) => JSON.stringify({ job: i, text: '雨' }));
    await sendJobs({ queueUrl: queueUrl(), label: 'run queue', idPrefix: 'run', local }, bodies, 30_500);
    expect(local.messages).toEqual([]);
    expect(sqs.requests.map((r) => [r.method, r.url])).toEqual(Array(3).fill(['POST', '/']));
    const [first] = sqs.requests;
    expect(first!.headers['x-amz-target']).toBe('AmazonSQS.SendMessageBatch');
    expect(first!.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(first!.headers['x-amzn-query-mode']).toBe('true');
    expect(JSON.parse(first!.body)).toEqual({ QueueUrl: queueUrl(), Entries: bodies.slice(0, 10).map((b, j) => ({ Id: String(j), MessageBody: b, DelaySeconds: 31 })) });
    expect(sqs.requests.map((r) => entries(r).map((e) => e.MessageBody))).toEqual([bodies.slice(0, 10), bodies.slice(10, 20), bodies.slice(20)]);
    for (const r of sqs.requests) {
      expect(r.headers['x-amz-content-sha256']).toBe(createHash('sha256').update(r.body).digest('hex'));
      expect(r.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
      expect(r.headers.authorization).toMatch(
        new RegExp(
          `^AWS4-HMAC-SHA256 Credential=${process.env.AWS_ACCESS_KEY_ID}/\\d{8}/${process.env.AWS_REGION}/sqs/aws4_request, ` +
            'SignedHeaders=content-length;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-target;x-amzn-query-mode, Signature=[0-9a-f]{64}$',
        ),
      );
    }
  });

  it('sends to the queue URL origin, else to the regional endpoint (China regions on amazonaws.com.cn)', () => {
    expect(sqsEndpoint('https://sqs.eu-west-1.amazonaws.com/123456789012/q', 'eu-west-1')).toBe('https://sqs.eu-west-1.amazonaws.com');
    expect(sqsEndpoint('q', 'eu-west-1')).toBe('https://sqs.eu-west-1.amazonaws.com');
    expect(sqsEndpoint('q', 'cn-north-1')).toBe('https://sqs.cn-north-1.amazonaws.com.cn');
  });

  it('leaves DelaySeconds out when there is no delay', async () => {
    sqs.reset(accept);
    await sendBatches(queueUrl(), 'evaluation queue', ['a']);
    expect(entries(sqs.requests[0]!)).toEqual([{ Id: '0', MessageBody: 'a' }]);
  });

  it('fails the whole call when SQS refuses some entries (the caller retries its job)', async () => {
    sqs.reset((r) => {
      const [ok, ...refused] = entries(r);
      return {
        body: JSON.stringify({
          Successful: [{ Id: ok!.Id, MessageId: 'm-0', MD5OfMessageBody: md5(ok!.MessageBody) }],
          Failed: refused.map((e) => ({ Id: e.Id, SenderFault: false, Code: 'InternalError', Message: 'try again' })),
        }),
      };
    });
    await expect(sendBatches(queueUrl(), 'run queue', ['a', 'b', 'c'])).rejects.toThrow('the run queue refused 2 messages');
    expect(sqs.requests).toHaveLength(1);
  });

  it('throws the service error by its type, with the status and the query-compatible code', async () => {
    sqs.reset(() => ({
      status: 400,
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-query-error': 'AWS.SimpleQueueService.NonExistentQueue;Sender' },
      body: JSON.stringify({ __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'The specified queue does not exist.' }),
    }));
    await expect(sendBatches(queueUrl(), 'run queue', ['a'])).rejects.toMatchObject({
      name: 'QueueDoesNotExist',
      message: 'The specified queue does not exist.',
      Code: 'AWS.SimpleQueueService.NonExistentQueue',
      $metadata: { httpStatusCode: 400 },
    });
    expect(sqs.requests).toHaveLength(1);
  });

  it('retries throttling as the SDK did, and checks the MD5 of each body SQS stored', async () => {
    let n = 0;
    sqs.reset((r) => (++n === 1 ? { status: 400, body: JSON.stringify({ __type: 'com.amazonaws.sqs#ThrottlingException', message: 'slow down' }) } : accept(r)));
    await sendBatches(queueUrl(), 'run queue', ['a']);
    expect(sqs.requests).toHaveLength(2);
    sqs.reset(() => ({ body: JSON.stringify({ Successful: [{ Id: '0', MessageId: 'm-0', MD5OfMessageBody: md5('not a') }], Failed: [] }) }));
    await expect(sendBatches(queueUrl(), 'run queue', ['a'])).rejects.toThrow('Invalid MD5 checksum on messages: m-0');
  });
});
