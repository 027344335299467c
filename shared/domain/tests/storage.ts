import type { AuthContext } from '../../auth/context.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import { bucketName, localS3Endpoints, objectExists, presignGet, presignPut } from '../../storage/s3.js';
import { canonicalStorageUri, orgPrefix, parseS3Uri, s3Uri } from '../../storage/uri.js';
import { ulid } from '../common/ids.js';
import { safeFileName, UPLOAD_CONTENT_TYPES } from '../../storage/names.js';

export { safeFileName, UPLOAD_CONTENT_TYPES };

export async function createUploadUrl(
  auth: AuthContext,
  fileName: string,
  contentType: string,
): Promise<{ url: string; uri: string; key: string; expiresInSeconds: number }> {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (!(UPLOAD_CONTENT_TYPES as readonly string[]).includes(type)) {
    throw new ValidationError(`contentType must be one of: ${UPLOAD_CONTENT_TYPES.join(', ')}`);
  }
  const key = `${orgPrefix(auth.organizationId)}uploads/${ulid()}/${safeFileName(fileName)}`;
  return { url: await presignPut(key, type), uri: s3Uri(bucketName, key), key, expiresInSeconds: 15 * 60 };
}

/**
 * Checks that a canonical S3 URI names an object of this deployment's bucket under the caller's
 * prefix: another bucket → 400, another organization's prefix → 403. Returns the key.
 */
export function ownedKey(auth: AuthContext, uri: string, field: string): string {
  const canonical = canonicalStorageUri(uri, field, localS3Endpoints);
  const loc = parseS3Uri(canonical);
  if (!loc) throw new ValidationError(`${field} must name an object of this service's storage (s3://${bucketName}/…)`);
  if (loc.bucket !== bucketName)
    throw new ValidationError(`${field} names bucket ${loc.bucket}; this service stores files in ${bucketName}`);
  if (!loc.key.startsWith(orgPrefix(auth.organizationId)) || loc.key.split('/').includes('..')) {
    throw new ForbiddenError(`${field} names an object outside your organization's storage`);
  }
  return loc.key;
}

/** GET /storage?uri=: a playable presigned GET URL (1 hour) for an object of the caller's. */
export async function resolveStorageUri(
  auth: AuthContext,
  uri: string,
): Promise<{ url: string; uri: string; expiresInSeconds: number }> {
  const key = ownedKey(auth, uri, 'uri');
  if (!(await objectExists(key))) throw new NotFoundError(`no object at ${s3Uri(bucketName, key)}`);
  return { url: await presignGet(key), uri: s3Uri(bucketName, key), expiresInSeconds: 60 * 60 };
}
