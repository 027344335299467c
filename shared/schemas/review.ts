import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateTime, Id, IdList, ListQueryBase, Name, Nullable, StringEnum } from './common.js';

/** Human review: queues of sessions people label, and what the labels say about a judge. */

export const REVIEW_ITEM_STATUSES = ['PENDING', 'DONE'] as const;
export type ReviewItemStatus = (typeof REVIEW_ITEM_STATUSES)[number];
/** How an item came into its queue: picked by hand, or drawn at random (only these correct a run's score). */
export const REVIEW_ORIGINS = ['picked', 'sample'] as const;
export type ReviewOrigin = (typeof REVIEW_ORIGINS)[number];

export const MAX_QUEUE_METRICS = 10;
export const MAX_REVIEWERS_PER_ITEM = 5;
export const MAX_SAMPLE_SIZE = 1000;
export const MAX_PICKED_SESSIONS = 100;
export const MAX_REVIEW_TEXT = 10_000;

const Instructions = Type.String({ maxLength: MAX_REVIEW_TEXT });
const ReviewersPerItem = Type.Integer({ minimum: 1, maximum: MAX_REVIEWERS_PER_ITEM });
const Reviewer = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '\\S',
  description: 'the name of the person labelling (the console asks it once); not an API key',
});
const Score = Type.Number({ minimum: 0, maximum: 1 });
const Seed = Type.String({
  minLength: 1,
  maxLength: 128,
  description: 'the same seed over the same sessions draws the same sample',
});
const SampleSize = Type.Integer({ minimum: 1, maximum: MAX_SAMPLE_SIZE });

export const ReviewQueueCreate = Type.Object(
  {
    productId: Id,
    name: Name,
    metricIds: Type.Array(Id, { minItems: 1, maxItems: MAX_QUEUE_METRICS, uniqueItems: true }),
    reviewersPerItem: Type.Optional(ReviewersPerItem),
    instructions: Type.Optional(Nullable(Instructions)),
  },
  { additionalProperties: false },
);
export type ReviewQueueCreate = Static<typeof ReviewQueueCreate>;

export const ReviewQueueUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    instructions: Type.Optional(Nullable(Instructions)),
    reviewersPerItem: Type.Optional(ReviewersPerItem),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ReviewQueueUpdate = Static<typeof ReviewQueueUpdate>;

export const ReviewQueueListQuery = Type.Object(
  { ...ListQueryBase, productIds: Type.Optional(IdList) },
  { additionalProperties: false },
);
export type ReviewQueueListQuery = Static<typeof ReviewQueueListQuery>;

export const ReviewQueue = Type.Object({
  id: Id,
  organizationId: Id,
  productId: Id,
  name: Type.String(),
  metricIds: Type.Array(Id),
  reviewersPerItem: Type.Integer(),
  instructions: Nullable(Type.String()),
  counts: Type.Object({ items: Type.Integer(), pending: Type.Integer(), done: Type.Integer() }),
  userId: Type.String(),
  createdAt: DateTime,
  deletedAt: Type.Optional(DateTime),
});
export type ReviewQueue = Static<typeof ReviewQueue>;

/**
 * POST /reviewQueues/{id}/items: exactly one of `sessionIds`, `runId` or `monitorId` (checked by
 * the use case, which names the fields given together).
 */
export const ReviewItemsAdd = Type.Object(
  {
    sessionIds: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: MAX_PICKED_SESSIONS, uniqueItems: true })),
    runId: Type.Optional(Id),
    monitorId: Type.Optional(Id),
    sampleSize: Type.Optional(SampleSize),
    seed: Type.Optional(Seed),
    from: Type.Optional(DateTime),
    to: Type.Optional(DateTime),
  },
  { additionalProperties: false },
);
export type ReviewItemsAdd = Static<typeof ReviewItemsAdd>;

export const ReviewLabel = Type.Object({
  reviewer: Type.String(),
  metricId: Id,
  score: Type.Number(),
  reason: Nullable(Type.String()),
  createdAt: DateTime,
});
export type ReviewLabel = Static<typeof ReviewLabel>;

export const ReviewItem = Type.Object({
  id: Id,
  queueId: Id,
  organizationId: Id,
  sessionId: Id,
  origin: StringEnum(REVIEW_ORIGINS),
  status: StringEnum(REVIEW_ITEM_STATUSES),
  labels: Type.Array(ReviewLabel),
  createdAt: DateTime,
});
export type ReviewItem = Static<typeof ReviewItem>;

export const ReviewItemsAdded = Type.Object({
  added: Type.Integer({ description: 'items added (fewer than sampleSize when fewer sessions were left to draw)' }),
  skipped: Type.Integer({ description: 'sessions already in the queue' }),
  seed: Nullable(Type.String({ description: 'the seed that drew a sample (give it again to draw the same one)' })),
  items: Type.Array(ReviewItem),
});

export const ReviewItemListQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(REVIEW_ITEM_STATUSES)),
    reviewer: Type.Optional(Reviewer),
    limit: ListQueryBase.limit,
    offset: ListQueryBase.offset,
  },
  { additionalProperties: false },
);
export type ReviewItemListQuery = Static<typeof ReviewItemListQuery>;

export const ItemParams = Type.Object({ id: Id, itemId: Id }, { additionalProperties: false });

export const NextItemBody = Type.Object({ reviewer: Reviewer }, { additionalProperties: false });
export type NextItemBody = Static<typeof NextItemBody>;

/** What a reviewer sees: the conversation and the instructions, never the judge's scores or reasons. */
export const ReviewTask = Type.Object({
  queueId: Id,
  itemId: Id,
  sessionId: Id,
  instructions: Nullable(Type.String()),
  metrics: Type.Array(Type.Object({ id: Id, name: Type.String(), description: Type.String() })),
  context: Nullable(Type.Unknown()),
  expectedOutput: Nullable(Type.String()),
  turns: Type.Array(
    Type.Object({
      index: Type.Integer(),
      input: Type.String(),
      output: Nullable(Type.String()),
      retrievalContext: Type.Array(Type.String()),
    }),
  ),
  remaining: Type.Integer({ description: 'PENDING items this reviewer has not labelled yet, this one included' }),
});
export type ReviewTask = Static<typeof ReviewTask>;

export const LabelsPut = Type.Object(
  {
    reviewer: Reviewer,
    labels: Type.Array(
      Type.Object(
        { metricId: Id, score: Score, reason: Type.Optional(Nullable(Type.String({ maxLength: MAX_REVIEW_TEXT }))) },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_QUEUE_METRICS },
    ),
  },
  { additionalProperties: false },
);
export type LabelsPut = Static<typeof LabelsPut>;

export const AgreementQuery = Type.Object(
  { productId: Type.Optional(Id), from: Type.Optional(DateTime), to: Type.Optional(DateTime) },
  { additionalProperties: false },
);
export type AgreementQuery = Static<typeof AgreementQuery>;

/** A 95% interval, shaped as every interval of the API (`confidenceInterval` of runs and monitors). */
export const Interval = Type.Object({ lower: Type.Number(), upper: Type.Number() });
export type Interval = Static<typeof Interval>;
const MaybeInterval = Type.Union([Interval, Type.Null()]);
const Rate = Nullable(Type.Number());

export const AGREEMENT_VERDICTS = ['calibrated', 'not_calibrated', 'not_enough_data'] as const;

export const Agreement = Type.Object({
  metricId: Id,
  n: Type.Integer({ description: 'sessions with a SUCCESS evaluation of the metric and at least one label of it' }),
  judgeMean: Rate,
  humanMean: Rate,
  bias: Rate,
  biasInterval: MaybeInterval,
  meanAbsoluteError: Rate,
  spearman: Rate,
  spearmanInterval: MaybeInterval,
  binary: Type.Boolean(),
  kappa: Rate,
  kappaInterval: MaybeInterval,
  truePositiveRate: Rate,
  trueNegativeRate: Rate,
  reviewers: Type.Object({ alpha: Rate, units: Type.Integer(), values: Type.Integer() }),
  verdict: StringEnum(AGREEMENT_VERDICTS),
});

/** A run metric's judge score corrected with sampled human labels (PPI++). */
export const CorrectedScore = Type.Object({
  score: Type.Number(),
  interval: Interval,
  labeled: Type.Integer(),
  unlabeled: Type.Integer(),
  lambda: Type.Number(),
  effectiveLabels: Nullable(Type.Number()),
});
export type CorrectedScore = Static<typeof CorrectedScore>;
