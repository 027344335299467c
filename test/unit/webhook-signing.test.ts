import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, signedHeaders, signMessage } from '../../shared/domain/webhooks/signing.js';

/** HMAC-SHA256 built from SHA-256 by hand (RFC 2104), so the check does not reuse createHmac. */
function hmacSha256(key: Buffer, message: Buffer): Buffer {
  const block = 64;
  const k = key.length > block ? createHash('sha256').update(key).digest() : key;
  const padded = Buffer.concat([k, Buffer.alloc(block - k.length)]);
  const ipad = Buffer.from(padded.map((b) => b ^ 0x36));
  const opad = Buffer.from(padded.map((b) => b ^ 0x5c));
  const inner = createHash('sha256')
    .update(Buffer.concat([ipad, message]))
    .digest();
  return createHash('sha256')
    .update(Buffer.concat([opad, inner]))
    .digest();
}

describe('Standard Webhooks signatures', () => {
  it('matches the published test vector of the Standard Webhooks reference library', () => {
    // standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts, "sign function works".
    const signature = signMessage(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('signs "<id>.<timestamp>.<body>" with the base64-decoded secret, as an independent HMAC computes it', () => {
    const secret = newSigningSecret();
    const body = JSON.stringify({
      type: 'run.completed',
      timestamp: '2026-11-24T08:00:00.000Z',
      data: { id: 'run_1', name: 'naïve – ünïcode' },
    });
    const at = new Date('2026-11-24T08:00:01.900Z');
    const headers = signedHeaders(secret, 'msg_01ABC', at, body);
    expect(headers['webhook-id']).toBe('msg_01ABC');
    expect(headers['webhook-timestamp']).toBe('1795507201');
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = hmacSha256(key, Buffer.from(`msg_01ABC.1795507201.${body}`, 'utf8')).toString('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
    // Any change of id, timestamp or body changes the signature.
    expect(signMessage(secret, 'msg_01ABD', 1795507201, body)).not.toBe(headers['webhook-signature']);
    expect(signMessage(secret, 'msg_01ABC', 1795507202, body)).not.toBe(headers['webhook-signature']);
    expect(signMessage(secret, 'msg_01ABC', 1795507201, `${body} `)).not.toBe(headers['webhook-signature']);
  });

  it('makes secrets of whsec_ and the base64 of 32 random bytes, never the same twice', () => {
    const a = newSigningSecret();
    const b = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});
