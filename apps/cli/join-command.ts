/**
 * `joinlab join`: one join over two files. The result streams: with `--out` each batch goes to
 * the output's temp file as it is produced (Parquet a row group at a time), renamed into place
 * only once the join has finished, so the file may be far larger than memory and a failed run
 * never leaves a partial output; without `--out` the first rows are kept for the preview and the
 * rest are counted, so memory stays bounded by the join's own state however large the result.
 * Before any of it, preflight.ts checks the flags and paths (inputs are regular files, `--out` is
 * writable and not an input), so those mistakes cost milliseconds, not a join.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Table, type RecordBatch, type Schema } from 'apache-arrow';
import { loadConfig } from '../../composition.ts';
import { Engine } from '../../composition.ts';
import { scanCounters, type ScanMetrics } from '../../core/metrics.ts';
import { UsageError } from '../../core/errors.ts';
import { assertRegularFile } from '../../core/input-file.ts';
import type { Config } from '../../core/config/schema.ts';
import type { MemoryMetrics } from '../../core/engine.ts';
import type { MemoryPool } from '../../core/memory/pool.ts';
import { writeBatches } from '../../adapters/io/index.ts';
import { previewValue } from '../../adapters/io/text.ts';
import { formatTable } from './format.ts';
import { withRowProgress } from './progress.ts';
import { preflightJoin } from './preflight.ts';

export interface JoinCommandOptions {
  left: string;
  right: string;
  on?: string;
  range?: string;
  type: string;
  algorithm?: string;
  filter?: string;
  select?: string;
  nullEqualsNull: boolean;
  nullAware: boolean;
  config?: string;
  set: string[];
  out?: string;
  json: boolean;
  /** Aborted when the process is interrupted (apps/cli/interrupt.ts). */
  signal?: AbortSignal;
}

const PREVIEW_ROWS = 10;
/** Preview cells longer than this are cut, with the number of bytes cut (format.ts). */
const PREVIEW_CELL_WIDTH = 40;

/**
 * `--filter @FILE`: the filter's text read from FILE (a filter of thousands of terms does not fit
 * an argument list), trimmed; a missing or unreadable FILE is a typed error naming it. `@@…` is a
 * filter that starts with a literal `@` (none does today: `@` is no operator of the grammar).
 */
export async function filterText(filter: string | undefined): Promise<string | undefined> {
  if (filter === undefined || !filter.startsWith('@')) return filter;
  if (filter.startsWith('@@')) return filter.slice(1);
  const path = filter.slice(1);
  if (path === '') throw new UsageError("--filter @FILE needs a file name after '@'");
  await assertRegularFile(path, '--filter file');
  return (await readFile(path, 'utf8')).trim();
}

export async function runJoinCommand(opts: JoinCommandOptions): Promise<void> {
  await preflightJoin(opts);
  opts = { ...opts, filter: await filterText(opts.filter) };
  const set = opts.algorithm ? [...opts.set, `join=${opts.algorithm}`] : opts.set;
  const config = await loadConfig({ file: opts.config, set });
  const engine = await commandEngine(config, opts.config);
  const stream = await engine.stream(
    { type: opts.type, on: opts.on, range: opts.range, filter: opts.filter, select: opts.select, nullEqualsNull: opts.nullEqualsNull, nullAware: opts.nullAware },
    opts.left,
    opts.right,
    { signal: opts.signal },
  );
  const { metrics } = stream;
  const head = await outputStream(stream, opts);
  if (opts.json) {
    const report = {
      rows: metrics.rows,
      elapsedMs: round(metrics.elapsedMs),
      // the algorithm that ran; chosenBy: the planner (`join: auto`) that chose it, or null
      algorithm: metrics.algorithm,
      chosenBy: metrics.chosenBy,
      config: configReport(metrics.config),
      scans: { left: scanReport(metrics.scans.left), right: scanReport(metrics.scans.right) },
      operators: metrics.operators,
      memory: memoryReport(metrics.memory),
      ...(opts.out ? { out: opts.out } : {}),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const algorithm = metrics.chosenBy !== null ? `${metrics.algorithm}, chosen by ${metrics.chosenBy}` : metrics.algorithm;
  process.stdout.write(`${metrics.rows} rows in ${round(metrics.elapsedMs)} ms (${algorithm})${opts.out ? ` -> ${opts.out}` : ''}\n`);
  if (head !== null && head.numRows > 0) process.stdout.write(`${preview(head, metrics.rows)}\n`);
}

/** The first PREVIEW_ROWS rows of the stream (copied out of their batches); the rest are only counted. */
export async function previewHead(schema: Schema, batches: AsyncIterable<RecordBatch>): Promise<Table> {
  const kept: RecordBatch[] = [];
  let rows = 0;
  for await (const b of batches) {
    if (rows >= PREVIEW_ROWS || b.numRows === 0) continue;
    const n = Math.min(PREVIEW_ROWS - rows, b.numRows);
    kept.push(b.slice(0, n));
    rows += n;
  }
  return new Table(schema, kept);
}

/** The config for `--json`: an unlimited `memoryLimit` as null (JSON has no Infinity). */
export function configReport(config: Config): Record<string, unknown> {
  return { ...config, memoryLimit: Number.isFinite(config.memoryLimit) ? config.memoryLimit : null };
}

/** A run's memory for `--json`, with the process's peak RSS. */
export function memoryReport(memory: MemoryMetrics) {
  return {
    limit: Number.isFinite(memory.limit) ? memory.limit : null,
    limitSource: memory.limitSource,
    peakReservedBytes: memory.peakReservedBytes,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}

/** The command's engine; extensions named in `--config`'s file resolve against its folder. */
export function commandEngine(config: Config, configFile: string | undefined): Promise<Engine> {
  return Engine.create(config, { baseDir: configFile ? dirname(resolve(configFile)) : undefined });
}

/**
 * A result stream's output: written to `--out`, or previewed (`writeOrPreview`); rows are counted
 * on the terminal as they come unless the output is `--json`.
 */
export function outputStream(
  stream: { readonly schema: Schema; readonly batches: AsyncIterable<RecordBatch>; readonly pool: MemoryPool },
  opts: { readonly json?: boolean; readonly out?: string },
): Promise<Table | null> {
  const batches = opts.json ? stream.batches : withRowProgress(stream.batches);
  return writeOrPreview(stream.schema, batches, opts.out, stream.pool);
}

/** `--out`: the whole stream written to the file (null); else the preview's first rows, the rest counted. */
export async function writeOrPreview(schema: Schema, batches: AsyncIterable<RecordBatch>, out: string | undefined, pool: MemoryPool): Promise<Table | null> {
  if (out === undefined) return previewHead(schema, batches);
  await writeBatches(out, schema, batches, { pool });
  return null;
}

/** A scan's counters for `--json` (without `bytesSkipped`), its time rounded. */
export function scanReport(m: ScanMetrics) {
  return { ...scanCounters(m, ['bytesSkipped', 'elapsedMs']), elapsedMs: round(m.elapsedMs) };
}

export function preview(table: Table, totalRows: number): string {
  const n = Math.min(PREVIEW_ROWS, table.numRows);
  const names = table.schema.fields.map((f) => f.name);
  const rows: unknown[][] = [];
  for (let i = 0; i < n; i++) rows.push(names.map((_, c) => previewValue(table.getChildAt(c)!, i, table.schema.fields[c])));
  const more = totalRows > n ? `\n… ${totalRows - n} more rows (use --out FILE to write them all)` : '';
  return formatTable(names, rows, { maxCellWidth: PREVIEW_CELL_WIDTH }) + more;
}

export function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
