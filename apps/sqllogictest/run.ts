/**
 * Running sqllogictest files (issue 14): setup statements run in an embedded DuckDB; every
 * `query` runs through joinlab (`Engine.sql`) on the session's tables, exported to Arrow, and is
 * checked against the file's expected block. A query outside joinlab's SQL subset is a SKIP with
 * its reason, never a pass.
 *
 * The format's rules, as DuckDB's runner applies them (test/sqlite/sqllogictest*.cpp):
 *  - values are printed as DuckDB prints them — NULL as `NULL`, an empty string as `(empty)` —
 *    which this runner gets exactly by loading joinlab's result into the session and casting each
 *    column to VARCHAR there (so floats print with DuckDB's own shortest-round-trip rules);
 *  - `rowsort` sorts the rows by their printed values, `valuesort` sorts all values, `nosort`
 *    keeps the order the query gives;
 *  - an expected block may list one value per line instead of one row per line;
 *  - `N values hashing to H` is the MD5 of every printed value followed by a newline.
 * `statement error` passes when the statement fails (and its message contains the expected text,
 * when the record gives one); `statement maybe` passes either way. A file that `require`s an
 * extension other than parquet or json is skipped whole.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Table } from 'apache-arrow';
import { UnsupportedSqlError } from '../../core/errors.ts';
import { quoteIdent } from '../../core/expr/sql.ts';
import type { SqlEngine, SqlResult } from '../../adapters/sql/run.ts';
import { runSql } from '../../adapters/sql/run.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { parseSltFile, type SltRecord } from './parse.ts';

export interface SltOutcome {
  readonly file: string;
  readonly line: number;
  readonly status: 'passed' | 'failed' | 'skipped';
  /** Why it failed or was skipped. */
  readonly reason?: string;
  /** A failed record: its statement or query text. */
  readonly sql?: string;
  /** A failed query: the expected block as the file writes it (rows tab-separated, or `N values hashing to H`). */
  readonly expected?: readonly string[];
  /** A failed query that ran: joinlab's answer in the expected block's form (sorted as the record says). */
  readonly actual?: readonly string[];
}

export interface SltSummary {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly outcomes: readonly SltOutcome[];
}

const AVAILABLE = new Set(['parquet', 'json']);

/** Every `.test` file under the given files and directories, sorted. */
export async function sltFiles(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    if ((await stat(p)).isDirectory()) {
      const entries = await readdir(p, { recursive: true });
      for (const e of entries.sort()) if (e.endsWith('.test')) out.push(join(p, e));
    } else out.push(p);
  }
  return out;
}

/** How many outcomes running `paths` reports (what a progress bar counts to). */
export async function countSltRecords(paths: readonly string[]): Promise<number> {
  let n = 0;
  for (const f of await sltFiles(paths)) {
    const file = parseSltFile(await readFile(f, 'utf8'), f);
    n += file.requires.some((r) => !AVAILABLE.has(r)) ? 1 : file.records.length;
  }
  return n;
}

/** Runs one file in a fresh DuckDB session; `onRecord` reports progress. */
export async function runSltFile(path: string, engine: SqlEngine, onRecord: (o: SltOutcome) => void = () => {}): Promise<SltOutcome[]> {
  const file = parseSltFile(await readFile(path, 'utf8'), path);
  const missing = file.requires.filter((r) => !AVAILABLE.has(r));
  if (missing.length > 0) {
    const o: SltOutcome = { file: path, line: 1, status: 'skipped', reason: `requires ${missing.join(', ')}` };
    onRecord(o);
    return [o];
  }
  const duck = await DuckDBSession.open({ threads: 1 });
  const outcomes: SltOutcome[] = [];
  let tables: Record<string, Table> | null = null;
  try {
    for (const r of file.records) {
      const o = await runRecord(r);
      outcomes.push(o);
      onRecord(o);
    }
  } finally {
    await duck.close();
  }
  return outcomes;

  async function runRecord(r: SltRecord): Promise<SltOutcome> {
    const at = { file: path, line: r.line };
    if (r.kind === 'skip') return { ...at, status: 'skipped', reason: r.reason };
    if (r.kind === 'statement') {
      tables = null; // the session's data may change
      let error: string | null = null;
      try {
        await duck.run(r.sql);
      } catch (e) {
        error = (e as Error).message;
      }
      if (r.expect === 'maybe') return { ...at, status: 'passed' };
      const failed = { ...at, status: 'failed', sql: r.sql } as const;
      if (r.expect === 'ok') return error === null ? { ...at, status: 'passed' } : { ...failed, reason: `statement failed: ${error}` };
      if (error === null) return { ...failed, reason: 'statement succeeded, an error was expected' };
      if (r.error !== null && r.error !== '' && !error.includes(r.error.trim())) return { ...failed, reason: `error '${error}' does not contain '${r.error.trim()}'` };
      return { ...at, status: 'passed' };
    }
    tables ??= await sessionTables(duck);
    let result: SqlResult;
    try {
      result = await runSql(engine, r.sql, tables, { duck });
    } catch (e) {
      if (e instanceof UnsupportedSqlError) return { ...at, status: 'skipped', reason: e.message };
      return { ...at, status: 'failed', reason: `joinlab: ${(e as Error).message}`, sql: r.sql, expected: expectedLines(r) };
    }
    const rows = await printed(duck, result.table);
    const failed = { ...at, status: 'failed', sql: r.sql, expected: expectedLines(r), actual: actualLines(rows, r) } as const;
    if (rows.length > 0 && rows[0]!.length !== r.types.length) return { ...failed, reason: `${rows[0]!.length} columns, the record says ${r.types.length}` };
    const problem = compareExpected(rows, r);
    return problem === null ? { ...at, status: 'passed' } : { ...failed, reason: problem };
  }
}

/** Every table of the session's main schema, as Arrow. */
async function sessionTables(duck: DuckDBSession): Promise<Record<string, Table>> {
  const names = await duck.queryRows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE' AND table_name <> '__joinlab_result' ORDER BY 1");
  const out: Record<string, Table> = {};
  for (const [name] of names) out[String(name)] = await duck.query(`SELECT * FROM ${quoteIdent(String(name))}`);
  return out;
}

/** The result's values as DuckDB prints them (NULL, `(empty)`), row by row. */
async function printed(duck: DuckDBSession, table: Table): Promise<string[][]> {
  if (table.numCols === 0) return [];
  const names = table.schema.fields.map((_f, i) => `c${i}`);
  await duck.run('DROP TABLE IF EXISTS __joinlab_result');
  // the result may repeat a column name; load it under positional names
  await duck.loadTable('__joinlab_result', new Table(Object.fromEntries(names.map((n, i) => [n, table.getChildAt(i)!]))));
  const rows = await duck.queryRows(`SELECT ${names.map((n) => `CASE WHEN ${n} IS NULL THEN 'NULL' WHEN CAST(${n} AS VARCHAR) = '' THEN '(empty)' ELSE CAST(${n} AS VARCHAR) END`).join(', ')} FROM __joinlab_result`);
  return rows.map((r) => r.map(String));
}

type QueryRecord = Extract<SltRecord, { kind: 'query' }>;

/** The result's values in the record's order: rows sorted for `rowsort`, values sorted for `valuesort`. */
function sortedValues(rows: string[][], r: QueryRecord): { rows: string[][]; values: string[] } {
  const actual = rows.map((row) => [...row]);
  if (r.sort === 'rowsort') actual.sort((a, b) => cmpRows(a, b));
  let values = actual.flat();
  if (r.sort === 'valuesort') values = [...values].sort();
  return { rows: actual, values };
}

function md5Values(values: readonly string[]): string {
  return createHash('md5')
    .update(values.map((v) => `${v}\n`).join(''))
    .digest('hex');
}

/** Whether the expected block lists one value per line (several columns, one value a line). */
function onePerLine(r: QueryRecord, values: number): boolean {
  return 'rows' in r.expected && r.types.length > 1 && r.expected.rows.every((e) => e.length === 1) && r.expected.rows.length === values;
}

/** The record's expected block, as the file writes it (a failure prints it). */
function expectedLines(r: QueryRecord): string[] {
  if ('hash' in r.expected) return [`${r.expected.values} values hashing to ${r.expected.hash}`];
  return r.expected.rows.map((row) => row.join('\t'));
}

/** joinlab's answer in the expected block's form: hashed, one value a line, or rows (tab-separated). */
function actualLines(rows: string[][], r: QueryRecord): string[] {
  const s = sortedValues(rows, r);
  if ('hash' in r.expected) return [`${s.values.length} values hashing to ${md5Values(s.values)}`];
  if (r.sort === 'valuesort' || onePerLine(r, s.values.length)) return s.values;
  return s.rows.map((row) => row.join('\t'));
}

function compareExpected(rows: string[][], r: QueryRecord): string | null {
  const { values } = sortedValues(rows, r);
  if ('hash' in r.expected) {
    const hash = md5Values(values);
    if (values.length !== r.expected.values) return `${values.length} values, expected ${r.expected.values}`;
    return hash === r.expected.hash ? null : `values hash to ${hash}, expected ${r.expected.hash}`;
  }
  const expectedRows = r.expected.rows;
  const cols = r.types.length;
  // one value per line instead of one row per line
  const perValue = onePerLine(r, values.length);
  let expected = perValue ? expectedRows.map((e) => e[0]!) : expectedRows.flat();
  if (r.sort === 'valuesort') expected = [...expected].sort();
  if (r.sort === 'rowsort' && !perValue) {
    const sorted = expectedRows.map((e) => [...e]).sort((a, b) => cmpRows(a, b));
    expected = sorted.flat();
  }
  if (expected.length !== values.length) return `${values.length / Math.max(cols, 1)} rows, expected ${expected.length / Math.max(cols, 1)}`;
  for (let i = 0; i < values.length; i++) {
    if (values[i] !== expected[i]) return `row ${Math.floor(i / Math.max(cols, 1)) + 1}: got '${values[i]}', expected '${expected[i]}'`;
  }
  return null;
}

function cmpRows(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}

/** Runs every file; the summary counts records. */
export async function runSltFiles(paths: readonly string[], engine: SqlEngine, onRecord?: (o: SltOutcome) => void): Promise<SltSummary> {
  const outcomes: SltOutcome[] = [];
  for (const f of await sltFiles(paths)) outcomes.push(...(await runSltFile(f, engine, onRecord)));
  return {
    passed: outcomes.filter((o) => o.status === 'passed').length,
    failed: outcomes.filter((o) => o.status === 'failed').length,
    skipped: outcomes.filter((o) => o.status === 'skipped').length,
    outcomes,
  };
}
