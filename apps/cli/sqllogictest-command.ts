/**
 * `joinlab sqllogictest FILE|DIR… [--verbose] [--config F] [--set k=v]`: runs sqllogictest files
 * in DuckDB's dialect (apps/sqllogictest/run.ts): setup in an embedded DuckDB, every query
 * through joinlab. Prints each failure (file:line and why, then the query and both answers:
 * expected, and what joinlab gave, long blocks and lines cut), with `--verbose` each skip and its
 * reason too — as they happen, or, on a terminal, after a progress bar on stderr is erased
 * (nothing on stderr otherwise). A record that cannot run is one failure, never the end of the
 * run (apps/sqllogictest/run.ts); SIGINT / SIGTERM stop it between records. The last line is
 * `N passed, M failed, K skipped`; the exit code is 1 when M > 0.
 */
import { dirname, resolve } from 'node:path';
import { loadConfig } from '../../composition.ts';
import { UsageError } from '../../core/errors.ts';
import { Engine } from '../../composition.ts';
import { countSltRecords, runSltFiles, type SltOutcome } from '../sqllogictest/run.ts';
import { countProgress } from './progress.ts';

export interface SqllogictestOptions {
  verbose: boolean;
  config?: string;
  set: string[];
  /** SIGINT / SIGTERM: the run stops between records. */
  signal?: AbortSignal;
}

/** Runs the files; false when any record failed. */
export async function runSqllogictestCommand(paths: readonly string[], opts: SqllogictestOptions): Promise<boolean> {
  if (paths.length === 0) throw new UsageError('sqllogictest needs at least one FILE or DIR');
  const config = await loadConfig({ file: opts.config, set: opts.set });
  const engine = await Engine.create(config, { baseDir: opts.config ? dirname(resolve(opts.config)) : undefined });
  const files = paths.map((p) => resolve(p));
  let summary;
  // without a progress bar (stderr is not a terminal) each failure is printed as it happens, so a
  // long run shows its failures before it ends; with one, after the bar is erased
  const bar = process.stderr.isTTY === true;
  const print = (o: SltOutcome): void => {
    if (o.status === 'failed') process.stdout.write(`FAIL ${o.file}:${o.line}: ${o.reason ?? ''}\n${failureDetail(o)}`);
    else if (o.status === 'skipped' && opts.verbose) process.stdout.write(`skip ${o.file}:${o.line}: ${o.reason ?? ''}\n`);
  };
  try {
    const progress = countProgress(bar ? await countSltRecords(files) : 0, 'records');
    try {
      summary = await runSltFiles(
        files,
        engine,
        (o) => {
          progress.tick(o.status === 'failed');
          if (!bar) print(o);
        },
        { signal: opts.signal },
      );
    } finally {
      progress.stop();
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new UsageError(`sqllogictest: no such file or directory: ${(e as NodeJS.ErrnoException).path ?? paths.join(', ')}`);
    throw e;
  }
  if (bar) for (const o of summary.outcomes) print(o);
  process.stdout.write(`${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped\n`);
  return summary.failed === 0;
}

/** Lines of a block printed under a failure; a longer one keeps its first ones and says how many are left out. */
const MAX_BLOCK_LINES = 20;
/** Characters of one printed line; a longer one is cut and says how many are left out. */
const MAX_LINE_CHARS = 240;

function cut(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… (${line.length - MAX_LINE_CHARS} more characters)` : line;
}

function block(title: string, lines: readonly string[]): string {
  const shown = (lines.length > MAX_BLOCK_LINES ? [...lines.slice(0, MAX_BLOCK_LINES), `… (${lines.length - MAX_BLOCK_LINES} more lines)`] : lines).map(cut);
  return `  ${title}:\n${(shown.length === 0 ? ['(no rows)'] : shown).map((l) => `    ${l}`).join('\n')}\n`;
}

/** Under a FAIL line: the statement or query, the expected answer and joinlab's (when it ran). */
export function failureDetail(o: SltOutcome): string {
  let out = '';
  if (o.sql !== undefined) out += block(o.record ?? (o.expected !== undefined ? 'query' : 'statement'), o.sql.split('\n'));
  if (o.expected !== undefined) out += block('expected', o.expected);
  if (o.actual !== undefined) out += block('got', o.actual);
  return out;
}
