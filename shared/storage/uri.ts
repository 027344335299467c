import { ValidationError } from '../errors.js';

/**
 * Canonical storage URIs: S3 objects are
 * `s3://<bucket>/<key>`; Azure blobs are the blob URL without its (SAS) query. Every field that
 * stores a URI goes through `canonicalStorageUri`.
 */
export interface S3Location {
  bucket: string;
  key: string;
}

const VIRTUAL_HOSTED = /^(.+)\.s3(?:[.-](?:dualstack\.)?[a-z0-9-]+)?\.amazonaws\.com(?:\.cn)?$/;
const PATH_STYLE = /^s3(?:[.-](?:dualstack\.)?[a-z0-9-]+)?\.amazonaws\.com(?:\.cn)?$/;
const AZURE_BLOB = /^[a-z0-9]{3,24}\.blob\.core\.windows\.net$/;

function decodeKey(path: string): string {
  return path
    .split('/')
    .map((p) => decodeURIComponent(p))
    .join('/');
}

/**
 * @param localEndpoints S3-compatible endpoints whose path-style URLs are also S3 (the local emulator).
 */
export function canonicalStorageUri(raw: string, field: string, localEndpoints: string[] = []): string {
  const value = raw.trim();
  const invalid = () =>
    new ValidationError(
      `${field} must be an s3:// URI, an S3 HTTPS URL or an Azure Blob URL (got ${value.slice(0, 100)})`,
    );
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid();
  }
  if (url.protocol === 's3:') {
    const bucket = url.hostname;
    const key = decodeKey(url.pathname.replace(/^\//, ''));
    if (!bucket || !key || url.search) throw invalid();
    return `s3://${bucket}/${key}`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid();
  const host = url.hostname.toLowerCase();
  const path = url.pathname.replace(/^\//, '');
  const vhost = VIRTUAL_HOSTED.exec(host);
  if (vhost && url.protocol === 'https:') {
    if (!path) throw invalid();
    return `s3://${vhost[1]}/${decodeKey(path)}`;
  }
  const isLocal = localEndpoints.some((e) => {
    try {
      return new URL(e).host === url.host;
    } catch {
      return false;
    }
  });
  if ((PATH_STYLE.test(host) && url.protocol === 'https:') || isLocal) {
    const slash = path.indexOf('/');
    if (slash <= 0 || slash === path.length - 1) throw invalid();
    return `s3://${path.slice(0, slash)}/${decodeKey(path.slice(slash + 1))}`;
  }
  if (AZURE_BLOB.test(host) && url.protocol === 'https:') {
    const parts = path.split('/');
    if (parts.length < 2 || !parts[0] || !parts.slice(1).join('/')) throw invalid();
    return `https://${host}/${path}`;
  }
  throw invalid();
}

export function parseS3Uri(uri: string): S3Location | undefined {
  const m = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  return m ? { bucket: m[1]!, key: m[2]! } : undefined;
}

export function s3Uri(bucket: string, key: string): string {
  return `s3://${bucket}/${key}`;
}

/** The key prefix of an organization's objects. */
export function orgPrefix(orgId: string): string {
  return `orgs/${orgId}/`;
}
