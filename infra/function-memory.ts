/**
 * The memory (MB) of each kind of function the stack makes. The stack reads these when it makes
 * the functions, and `npm run bench:runs` when it prices their GB-seconds (bench/aws-cost.ts), so
 * the price follows the deployment. No CDK import here: the bench loads it beside the local runtime.
 */
export const FUNCTION_MEMORY_MB = {
  /** Every API route and the authorizer (AppFunction's default). */
  api: 512,
  /** Every job: scanner, aggregator, evaluator, runner, deliverer, sweeper, generator. */
  job: 1024,
  /**
   * The voice job decodes a recording whole: a 2-hour 16 kHz 16-bit stereo WAV is 460 MB, held
   * about three times over (its bytes, wavefile's copy, the two channels) while it is read.
   */
  voice: 3008,
  /** Telephony's call control: more memory is more CPU, and its cold start must fit in Chime's 5 seconds. */
  callControl: 1024,
  /** The API reference's file server. */
  apiDocs: 256,
} as const;

/** The memory the stack gives the function of `handler` (a module under `functions/`, without extension). */
export function memoryOfHandler(handler: string): number {
  if (handler === 'jobs/call-control') return FUNCTION_MEMORY_MB.callControl;
  if (handler === 'jobs/voice-figures') return FUNCTION_MEMORY_MB.voice;
  if (handler.startsWith('jobs/')) return FUNCTION_MEMORY_MB.job;
  if (handler === 'docs/serve') return FUNCTION_MEMORY_MB.apiDocs;
  return FUNCTION_MEMORY_MB.api;
}
