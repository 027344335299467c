/**
 * The AWS list prices `npm run bench:runs` prices a run at (bench/aws-cost.ts): US East
 * (N. Virginia), on-demand, no free tier, no Savings Plans, the first volume tier of each service.
 * The one place they are written: update `taken` with them.
 *
 * Taken 2026-11-28 from the services' pricing pages named in `source` (as stored copies and quotes
 * of those pages showed them; no live fetch of the pages was possible): check them there before
 * quoting a cost.
 */
export interface Price {
  /** US dollars per `per` units. */
  usd: number;
  per: number;
  /** What one unit is. */
  unit: string;
  source: string;
  taken: string;
}

const TAKEN = '2026-11-28';

export const AWS_PRICES = {
  /** The functions are arm64 (infra/constructs/app-function.ts), so Arm prices. */
  lambdaRequests: {
    usd: 0.2,
    per: 1_000_000,
    unit: 'Lambda request (invocation), any architecture',
    source: 'https://aws.amazon.com/lambda/pricing/',
    taken: TAKEN,
  },
  lambdaArmGbSeconds: {
    usd: 0.0000133334,
    per: 1,
    unit: 'Lambda GB-second on Arm (duration rounded up to 1 ms × memory), first 7.5 billion GB-s a month',
    source: 'https://aws.amazon.com/lambda/pricing/',
    taken: TAKEN,
  },
  dynamodbWriteRequestUnits: {
    usd: 0.625,
    per: 1_000_000,
    unit: 'DynamoDB on-demand write request unit (Standard table class): 1 KB written, 2 in a transaction',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    taken: TAKEN,
  },
  dynamodbReadRequestUnits: {
    usd: 0.125,
    per: 1_000_000,
    unit: 'DynamoDB on-demand read request unit (Standard table class): 4 KB strongly consistent, 8 KB eventually, 2 KB in a transaction',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    taken: TAKEN,
  },
  sqsRequests: {
    usd: 0.4,
    per: 1_000_000,
    unit: 'SQS standard queue request, each 64 KiB chunk of its payload one request (first 100 billion a month)',
    source: 'https://aws.amazon.com/sqs/pricing/',
    taken: TAKEN,
  },
  s3Tier1Requests: {
    usd: 0.005,
    per: 1000,
    unit: 'S3 Standard PUT, COPY, POST or LIST request',
    source: 'https://aws.amazon.com/s3/pricing/',
    taken: TAKEN,
  },
  s3Tier2Requests: {
    usd: 0.0004,
    per: 1000,
    unit: 'S3 Standard GET, SELECT or other request (DELETE is free)',
    source: 'https://aws.amazon.com/s3/pricing/',
    taken: TAKEN,
  },
  apiGatewayRestRequests: {
    usd: 3.5,
    per: 1_000_000,
    unit: 'API Gateway REST API request (first 333 million a month)',
    source: 'https://aws.amazon.com/api-gateway/pricing/',
    taken: TAKEN,
  },
} as const satisfies Record<string, Price>;

export type AwsPrices = { readonly [K in keyof typeof AWS_PRICES]: Price };

/** What `units` of a price cost, in US dollars. */
export const dollars = (units: number, price: Price): number => (units * price.usd) / price.per;
