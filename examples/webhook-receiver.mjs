// A local webhook receiver for the README's walkthrough: prints each delivery (its type and a few
// fields) and whether its Standard Webhooks signature is valid for WEBHOOK_SECRET (the `whsec_…` that
// POST /webhooks answered).
// Usage: WEBHOOK_SECRET=whsec_… node examples/webhook-receiver.mjs (127.0.0.1:$RECEIVER_PORT, default 3402).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const secret = process.env.WEBHOOK_SECRET ?? '';
const port = Number(process.env.RECEIVER_PORT ?? 3402);

/** `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">`, keyed by the secret's bytes. */
function verify(headers, rawBody) {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  if (!secret || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false; // no secret, or replayed or stale
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = Buffer.from(createHmac('sha256', key).update(`${id}.${ts}.${rawBody}`).digest('base64'));
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .some((s) => {
      const given = Buffer.from(s.slice(s.indexOf(',') + 1));
      return s.startsWith('v1,') && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    const { type, data } = JSON.parse(raw); // {type, timestamp, data}
    // A few fields of the event's data (a run, an alert, a ping's message), not the whole record.
    const shown = Object.fromEntries(['id', 'status', 'progress', 'score', 'message'].map((k) => [k, data?.[k]]));
    console.log(
      `webhook ${type}, signature ${verify(req.headers, raw) ? 'valid' : 'INVALID'}: ${JSON.stringify(shown)}`,
    );
    res.writeHead(204).end();
  });
}).listen(port, '127.0.0.1', () => console.log(`webhook receiver on http://127.0.0.1:${port}`));
