import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** One fresh process's times, in milliseconds: the import alone, and the process from its start to the module loaded. */
export interface ColdTimes {
  import: number;
  process: number;
}

/**
 * Imports one bundle in a fresh Node process (this one's executable, with `env`) and times it:
 * wall time, or with `cpu` the CPU time the process spent (user + system), which other work on a
 * busy machine disturbs far less. The process time counts from the process's start
 * (`performance.timeOrigin`; CPU time since it started), so it holds Node's own start, as every
 * cold start does.
 */
export function coldTimes(file: string, clock: 'cpu' | 'wall', env: NodeJS.ProcessEnv): ColdTimes {
  const url = JSON.stringify(pathToFileURL(file).href);
  const script =
    clock === 'cpu'
      ? `const c = process.cpuUsage(); await import(${url}); const d = process.cpuUsage(c); const w = process.cpuUsage(); process.stdout.write(JSON.stringify([(d.user + d.system) / 1000, (w.user + w.system) / 1000]));`
      : `const t = performance.now(); await import(${url}); const e = performance.now(); process.stdout.write(JSON.stringify([e - t, e]));`;
  // The child's stderr is kept, not printed: a failure throws with it.
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [importTime, processTime] = JSON.parse(out) as [number, number];
  return { import: importTime, process: processTime };
}
