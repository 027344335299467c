import { isIP } from 'node:net';
import { ValidationError } from '../../errors.js';
import { checkAddress, privateNetworksAllowed } from '../../outbound/guard.js';

/** An absolute http(s) URL without credentials whose literal address the network guard accepts. */
export function checkUrl(
  url: string,
  credentialsRule = 'url must not carry credentials; use authType and its fields',
): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ValidationError('url must be an absolute http or https URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ValidationError('url must be an absolute http or https URL');
  if (parsed.username || parsed.password) throw new ValidationError(credentialsRule);
  // A literal address the network guard would refuse is caught now rather than at every call
  //; names are resolved and checked at call time. The URL parser has already
  // normalised odd forms (`0x7f.1`, `2852039166`, `[::ffff:a9fe:a9fe]`).
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const check = checkAddress(host, privateNetworksAllowed());
    if (!check.ok) throw new ValidationError(`url must not point at a refused address: ${host} is ${check.kind}`);
  }
}
