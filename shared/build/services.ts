import { httpRequest, jsonError, sendForText, signedClient } from '../aws/signed-http.js';
import { dnsSuffix, envRegion } from '../aws/sigv4.js';
import { ENV, optionalEnv, requireEnv } from '../config/env.js';
import { buildStamp, type BuildStamp } from './stamp.js';

export interface ServiceInfo extends BuildStamp {
  name: string;
  status: 'ok' | 'unreachable';
}

const PROBE_TIMEOUT_MS = 2000;
const endpoint = optionalEnv(ENV.lambdaEndpoint);
const lambda = signedClient('lambda');

/** Lambda's Invoke API (RequestResponse), signed for `lambda`, one attempt; resolves with the answer. */
function invoke(functionName: string, payload: string, signal: AbortSignal): Promise<{ headers: Record<string, string>; text: string }> {
  const base = endpoint ? endpoint.replace(/\/+$/, '') : `https://lambda.${envRegion()}.${dnsSuffix(envRegion())}`;
  const url = new URL(`${base}/2015-03-31/functions/${encodeURIComponent(functionName)}/invocations`);
  return sendForText(lambda, () => httpRequest('POST', url, { 'content-type': 'application/json' }, payload), jsonError, { maxAttempts: 1, signal });
}

/** The downstream services and the functions that answer for them (names set by infra). */
const services = [
  { name: 'evaluator', functionName: requireEnv(ENV.evaluatorFunction) },
  { name: 'scanner', functionName: requireEnv(ENV.scannerFunction) },
  { name: 'aggregator', functionName: requireEnv(ENV.aggregatorFunction) },
  { name: 'runner', functionName: requireEnv(ENV.runnerFunction) },
  { name: 'generator', functionName: requireEnv(ENV.generatorFunction) },
];

const UNKNOWN = { version: 'unknown', commit: 'unknown', buildDate: 'unknown' };

/** Asks one function for its stamp; any failure or a 2-second silence is `unreachable`, never a throw. */
export async function probe(name: string, functionName: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<ServiceInfo> {
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    const res = await invoke(functionName, JSON.stringify({ probe: 'build-info' }), signal);
    const payload = res.text;
    if (res.headers['x-amz-function-error'] || !payload) return { name, status: 'unreachable', ...UNKNOWN };
    const stamp = JSON.parse(payload) as Partial<BuildStamp>;
    if (typeof stamp.version !== 'string' || typeof stamp.commit !== 'string' || typeof stamp.buildDate !== 'string') {
      return { name, status: 'unreachable', ...UNKNOWN };
    }
    return { name, status: 'ok', version: stamp.version, commit: stamp.commit, buildDate: stamp.buildDate };
  } catch {
    return { name, status: 'unreachable', ...UNKNOWN };
  }
}

export async function buildInfoWithServices(): Promise<{ api: BuildStamp; services: ServiceInfo[] }> {
  const results = await Promise.all(services.map((s) => probe(s.name, s.functionName)));
  return { api: buildStamp, services: results };
}
