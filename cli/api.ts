/**
 * The HTTP side of evalctl: the service's API with a Bearer key, over fetch. A non-2xx answer or
 * an unreachable service is an `ApiError`; `forCli()` is the one line evalctl prints.
 */

import { inCliTerms } from './flags.js';

/** What the service answered, when it answered: the request, the status and its message. */
export interface ApiAnswer {
  method: string;
  path: string;
  status: number;
  /** The answer's `message` (or its text, first 500 characters); empty when it had none. */
  detail: string;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly answer?: ApiAnswer,
  ) {
    super(message);
  }

  /** The line evalctl prints: the API's message with the fields evalctl sets named by their flags. */
  forCli(): string {
    const a = this.answer;
    if (!a) return this.message;
    return `${a.method} ${a.path} answered ${a.status}${a.detail ? `: ${inCliTerms(a.detail)}` : ''}`;
  }
}

export interface ApiOptions {
  url: string;
  key: string;
}

type Query = Record<string, string | undefined>;

export class Api {
  private readonly base: string;
  constructor(private readonly options: ApiOptions) {
    // `https://host/v1/` and `https://host/v1` both name the API root.
    this.base = options.url.replace(/\/+$/, '');
  }

  private async send(method: string, path: string, query: Query = {}, body?: unknown): Promise<Response> {
    const params = new URLSearchParams(
      Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined),
    ).toString();
    const url = `${this.base}${path}${params ? `?${params}` : ''}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.options.key}`,
          'user-agent': 'evalctl',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ApiError(`cannot reach ${this.base}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
    }
    if (!res.ok) {
      const text = await res.text();
      let message = text.trim().slice(0, 500);
      try {
        const parsed = JSON.parse(text) as { message?: unknown };
        if (typeof parsed.message === 'string') message = parsed.message;
      } catch {
        // not JSON: the text as it came
      }
      throw new ApiError(`${method} ${path} answered ${res.status}${message ? `: ${message}` : ''}`, {
        method,
        path,
        status: res.status,
        detail: message,
      });
    }
    return res;
  }

  async json<T>(method: string, path: string, query: Query = {}, body?: unknown): Promise<T> {
    const res = await this.send(method, path, query, body);
    try {
      return (await res.json()) as T;
    } catch {
      throw new ApiError(`${method} ${path} answered ${res.status} with a body that is not JSON`);
    }
  }

  async text(path: string, query: Query = {}): Promise<string> {
    return (await this.send('GET', path, query)).text();
  }
}
