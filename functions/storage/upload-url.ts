import { storageRoutes } from '../../shared/routes/storage.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { createUploadUrl } from '../../shared/domain/tests/storage.js';

export const handler = httpHandler(storageRoutes.uploadUrl, async ({ auth, query }) =>
  ok(await createUploadUrl(auth, query.fileName, query.contentType)),
);
