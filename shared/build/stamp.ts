/** The build stamp of this bundle: injected by esbuild `define` at bundle time (infra/constructs). */
declare const __BUILD_STAMP__: { version: string; commit: string; buildDate: string } | undefined;

export interface BuildStamp {
  version: string;
  commit: string;
  buildDate: string;
}

/**
 * In a bundle, the stamp esbuild wrote in. Unbundled (local runtime, tests), the local runtime sets
 * BUILD_VERSION / BUILD_COMMIT / BUILD_DATE once at start; without them the values say so.
 */
export const buildStamp: BuildStamp =
  typeof __BUILD_STAMP__ !== 'undefined'
    ? __BUILD_STAMP__
    : {
        version: process.env.BUILD_VERSION ?? 'unbundled',
        commit: process.env.BUILD_COMMIT ?? 'unknown',
        buildDate: process.env.BUILD_DATE ?? 'unknown',
      };

/** The event a job function receives when build info asks for its stamp. */
export interface ProbeEvent {
  probe: 'build-info';
}

export function isProbe(event: unknown): event is ProbeEvent {
  return typeof event === 'object' && event !== null && (event as { probe?: unknown }).probe === 'build-info';
}
