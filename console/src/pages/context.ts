import type { Resources } from '../api/resources';

/** What a page gets: the API reads, where to draw, and a signal aborted when the user navigates away. */
export interface PageContext {
  api: Resources;
  main: HTMLElement;
  signal: AbortSignal;
  /** Replaces the page's content and title, and moves focus to its heading. */
  show(title: string, ...content: (Node | null)[]): void;
}

/** Waits `ms`, or rejects when the page is left. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
