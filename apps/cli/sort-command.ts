/**
 * `joinlab sort INPUT --by "col [desc] [nulls first], col2"`: one file's rows in sort-key order,
 * through `Engine.sortStream` — in memory while they fit `memoryLimit`, as sorted runs spilled to
 * the temp directory and merged past it (operators/sort/sort.ts), so the input may be far larger
 * than memory. Output as the join command does it: with `--out` the sorted batches stream into
 * the output's temp file, renamed into place only once the sort has finished (a failed or
 * interrupted run leaves no partial output, and its spill directory is removed); without it the
 * first rows are previewed and the rest counted. A terminal's stderr shows the rows written so
 * far while a long sort emits (nothing while it is still reading and spilling: no rows are out
 * yet). `--by` is checked (syntax, then the columns against the input's schema) and the paths are
 * checked (preflight.ts) before any row is read.
 */
import { loadConfig } from '../../composition.ts';
import { formatSortKeys, parseSortKeys } from '../../operators/sort/sort.ts';
import { commandEngine, configReport, memoryReport, outputStream, preview, round, scanReport } from './join-command.ts';
import { preflightSort } from './preflight.ts';

export interface SortCommandOptions {
  input: string;
  by: string;
  config?: string;
  set: string[];
  out?: string;
  json: boolean;
  /** Aborted when the process is interrupted (apps/cli/interrupt.ts). */
  signal?: AbortSignal;
}

export async function runSortCommand(opts: SortCommandOptions): Promise<void> {
  const keys = parseSortKeys(opts.by);
  await preflightSort(opts);
  const config = await loadConfig({ file: opts.config, set: opts.set });
  const engine = await commandEngine(config, opts.config);
  const stream = await engine.sortStream(opts.input, keys, { signal: opts.signal });
  const { metrics } = stream;
  const head = await outputStream(stream, opts);
  if (opts.json) {
    const report = {
      rows: metrics.rows,
      elapsedMs: round(metrics.elapsedMs),
      by: formatSortKeys(keys),
      config: configReport(metrics.config),
      scan: scanReport(metrics.scan),
      sort: metrics.sort,
      threads: metrics.threads,
      ...(metrics.parallelSort !== undefined ? { parallelSort: metrics.parallelSort } : {}),
      memory: memoryReport(metrics.memory),
      ...(opts.out ? { out: opts.out } : {}),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const s = metrics.sort;
  const how =
    s.runsSpilled === 0
      ? 'in memory'
      : `${s.runsSpilled} runs spilled, ${s.bytesSpilled} bytes; ${s.mergedRuns > 0 ? `${s.mergedRuns} intermediate merges, then ` : ''}a ${s.mergeFanIn}-way merge`;
  const threads = metrics.parallelSort !== undefined ? `; threads=${metrics.threads}: ${metrics.parallelSort}` : metrics.threads === '1' ? '' : `; threads=${metrics.threads}`;
  process.stdout.write(`${metrics.rows} rows sorted in ${round(metrics.elapsedMs)} ms (${how}${threads})${opts.out ? ` -> ${opts.out}` : ''}\n`);
  if (head !== null && head.numRows > 0) process.stdout.write(`${preview(head, metrics.rows)}\n`);
}
