/**
 * `joinlab join`: one join over two files. The result is fully computed before anything is
 * written, and written atomically, so a failed run never leaves a partial output file.
 */
import { dirname, resolve } from 'node:path';
import type { Table } from 'apache-arrow';
import { loadConfig } from '../../core/config/load.ts';
import { Engine } from '../../core/engine.ts';
import type { ScanMetrics } from '../../core/metrics.ts';
import { writeTable } from '../io/index.ts';
import { previewValue } from '../io/text.ts';
import { formatTable } from './format.ts';

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
}

const PREVIEW_ROWS = 10;

export async function runJoinCommand(opts: JoinCommandOptions): Promise<void> {
  const set = opts.algorithm ? [...opts.set, `join=${opts.algorithm}`] : opts.set;
  const config = await loadConfig({ file: opts.config, set });
  const engine = await Engine.create(config, { baseDir: opts.config ? dirname(resolve(opts.config)) : undefined });
  const { table, metrics } = await engine.join(
    { type: opts.type, on: opts.on, range: opts.range, filter: opts.filter, select: opts.select, nullEqualsNull: opts.nullEqualsNull, nullAware: opts.nullAware },
    opts.left,
    opts.right,
  );
  if (opts.out) await writeTable(opts.out, table);
  if (opts.json) {
    const report = {
      rows: metrics.rows,
      elapsedMs: round(metrics.elapsedMs),
      algorithm: metrics.algorithm,
      config: { ...metrics.config, memoryLimit: Number.isFinite(metrics.config.memoryLimit) ? metrics.config.memoryLimit : null },
      scans: { left: scanReport(metrics.scans.left), right: scanReport(metrics.scans.right) },
      operators: metrics.operators,
      ...(opts.out ? { out: opts.out } : {}),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  process.stdout.write(`${metrics.rows} rows in ${round(metrics.elapsedMs)} ms (${metrics.algorithm})${opts.out ? ` -> ${opts.out}` : ''}\n`);
  if (!opts.out && table.numRows > 0) process.stdout.write(`${preview(table)}\n`);
}

function scanReport(m: ScanMetrics) {
  return {
    containersTotal: m.containersTotal,
    containersPruned: m.containersPruned,
    rowsDecoded: m.rowsDecoded,
    rowsAfterFilter: m.rowsAfterFilter,
    bytesDecoded: m.bytesDecoded,
    bytesRead: m.bytesRead,
    elapsedMs: round(m.elapsedMs),
  };
}

function preview(table: Table): string {
  const n = Math.min(PREVIEW_ROWS, table.numRows);
  const names = table.schema.fields.map((f) => f.name);
  const rows: unknown[][] = [];
  for (let i = 0; i < n; i++) rows.push(names.map((_, c) => previewValue(table.getChildAt(c)!, i, table.schema.fields[c])));
  const more = table.numRows > n ? `\n… ${table.numRows - n} more rows (use --out FILE to write them all)` : '';
  return formatTable(names, rows) + more;
}

export function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
