/** The answers of `GET /build-info`: the build of the API and of each service behind it. */
import * as Type from '@sinclair/typebox';
import { StringEnum } from './common.js';
import { S, record } from './answers.js';

const Stamp = Type.Object({ version: S, commit: S, buildDate: S });
export const BuildInfoRecord = record('BuildInfo', { api: Stamp }, 'The API build.');
export const BuildInfoServicesRecord = record(
  'BuildInfoServices',
  {
    api: Stamp,
    services: Type.Array(
      Type.Object({ name: S, status: StringEnum(['ok', 'unreachable'] as const), version: S, commit: S, buildDate: S }),
    ),
  },
  'The API build and the build of each downstream service; one that is down is `unreachable`.',
);
