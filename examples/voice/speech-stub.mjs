// An OpenAI-compatible speech and transcription server for trying voice runs without a speech model:
// POST /v1/audio/speech {input} answers the text spoken in tones (a 24 kHz WAV, tone-codec.mjs), and
// POST /v1/audio/transcriptions (multipart, `file`) reads such tones back as {text}. An agent that
// speaks through the same codec is understood word for word.
// Usage: node examples/voice/speech-stub.mjs (listens on 127.0.0.1:$PORT, default 3403), then point
// LLM_BASE_URL at http://127.0.0.1:3403/v1. Chat Completions are not served: the steps that need them
// (the judge, the simulated user) fail with an HTTP 404 against this stub alone.
import { createServer } from 'node:http';
import { textToWav, wavToText } from './tone-codec.mjs';

const port = Number(process.env.PORT ?? 3403);

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 */
const json = (res, status, body) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/**
 * @param {import('node:http').IncomingMessage} req
 * @param {Buffer} body
 * @param {import('node:http').ServerResponse} res
 */
async function answer(req, body, res) {
  const path = (req.url ?? '').split('?')[0]?.replace(/\/$/, '');
  if (req.method === 'POST' && path === '/v1/audio/speech') {
    /** @type {{ input?: unknown }} */
    let request;
    try {
      request = JSON.parse(body.toString('utf8'));
    } catch {
      return json(res, 400, { error: { message: 'the body is not JSON' } });
    }
    if (typeof request.input !== 'string') return json(res, 400, { error: { message: "'input' must be a string" } });
    return res.writeHead(200, { 'content-type': 'audio/wav' }).end(textToWav(request.input));
  }
  if (req.method === 'POST' && path === '/v1/audio/transcriptions') {
    const headers = { 'content-type': req.headers['content-type'] ?? '' };
    /** @type {FormData} */
    let form;
    try {
      form = await new Response(body, { headers }).formData();
    } catch {
      return json(res, 400, { error: { message: 'the body is not multipart/form-data' } });
    }
    const file = form.get('file');
    if (!(file instanceof Blob)) return json(res, 400, { error: { message: "the form has no 'file'" } });
    try {
      return json(res, 200, { text: wavToText(new Uint8Array(await file.arrayBuffer())) });
    } catch (error) {
      return json(res, 400, {
        error: { message: `the file is not a WAV file: ${/** @type {Error} */ (error).message}` },
      });
    }
  }
  return json(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
}

createServer((req, res) => {
  /** @type {Buffer[]} */
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    answer(req, Buffer.concat(chunks), res).catch((error) => json(res, 500, { error: { message: String(error) } }));
  });
}).listen(port, '127.0.0.1', () => console.log(`speech stub on http://127.0.0.1:${port}/v1`));
