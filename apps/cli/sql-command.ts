/**
 * `joinlab sql "SELECT …" --data DIR | --table name=FILE … [--config F] [--set k=v] [--compare]
 * [--explain] [--out FILE] [--json]`: runs a query on joinlab's operators (`Engine.sql`) over
 * Parquet / Arrow / CSV files, and with `--compare` runs the same text in DuckDB on the same files and
 * reports equal, or the missing and extra rows (exit 1). `--explain` prints the plan that ran as a
 * tree (adapters/sql/explain.ts): per join its algorithm, keys, strategies and published filter,
 * per table the filters in force in its scan and the containers pruned, per operator rows and
 * time — read after the run, like DuckDB's EXPLAIN ANALYZE.
 *
 * Tables: `--data DIR` names every Parquet / Arrow / CSV file in DIR by its stem (a CSV file's
 * header names its columns and their types are inferred, adapters/io/csv-read.ts); `--table name=FILE`
 * adds or overrides one. A name given twice, a missing file, or a file of another format is a
 * `UsageError` before any query runs.
 *
 * Comparison: with `--out`, of the file as written, read back by its format
 * (adapters/duckdb/read-back.ts) — what the user gets, so a writer that changed a value shows;
 * without it, of the result in memory. As multisets (compare.ts), and when the query has ORDER BY, the ORDER BY columns
 * must also agree row by row — the order itself is checked, while rows that tie on every key may
 * come in any order (SQL leaves that open; DuckDB and joinlab may differ there and both be right).
 */
import { sipSummary } from '../../adapters/sql/sip-run.ts';
import { readdir } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import { formatExplain } from '../../adapters/sql/explain.ts';
import { Table, type RecordBatch } from 'apache-arrow';
import { loadConfig } from '../../composition.ts';
import { UsageError } from '../../core/errors.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { readWrittenFile } from '../../adapters/duckdb/read-back.ts';
import { writeBatches } from '../../adapters/io/index.ts';
import { openScan } from '../../adapters/io/open.ts';
import { commandEngine, configReport, preview, round, scanReport } from './join-command.ts';

export interface SqlCommandOptions {
  data?: string;
  table: string[];
  config?: string;
  set: string[];
  compare: boolean;
  explain: boolean;
  out?: string;
  json: boolean;
  signal?: AbortSignal;
}

const PARQUET = new Set(['.parquet', '.pq']);
const ARROW = new Set(['.arrow', '.ipc', '.feather']);
const CSV = new Set(['.csv']);
const readable = (ext: string) => PARQUET.has(ext) || ARROW.has(ext) || CSV.has(ext);

/** name -> absolute file path, from `--data` then `--table` (which may override a `--data` name). */
export async function sqlTables(opts: Pick<SqlCommandOptions, 'data' | 'table'>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (opts.data !== undefined) {
    let names: string[];
    try {
      names = await readdir(opts.data);
    } catch {
      throw new UsageError(`--data ${opts.data}: not a readable directory`);
    }
    for (const f of names.sort()) {
      const ext = extname(f).toLowerCase();
      if (!readable(ext)) continue;
      const stem = basename(f, extname(f));
      if (stem in out) throw new UsageError(`--data ${opts.data}: two files are named '${stem}' (${basename(out[stem]!)} and ${f})`);
      out[stem] = resolve(opts.data, f);
    }
  }
  const given = new Set<string>();
  for (const t of opts.table) {
    const eq = t.indexOf('=');
    if (eq <= 0 || eq === t.length - 1) throw new UsageError(`--table expects NAME=FILE, got '${t}'`);
    const name = t.slice(0, eq);
    if (given.has(name)) throw new UsageError(`--table names '${name}' twice`);
    given.add(name);
    const path = resolve(t.slice(eq + 1));
    const ext = extname(path).toLowerCase();
    if (!readable(ext)) throw new UsageError(`--table ${name}=${t.slice(eq + 1)}: expected a .parquet, .arrow or .csv file`);
    out[name] = path;
  }
  if (Object.keys(out).length === 0) throw new UsageError('sql needs tables: --data DIR (its .parquet / .arrow / .csv files) or --table NAME=FILE');
  return out;
}

/** Runs the command; false when `--compare` found a difference. */
export async function runSqlCommand(sql: string, opts: SqlCommandOptions): Promise<boolean> {
  const tables = await sqlTables(opts);
  const config = await loadConfig({ file: opts.config, set: opts.set });
  // typed errors for missing / corrupt files, before the query; held until it ends, so the query
  // reuses a CSV table parsed here (adapters/io/csv-read.ts) instead of parsing it again
  const opened = [];
  for (const [name, path] of Object.entries(tables)) opened.push(await openScan(path, name, { csv: { batchSize: config.batchSize } }));
  const engine = await commandEngine(config, opts.config);
  // DuckDB opens only for --compare, and after joinlab's run: its start-up is in neither time
  let duck: DuckDBSession | null = null;
  try {
    const started = performance.now();
    const result = await engine.sql(sql, tables, { signal: opts.signal });
    const elapsedMs = performance.now() - started;
    if (opts.out !== undefined) await writeBatches(opts.out, result.table.schema, result.table.batches);
    let comparison: { equal: boolean; text: string; missing: number; extra: number; orderProblem: string | null; duckdbMs: number } | null = null;
    if (opts.compare) {
      duck = await DuckDBSession.open({ threads: 1 });
      for (const [name, path] of Object.entries(tables)) {
        if (PARQUET.has(extname(path).toLowerCase())) await duck.createViewOnParquet(name, path);
        else await duck.loadTable(name, await readWhole(path, name));
      }
      // DuckDB's time: the query on views of the Parquet files (Arrow files are loaded before it)
      const duckStarted = performance.now();
      const expected = await duck.query(sql);
      const duckdbMs = performance.now() - duckStarted;
      // with --out, what is compared is what the file holds, read back by its format
      const actual = opts.out === undefined ? result.table : await readWrittenFile(duck, opts.out, result.table.schema);
      const r = compareResults(actual, expected);
      const orderProblem = r.equal ? orderDifference(actual, expected, result.orderedBy) : null;
      comparison = { equal: r.equal && orderProblem === null, text: r.equal ? (orderProblem ?? '') : formatComparison(r), missing: r.missingCount, extra: r.extraCount, orderProblem, duckdbMs };
    }
    const ratio = comparison === null || comparison.duckdbMs <= 0 ? null : elapsedMs / comparison.duckdbMs;
    if (opts.json) {
      const report = {
        rows: result.table.numRows,
        elapsedMs: round(elapsedMs),
        config: configReport(engine.config),
        scans: result.scans.map((x) => ({ table: x.table, alias: x.alias, filters: x.filters, ...scanReport(x.metrics) })),
        ...(opts.explain ? { plan: result.plan } : {}),
        sip: result.sip.map(sipSummary),
        joins: result.joins.map((m) => ({ algorithm: m.algorithm, rows: m.rows, elapsedMs: round(m.elapsedMs), scans: { left: scanReport(m.scans.left), right: scanReport(m.scans.right) }, operators: m.operators })),
        ...(comparison !== null
          ? { compare: { equal: comparison.equal, missing: comparison.missing, extra: comparison.extra, order: comparison.orderProblem, duckdbMs: round(comparison.duckdbMs), ratio: ratio === null ? null : Math.round(ratio * 1000) / 1000 } }
          : {}),
        ...(opts.out !== undefined ? { out: opts.out } : {}),
      };
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      const joins = result.joins.length;
      process.stdout.write(`${result.table.numRows} rows in ${round(elapsedMs)} ms (${joins} join${joins === 1 ? '' : 's'})${opts.out ? ` -> ${opts.out}` : ''}\n`);
      if (opts.out === undefined && result.table.numRows > 0) process.stdout.write(`${preview(result.table, result.table.numRows)}\n`);
      if (opts.explain) process.stdout.write(`\n${formatExplain(result.plan)}`);
      if (comparison !== null) {
        const what = opts.out === undefined ? '' : ` (${opts.out} as read back)`;
        process.stdout.write(comparison.equal ? `equal to DuckDB${what}\n` : `differs from DuckDB${what}:\n${comparison.text}\n`);
        process.stdout.write(`time: joinlab ${round(elapsedMs)} ms, DuckDB ${round(comparison.duckdbMs)} ms${ratio === null ? '' : ` (ratio ${ratio.toFixed(2)}x: joinlab / DuckDB)`}\n`);
      }
    }
    return comparison === null || comparison.equal;
  } finally {
    opened.length = 0;
    await duck?.close();
  }
}

async function readWhole(path: string, name: string): Promise<Table> {
  const scan = await openScan(path, name);
  const batches: RecordBatch[] = [];
  for await (const b of scan.batches()) batches.push(b);
  return batches.length === 0 ? new Table(scan.schema) : new Table(batches);
}

/**
 * The first row where the ORDER BY columns of the two (multiset-equal, so same-shaped) tables
 * disagree, or null. A column is found by name in joinlab's result and taken at the same position
 * in DuckDB's: names may repeat (`SELECT a.k, b.k`), positions do not.
 */
function orderDifference(actual: Table, expected: Table, columns: readonly string[]): string | null {
  if (columns.length === 0) return null;
  const text = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
  const at = columns.map((c) => actual.schema.fields.findIndex((f) => f.name === c));
  if (at.some((i) => i < 0 || i >= expected.numCols)) return `no column ${columns.find((_c, k) => at[k]! < 0 || at[k]! >= expected.numCols)} to check the order on`;
  const a = at.map((i) => actual.getChildAt(i)!);
  const e = at.map((i) => expected.getChildAt(i)!);
  for (let r = 0; r < actual.numRows; r++) {
    for (let c = 0; c < columns.length; c++) {
      if (text(a[c]!.get(r)) !== text(e[c]!.get(r))) return `row ${r + 1}: ORDER BY ${columns.join(', ')} is ${text(columns.map((_x, i) => a[i]!.get(r)))} here, ${text(columns.map((_x, i) => e[i]!.get(r)))} in DuckDB`;
    }
  }
  return null;
}
