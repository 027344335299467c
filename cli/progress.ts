/**
 * How evalctl shows a run's progress, on stderr (stdout stays for the result, and for JSON only
 * with --json): a bar redrawn in place on a terminal (cli-progress), a line per 10% otherwise, so
 * a CI log gets ten lines rather than a thousand carriage returns.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  /** `finished`: the run's last reading (its final status is shown even when the count did not move). */
  update(done: number, total: number, status: string, finished?: boolean): void;
  stop(): void;
}

export function progressReporter(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: `${label} {bar} {percentage}% | {value}/{total} sessions | {status}`,
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(done, total, status) {
        if (!started) {
          bar.start(total, done, { status });
          started = true;
        } else {
          bar.setTotal(total);
          bar.update(done, { status });
        }
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let lastTenth = -1;
  return {
    update(done, total, status, finished = false) {
      const tenth = total > 0 ? Math.floor((done / total) * 10) : 0;
      if (tenth <= lastTenth && !finished) return;
      lastTenth = tenth;
      stream.write(`${label}: ${tenth * 10}% (${done}/${total} sessions, ${status})\n`);
    },
    stop() {},
  };
}
