/** The answers of the storage routes: presigned URLs to put and read an organization's files. */
import * as Type from '@sinclair/typebox';
import { Int, S, record } from './answers.js';

export const StorageUpload = record(
  'StorageUpload',
  {
    url: Type.String({ description: 'presigned PUT URL' }),
    uri: Type.String({ description: 'the canonical storage URI to send in `uri` fields' }),
    key: S,
    expiresInSeconds: Int,
  },
  'A presigned URL to upload one file into the organization’s storage.',
);
export const StorageDownload = record(
  'StorageDownload',
  { url: Type.String({ description: 'presigned GET URL' }), uri: S, expiresInSeconds: Int },
  'A presigned URL to read one stored file.',
);
