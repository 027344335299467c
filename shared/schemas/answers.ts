/**
 * The building blocks of the records the API answers with (the response schemas of the OpenAPI
 * document and the types of the generated client), and the answers every resource shares. Each
 * resource's record lives in its own module beside its request schemas, so a route's bundle builds
 * only the schemas of its own resource when it loads.
 */
import * as Type from '@sinclair/typebox';
import type { TSchema } from '@sinclair/typebox';
import { DateTime } from './common.js';

/** A string field of an answer (it describes what the service writes, so it carries no input bounds). */
export const S = Type.String();
/** A count or other whole number ≥ 0. */
export const Int = Type.Integer({ minimum: 0 });
export const Strings = Type.Array(Type.String());
/** An object of any fields (metadata, context, inputs). */
export const FreeObject = Type.Record(Type.String(), Type.Unknown());
/** Present once the record is soft-deleted (only `GET /<resource>/{id}` still shows it). */
export const deletedAt = Type.Optional(Type.String({ format: 'date-time', description: 'present once deleted' }));
/** A named record: its title is its name in the OpenAPI document and the generated client. */
export const record = <P extends Record<string, TSchema>>(title: string, properties: P, description: string) =>
  Type.Object(properties, { title, description });

export const ErrorBody = record(
  'Error',
  {
    error: Type.String({ description: 'the HTTP reason phrase, e.g. Bad Request' }),
    message: Type.String({ description: 'what went wrong: names the field and the rule' }),
  },
  'Every error answer: `{error, message}`.',
);

export const Deleted = record(
  'Deleted',
  { id: S, deletedAt: DateTime },
  'A soft delete: the record stays readable by `GET /<resource>/{id}` with its `deletedAt`.',
);

export const BatchDeleted = record(
  'BatchDeleted',
  { ids: Strings, deletedAt: DateTime },
  'An all-or-nothing batch soft delete.',
);
