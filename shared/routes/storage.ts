import { route } from './route.js';
import { StorageDownload, StorageUpload } from '../schemas/storage.js';
import { StorageResolveQuery, StorageUploadQuery } from '../schemas/tests.js';

export const storageRoutes = {
  uploadUrl: route('GET', '/storage/generate-put-presigned-url', 'storage/upload-url', 'read', {
    capabilities: ['bucketWrite'],
    query: StorageUploadQuery,
    response: StorageUpload,
  }),
  resolve: route('GET', '/storage', 'storage/resolve', 'read', {
    capabilities: ['bucketRead'],
    query: StorageResolveQuery,
    response: StorageDownload,
  }),
};
