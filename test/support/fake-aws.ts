import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the fake service received. */
export interface FakeRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FakeAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Closes the connection without an answer (a connection dropped before the response). */
  drop?: boolean;
}

/**
 * A tiny HTTP server on 127.0.0.1 playing an AWS service for fault paths the emulators cannot
 * produce on demand: every request is recorded, `answer` decides the response (200 by default).
 */
export async function startFakeAws(answer: (req: FakeRequest) => FakeAnswer | undefined = () => undefined) {
  const requests: FakeRequest[] = [];
  let respond = answer;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      const out = respond(recorded) ?? {};
      if (out.drop) return void req.socket.destroy();
      res.writeHead(out.status ?? 200, out.headers ?? {});
      res.end(out.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    /** Replaces the answering rule (and forgets the recorded requests). */
    reset(next: (req: FakeRequest) => FakeAnswer | undefined = () => undefined) {
      requests.length = 0;
      respond = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An S3 XML error body. */
export const s3ErrorXml = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message><RequestId>req-1</RequestId></Error>`;
