import { httpHandler, ok } from '../../shared/http/handler.js';
import { StorageUploadQuery } from '../../shared/schemas/tests.js';
import { createUploadUrl } from '../../shared/domain/tests/storage.js';

export const handler = httpHandler(
  { handler: 'storage/upload-url', query: StorageUploadQuery },
  async ({ auth, query }) => ok(await createUploadUrl(auth, query.fileName, query.contentType)),
);
