import { readFileSync } from 'node:fs';

/**
 * `npm start` runs this process under `sh -c` (npm's script shell) and tsx's own launcher. A
 * SIGTERM to npm reaches the shell, which dies without passing it on, so this process would run
 * on, holding DynamoDB Local, with nobody to stop it. The runtime watches the processes between it
 * and npm (found through /proc, Linux) and stops as if signalled when one of them is gone. Started
 * some other way (no npm among its ancestors, or no /proc), it watches nothing.
 */
export function launcherChain(pid = process.pid): number[] {
  const chain: number[] = [];
  let current = pid;
  for (let depth = 0; depth < 8; depth++) {
    const parent = parentOf(current);
    if (parent === undefined || parent <= 1) return [];
    chain.push(parent);
    if (isNpm(parent)) return chain;
    current = parent;
  }
  return [];
}

function parentOf(pid: number): number | undefined {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}

function isNpm(pid: number): boolean {
  try {
    // npm sets its process title ("npm start"), which replaces its command line as one string.
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    return /(^|[/\s])npm(-cli\.js)?(\s|$)/.test(command);
  } catch {
    return false;
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Calls `onGone` once, when a process of `chain` has ended (checked every `everyMs`). */
export function watchLauncher(chain: readonly number[], onGone: () => void, everyMs = 500): () => void {
  if (chain.length === 0) return () => {};
  const timer = setInterval(() => {
    if (chain.every(alive)) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
