import { httpHandler, ok } from '../../shared/http/handler.js';
import { StorageResolveQuery } from '../../shared/schemas/tests.js';
import { resolveStorageUri } from '../../shared/domain/tests/storage.js';

export const handler = httpHandler(
  { handler: 'storage/resolve', query: StorageResolveQuery },
  async ({ auth, query }) => ok(await resolveStorageUri(auth, query.uri)),
);
