import { DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it, vi } from 'vitest';

// The thin client modules over the SDK: what they send and how they read the SDK's answers and
// errors. The SDK's own wire behaviour is not retested here (test/unit/aws-retries.test.ts pins
// the retry settings; the integration tests run every call against DynamoDB Local and s3rver).
vi.hoisted(() => {
  Object.assign(process.env, {
    // Another file of this worker may have pointed the clients at a local server.
    S3_ENDPOINT: '',
    SQS_ENDPOINT: '',
    LAMBDA_ENDPOINT: '',
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDTEST',
    AWS_SECRET_ACCESS_KEY: 'secret',
    EVALUATOR_FUNCTION_NAME: 'evaluator-fn',
    SCANNER_FUNCTION_NAME: 'scanner-fn',
    AGGREGATOR_FUNCTION_NAME: 'aggregator-fn',
    RUNNER_FUNCTION_NAME: 'runner-fn',
    GENERATOR_FUNCTION_NAME: 'generator-fn',
  });
});

const { sendBatches } = await import('../../shared/queue/sqs.js');
const { probe } = await import('../../shared/build/services.js');
const { deleteObjects, objectExists, presignGet, presignPut, readObjectStream } = await import(
  '../../shared/storage/s3.js'
);

const sqs = mockClient(SQSClient);
const lambda = mockClient(LambdaClient);
const s3 = mockClient(S3Client);
afterEach(() => {
  sqs.reset();
  lambda.reset();
  s3.reset();
});

const awsError = (name: string, status: number, message = name) =>
  Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });

describe('SQS', () => {
  it('sends 10 bodies per SendMessageBatch, DelaySeconds only when there is a delay', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const bodies = Array.from({ length: 23 }, (_, i) => `job-${i}`);
    await sendBatches('https://sqs.eu-west-1.amazonaws.com/1/q', 'run queue', bodies);
    const calls = sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => c.Entries!.length)).toEqual([10, 10, 3]);
    expect(calls.flatMap((c) => c.Entries!.map((e) => e.MessageBody))).toEqual(bodies);
    expect(calls[0]!.QueueUrl).toBe('https://sqs.eu-west-1.amazonaws.com/1/q');
    expect(calls[0]!.Entries![0]).toEqual({ Id: '0', MessageBody: 'job-0' });

    sqs.reset();
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [] });
    await sendBatches('https://sqs.eu-west-1.amazonaws.com/1/q', 'run queue', ['a'], 30);
    expect(sqs.commandCalls(SendMessageBatchCommand)[0]!.args[0].input.Entries).toEqual([
      { Id: '0', MessageBody: 'a', DelaySeconds: 30 },
    ]);
  });

  it('keeps each SendMessageBatch under SQS’s 256 KiB: large bodies go fewer to a batch', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const bodies = Array.from({ length: 12 }, (_, i) => `${i}`.padEnd(40 * 1024, 'x'));
    await sendBatches('https://sqs.eu-west-1.amazonaws.com/1/q', 'run queue', bodies);
    const calls = sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => c.Entries!.length)).toEqual([6, 6]);
    expect(calls.flatMap((c) => c.Entries!.map((e) => e.MessageBody))).toEqual(bodies);
  });

  it('fails the whole call when SQS refuses an entry (the caller retries its job), and passes throttling on', async () => {
    sqs.on(SendMessageBatchCommand).resolves({
      Successful: [{ Id: '0', MessageId: 'm', MD5OfMessageBody: 'x' }],
      Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }],
    });
    await expect(sendBatches('https://sqs.eu-west-1.amazonaws.com/1/q', 'run queue', ['a', 'b'])).rejects.toThrow(
      'the run queue refused 1 messages',
    );
    sqs.reset();
    sqs.on(SendMessageBatchCommand).rejects(awsError('ThrottlingException', 400));
    await expect(sendBatches('https://sqs.eu-west-1.amazonaws.com/1/q', 'run queue', ['a'])).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
  });
});

describe('Lambda build-info probe', () => {
  it("reads the function's stamp", async () => {
    lambda.on(InvokeCommand).resolves({
      StatusCode: 200,
      Payload: Buffer.from(JSON.stringify({ version: '1.2.3', commit: 'abc', buildDate: '2026-01-01' })) as never,
    });
    expect(await probe('evaluator', 'evaluator-fn')).toEqual({
      name: 'evaluator',
      status: 'ok',
      version: '1.2.3',
      commit: 'abc',
      buildDate: '2026-01-01',
    });
    const input = lambda.commandCalls(InvokeCommand)[0]!.args[0].input;
    expect(input.FunctionName).toBe('evaluator-fn');
    expect(JSON.parse(Buffer.from(input.Payload as Uint8Array).toString())).toEqual({ probe: 'build-info' });
  });

  it('is unreachable, never a throw, on a function error, a bad stamp, an empty answer or an SDK error', async () => {
    const unreachable = {
      name: 'runner',
      status: 'unreachable',
      version: 'unknown',
      commit: 'unknown',
      buildDate: 'unknown',
    };
    lambda.on(InvokeCommand).resolves({
      StatusCode: 200,
      FunctionError: 'Unhandled',
      Payload: Buffer.from('{"errorMessage":"boom"}') as never,
    });
    expect(await probe('runner', 'runner-fn')).toEqual(unreachable);
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: Buffer.from('{"version":1}') as never });
    expect(await probe('runner', 'runner-fn')).toEqual(unreachable);
    lambda.on(InvokeCommand).resolves({ StatusCode: 200 });
    expect(await probe('runner', 'runner-fn')).toEqual(unreachable);
    lambda.on(InvokeCommand).rejects(awsError('ResourceNotFoundException', 404));
    expect(await probe('runner', 'runner-fn')).toEqual(unreachable);
  });
});

describe('S3', () => {
  it('HEAD: a 404 is false, other refusals are thrown', async () => {
    s3.on(HeadObjectCommand).rejects(awsError('NotFound', 404));
    expect(await objectExists('k')).toBe(false);
    s3.on(HeadObjectCommand).resolves({});
    expect(await objectExists('k')).toBe(true);
    s3.on(HeadObjectCommand).rejects(awsError('Forbidden', 403));
    await expect(objectExists('k')).rejects.toMatchObject({ name: 'Forbidden' });
  });

  it('GET: a missing object is undefined, a 5xx is thrown', async () => {
    s3.on(GetObjectCommand).rejects(awsError('NoSuchKey', 404));
    expect(await readObjectStream('k')).toBeUndefined();
    s3.on(GetObjectCommand).rejects(awsError('InternalError', 500));
    await expect(readObjectStream('k')).rejects.toMatchObject({ name: 'InternalError' });
  });

  it('deletes 1,000 keys per quiet DeleteObjects request', async () => {
    s3.on(DeleteObjectsCommand).resolves({});
    await deleteObjects(Array.from({ length: 2001 }, (_, i) => `k/${i}`));
    const calls = s3.commandCalls(DeleteObjectsCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => c.Delete!.Objects!.length)).toEqual([1000, 1000, 1]);
    expect(calls.every((c) => c.Delete!.Quiet === true && c.Bucket === process.env.BUCKET_NAME)).toBe(true);
  });

  it('presigns with the SDK presigner: only host signed (a browser may send its Content-Type), 15 min to upload, 1 h to read', async () => {
    const put = new URL(await presignPut('orgs/org_1/uploads/a b.wav', 'audio/wav'));
    expect(put.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(put.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(put.searchParams.get('x-id')).toBe('PutObject');
    expect(put.pathname).toBe('/orgs/org_1/uploads/a%20b.wav');
    const get = new URL(await presignGet('orgs/org_1/uploads/a b.wav'));
    expect(get.searchParams.get('X-Amz-Expires')).toBe('3600');
    expect(get.searchParams.get('x-id')).toBe('GetObject');
  });
});
