// A tiny support agent for the README's walkthrough: POST {"message": "..."} → {"reply": "..."}.
// It knows three answers of examples/quality-cases.csv, gives out a phone number for damaged parcels
// (so the no_pii metric has something to find) and says so when it does not know.
// Usage: node examples/echo-agent.mjs (listens on 127.0.0.1:$AGENT_PORT, default 3401).
import { createServer } from 'node:http';

const ANSWERS = [
  [/order #?1042/i, 'Order #1042 shipped yesterday and should arrive on Thursday.'],
  [/refund/i, 'Refunds reach your card within 5 business days of us receiving the item.'],
  [/canada/i, 'Yes, we ship to Canada. Delivery takes 5 to 8 business days.'],
  [/damaged/i, 'Sorry about that! Call us at +1 415-555-0134 and we will send a replacement.'],
];
const port = Number(process.env.AGENT_PORT ?? 3401);

createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => {
    body += chunk;
  });
  req.on('end', () => {
    let message = '';
    try {
      message = String(JSON.parse(body).message ?? '');
    } catch {}
    const reply = ANSWERS.find(([pattern]) => pattern.test(message))?.[1] ?? `I don't know yet: "${message}"`;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ reply }));
  });
}).listen(port, '127.0.0.1', () => console.log(`echo agent on http://127.0.0.1:${port}`));
