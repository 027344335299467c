import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { ENV, optionalEnv, requireEnv } from '../config/env.js';
import { buildStamp, type BuildStamp } from './stamp.js';

export interface ServiceInfo extends BuildStamp {
  name: string;
  status: 'ok' | 'unreachable';
}

const PROBE_TIMEOUT_MS = 2000;
const endpoint = optionalEnv(ENV.lambdaEndpoint);
/** One attempt: a probe that fails is reported `unreachable`, not retried past its 2 seconds. */
const lambda = new LambdaClient({ ...(endpoint ? { endpoint } : {}), maxAttempts: 1 });

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
    const abortSignal = AbortSignal.timeout(timeoutMs);
    const res = await lambda.send(
      new InvokeCommand({ FunctionName: functionName, Payload: JSON.stringify({ probe: 'build-info' }) }),
      { abortSignal },
    );
    const payload = res.Payload ? Buffer.from(res.Payload).toString('utf8') : '';
    if (res.FunctionError || !payload) return { name, status: 'unreachable', ...UNKNOWN };
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
