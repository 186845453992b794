/**
 * A live row count on stderr while `joinlab join` produces a large result (`12,345,678 rows,
 * 3.2 s`), redrawn in place at most twice a second and erased when the join ends, so a long run is
 * visibly alive and the terminal is left as if it had never been there.
 *
 * Only when stderr is a terminal and the output is not `--json`: piped or captured stderr (tests,
 * scripts, CI) gets nothing, which keeps the CLI's contract that an error is exactly one stderr
 * line. The wrapper costs one comparison per batch.
 */
import type { RecordBatch } from 'apache-arrow';

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
