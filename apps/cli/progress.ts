/**
 * Progress on stderr for long CLI runs, drawn in place and erased at the end, so a long run is
 * visibly alive and the terminal is left as if it had never been there:
 *  - `withRowProgress`: a live row count while `joinlab join` / `sort` produce a large result
 *    (`12,345,678 rows, 3.2 s`), redrawn at most twice a second (the total is unknown);
 *  - `countProgress`: a cli-progress bar over a known number of items (`joinlab sqllogictest`:
 *    `████░░░░ 120/269 records | 0 failed`).
 * Only when the target (stderr) is a terminal: piped or captured stderr (tests, scripts, CI) gets
 * nothing, which keeps the CLI's contract that an error is exactly one stderr line.
 */
import type { RecordBatch } from 'apache-arrow';
import { SingleBar } from 'cli-progress';

const REDRAW_MS = 500;
/** Nothing is drawn for runs shorter than this. */
const QUIET_MS = 1000;

export interface ProgressTarget {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/** `batches`, counting rows onto `target` (when it is a terminal) until they end or fail. */
export async function* withRowProgress(batches: AsyncIterable<RecordBatch>, target: ProgressTarget = process.stderr, verb = 'rows'): AsyncGenerator<RecordBatch> {
  if (!target.isTTY) {
    yield* batches;
    return;
  }
  const started = performance.now();
  let next = started + QUIET_MS;
  let rows = 0;
  let drawn = false;
  try {
    for await (const b of batches) {
      rows += b.numRows;
      const now = performance.now();
      if (now >= next) {
        target.write(`\r\x1b[2K${rows.toLocaleString('en-US')} ${verb}, ${((now - started) / 1000).toFixed(1)} s`);
        drawn = true;
        next = now + REDRAW_MS;
      }
      yield b;
    }
  } finally {
    if (drawn) target.write('\r\x1b[2K');
  }
}

/** A bar over a known number of items; see `countProgress`. */
export interface CountProgress {
  /** One more item done (`failed`: it also counts in the bar's failure count). */
  tick(failed?: boolean): void;
  /** Erases the bar (safe to call twice). */
  stop(): void;
}

const NO_PROGRESS: CountProgress = { tick() {}, stop() {} };

/**
 * A cli-progress bar over `total` items named `unit` on `target` with a failure count, redrawn
 * at most ten times a second and erased by `stop`; nothing at all when `target` is not a terminal.
 */
export function countProgress(total: number, unit: string, target: ProgressTarget = process.stderr): CountProgress {
  if (!target.isTTY || total <= 0) return NO_PROGRESS;
  const bar = new SingleBar({
    stream: target as unknown as NodeJS.WritableStream,
    format: ` {bar} {value}/{total} ${unit} | {failed} failed`,
    barsize: 30,
    clearOnComplete: true,
    hideCursor: false,
  });
  let done = 0;
  let failed = 0;
  let stopped = false;
  bar.start(total, 0, { failed });
  return {
    tick(f = false) {
      done++;
      if (f) failed++;
      if (!stopped) bar.update(Math.min(done, total), { failed });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar.stop();
    },
  };
}
