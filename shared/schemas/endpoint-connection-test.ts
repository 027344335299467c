import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Nullable } from './common.js';
import { Int, S, record } from './answers.js';

/** `POST /endpointConnections/{id}/test`: one real call with the connection's settings. */
export const EndpointConnectionTestBody = Type.Object(
  {
    /** The turn's input: `user_message` and any other fields the template reads as `input.<name>`. */
    input: Type.Object(
      { user_message: Type.String({ maxLength: 250_000 }) },
      { additionalProperties: true, maxProperties: 100 },
    ),
    context: Type.Optional(Nullable(Type.String({ maxLength: 250_000 }))),
    /** Values of the template's other placeholders, e.g. `session_id`, `past_turns`, `language_code`. */
    variables: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.Unknown(), { maxProperties: 100 }),
    ),
  },
  { additionalProperties: false },
);
export type EndpointConnectionTestBody = Static<typeof EndpointConnectionTestBody>;

/** The answer: what was sent and received, with every secret value replaced by `***`; nothing is stored. */
export type EndpointConnectionTestResult = Static<typeof EndpointConnectionTestResultRecord>;

export const EndpointConnectionTestResultRecord = record(
  'EndpointConnectionTestResult',
  {
    request: Type.Union([
      Type.Object({ method: S, url: S, headers: Type.Record(Type.String(), Type.String()), body: Nullable(S) }),
      Type.Null(),
    ]),
    response: Type.Union([
      Type.Object({ status: Type.Integer(), headers: Type.Record(Type.String(), Type.String()), body: S }),
      Type.Null(),
    ]),
    extracted: Type.Object(
      {},
      { additionalProperties: true, description: "every outputMapping key's value (empty when the call failed)" },
    ),
    attempts: Int,
    latencyMs: Nullable(Type.Number({ minimum: 0 })),
    error: Nullable(Type.String({ description: 'why the call failed, or null' })),
  },
  'One call to the agent through the connection, as a run would make it (secrets redacted).',
);
