import { storageRoutes } from '../../shared/routes/storage.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { resolveStorageUri } from '../../shared/domain/tests/storage.js';

export const handler = httpHandler(storageRoutes.resolve, async ({ auth, query }) =>
  ok(await resolveStorageUri(auth, query.uri)),
);
