/**
 * Running sqllogictest files (issue 14): setup statements run in an embedded DuckDB; every
 * `query` runs through joinlab (`Engine.sql`) on the session's tables and views (each view is
 * materialised from DuckDB as a table), exported to Arrow, and is checked against the file's
 * expected block. A query outside joinlab's SQL subset is a SKIP with its reason, never a pass.
 *
 * A run never aborts on a record (issue 31): a record that cannot be run — joinlab throws, a
 * table cannot be exported, the file writes a record wrongly — is ONE failure (or a skip with its
 * reason) and the next record runs; a file whose structure is broken (an unclosed loop) or whose
 * loops expand past the cap (parse.ts, `MAX_RECORDS`) is one failure and the next file runs. Only
 * the abort signal (SIGINT / SIGTERM in the CLI) stops a run: it is checked between records, the
 * event loop gets a turn at least every 20 ms (so a signal handler runs even while thousands of
 * skipped records stream by), and a DuckDB statement running when it fires is interrupted.
 *
 * The format's rules, as DuckDB's runner applies them (duckdb v1.5.5
 * test/sqlite/sqllogic_test_runner.cpp, test/sqlite/result_helper.cpp):
 *  - values are printed as DuckDB prints them — NULL as `NULL`, an empty string as `(empty)`, a
 *    BOOLEAN as `1` / `0` (`SQLLogicTestConvertValue`) — which this runner gets exactly by loading
 *    joinlab's result into a DuckDB session of its own (never the file's: the file's settings, e.g.
 *    `PRAGMA enable_verification`, must not reach the runner's work) and casting each column to
 *    VARCHAR there (so floats print with DuckDB's own shortest-round-trip rules);
 *  - values are compared as `TestResultHelper::CompareValues` does: equal strings pass; otherwise
 *    a NUMERIC result column compares both values as numbers — FLOAT / DOUBLE (and a column the
 *    record types `R`) approximately, |a - e| <= |e| * 0.01 + 1e-8 (`ApproxEqual`), so `6` matches
 *    `6.000000`; a BOOLEAN column matches `true`/`1` and `false`/`0`; anything else must be equal;
 *  - `rowsort` sorts the rows by their printed values, `valuesort` sorts all values, `nosort`
 *    keeps the order the query gives;
 *  - an expected block may list one value per line instead of one row per line;
 *  - `N values hashing to H` is the MD5 of every printed value followed by a newline;
 *  - a query without a `----` block passes when it runs.
 * `statement error` passes when the statement fails (and its message contains the expected text,
 * when the record gives one); `statement maybe` passes either way. A file that `require`s an
 * extension other than parquet or json is skipped whole.
 *
 * Session settings (`SET x = v`, `PRAGMA x = v`, `RESET x`) run in DuckDB like any statement.
 * Those that decide an answer and joinlab honours — `default_order`, `default_null_order` — reach
 * joinlab through the parse (adapters/sql/parse.ts reads them from the session). Those that change
 * only how DuckDB works (threads, memory_limit, verification, join thresholds, profiling, …) are
 * ignored. Any other setting could change an answer joinlab would not change: every query after
 * it is SKIPPED with the setting named, until a `RESET` — never a different answer.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DataType, Table } from 'apache-arrow';
import { CancelledError, JoinlabError, UnsupportedSqlError, UnsupportedTypeError } from '../../core/errors.ts';
import { quoteIdent } from '../../core/expr/sql.ts';
import type { SqlEngine, SqlResult } from '../../adapters/sql/run.ts';
import { runSql } from '../../adapters/sql/run.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { countSltExpansion, sltRecords, sltRequires, MAX_RECORDS, type SltRecord } from './parse.ts';

export interface SltOutcome {
  readonly file: string;
  readonly line: number;
  readonly status: 'passed' | 'failed' | 'skipped';
  /** Why it failed or was skipped. */
  readonly reason?: string;
  /** A failed record: its statement or query text. */
  readonly sql?: string;
  /** What `sql` is. */
  readonly record?: 'statement' | 'query';
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

export interface SltRunOptions {
  /** Aborting stops the run between records (a running DuckDB statement is interrupted). */
  readonly signal?: AbortSignal;
  /** Records one file may expand to (default parse.ts's MAX_RECORDS). */
  readonly maxRecords?: number;
}

const AVAILABLE = new Set(['parquet', 'json']);
/** The longest the event loop waits for a turn while records stream (ms). */
const YIELD_EVERY_MS = 20;

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

/** How many outcomes running `paths` reports, about (what a progress bar counts to): no loop is expanded. */
export async function countSltRecords(paths: readonly string[]): Promise<number> {
  let n = 0;
  for (const f of await sltFiles(paths)) {
    const text = await readFile(f, 'utf8');
    n += sltRequires(text).some((r) => !AVAILABLE.has(r)) ? 1 : Math.min(countSltExpansion(text), MAX_RECORDS + 1);
  }
  return n;
}

/** The statements a `query` record runs through joinlab; any other (CREATE, INSERT, PRAGMA…) runs in DuckDB. */
const READS = /^\s*(\(|SELECT\b|WITH\b|FROM\b|VALUES\b|TABLE\b)/i;

/**
 * The data file an error says is missing — DuckDB's `IO Error: … "path" …` / `No files found that
 * match the pattern "path"`, or joinlab's `unknown table 'path'` for a file read in FROM — when
 * it is indeed absent; else null.
 */
function absentFile(e: Error): string | null {
  const m = /IO Error:[^"]*"([^"]+)"/.exec(e.message) ?? /No files found that match the pattern "([^"]+)"/.exec(e.message) ?? /unknown table '([^']*[/.][^']*)'/.exec(e.message);
  if (m === null) return null;
  return existsSync(m[1]!) ? null : m[1]!;
}

/** Settings that change only how DuckDB works, never an answer: ignored. */
const HARMLESS_SETTINGS = new Set([
  'threads', 'worker_threads', 'external_threads', 'memory_limit', 'max_memory', 'temp_directory', 'max_temp_directory_size',
  'enable_verification', 'disable_verification', 'verify_external', 'verify_parallelism', 'verify_serializer', 'verify_fetch_row', 'enable_forced_verification',
  'merge_join_threshold', 'nested_loop_join_threshold', 'prefer_range_joins', 'asof_loop_join_threshold', 'debug_asof_iejoin', 'debug_force_external',
  'debug_force_no_cross_product', 'force_parallelism', 'perfect_ht_threshold', 'disabled_optimizers', 'disable_optimizer', 'enable_optimizer',
  'explain_output', 'enable_profiling', 'disable_profiling', 'profiling_mode', 'profiling_output', 'profile_output', 'enable_progress_bar',
  'disable_progress_bar', 'enable_print_progress_bar', 'disable_print_progress_bar', 'wal_autocheckpoint', 'checkpoint_threshold',
  'disable_checkpoint_on_shutdown', 'enable_checkpoint_on_shutdown', 'force_checkpoint', 'preserve_insertion_order', 'force_compression',
  'storage_compatibility_version', 'enable_object_cache', 'disable_object_cache', 'immediate_transaction_mode', 'partitioned_write_flush_threshold',
  'enable_external_access', 'allocator_flush_threshold', 'debug_verify_vector', 'debug_verify_blocks', 'streaming_buffer_size',
]);
/** Settings joinlab honours (adapters/sql/parse.ts reads them from the session). */
const HONOURED_SETTINGS = new Set(['default_order', 'default_null_order', 'null_order']);

/** The settings a statement changes: `SET [SESSION|GLOBAL|LOCAL] x`, `PRAGMA x = v`, `PRAGMA x`, `RESET x`. */
export function settingsOf(sql: string): { name: string; reset: boolean }[] {
  const out: { name: string; reset: boolean }[] = [];
  for (const stmt of sql.split(';')) {
    const t = stmt.trim();
    let m = /^(SET|RESET)\s+(?:(?:SESSION|GLOBAL|LOCAL)\s+)?([A-Za-z_][A-Za-z0-9_.]*)/i.exec(t);
    if (m) {
      out.push({ name: m[2]!.toLowerCase(), reset: m[1]!.toUpperCase() === 'RESET' });
      continue;
    }
    // `PRAGMA f(args)` and `PRAGMA show_tables`-like calls read the catalog; a bare name or
    // `name = value` is a setting (or a toggle such as enable_verification)
    m = /^PRAGMA\s+([A-Za-z_][A-Za-z0-9_]*)\s*(=|$)/i.exec(t);
    if (m && !/^(show|table_info|database_size|storage_info|version|platform|collations|functions|user_agent|metadata_info|database_list)/i.test(m[1]!)) out.push({ name: m[1]!.toLowerCase(), reset: false });
  }
  return out;
}

/** Whether `sql` names `name` as a word (case-insensitive). */
function mentions(sql: string, name: string): boolean {
  const lower = sql.toLowerCase();
  const n = name.toLowerCase();
  const word = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_]/.test(c);
  for (let i = lower.indexOf(n); i >= 0; i = lower.indexOf(n, i + 1)) if (!word(lower[i - 1]) && !word(lower[i + n.length])) return true;
  return false;
}

/**
 * A statement's error against the record's expected text (sqllogic_test_runner.cpp /
 * result_helper.cpp `MatchesRegex`): a substring, or after `<REGEX>:` a regular expression the
 * whole message must match (`.` matching newlines too), after `<!REGEX>:` one it must not.
 */
export function errorMatches(error: string, expected: string): boolean {
  const m = /^<(!?)REGEX>:([\s\S]*)$/.exec(expected);
  if (m === null) return error.includes(expected);
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${m[2]!})$`, 's');
  } catch {
    return false;
  }
  return re.test(error) === (m[1] !== '!');
}

/** The line a structural error's message names (`path:LINE: …`), else 1. */
function lineOf(message: string): number {
  const m = /:(\d+): /.exec(message);
  return m ? Number(m[1]) : 1;
}

/** Runs one file in a fresh DuckDB session; `onRecord` reports progress. Throws only a CancelledError. */
export async function runSltFile(path: string, engine: SqlEngine, onRecord: (o: SltOutcome) => void = () => {}, options: SltRunOptions = {}, printer?: DuckDBSession): Promise<SltOutcome[]> {
  const text = await readFile(path, 'utf8');
  const outcomes: SltOutcome[] = [];
  const report = (o: SltOutcome): void => {
    outcomes.push(o);
    onRecord(o);
  };
  const missing = sltRequires(text).filter((r) => !AVAILABLE.has(r));
  if (missing.length > 0) {
    report({ file: path, line: 1, status: 'skipped', reason: `requires ${missing.join(', ')}` });
    return outcomes;
  }
  const { signal } = options;
  const cancelled = (): never => {
    throw signal?.reason instanceof CancelledError ? signal.reason : new CancelledError('sqllogictest: interrupted');
  };
  if (signal?.aborted) cancelled();
  const duck = await DuckDBSession.open({ threads: 1 });
  const ownPrinter = printer === undefined;
  const print = printer ?? (await DuckDBSession.open({ threads: 1 }));
  const onAbort = (): void => {
    duck.interrupt();
    print.interrupt();
  };
  signal?.addEventListener('abort', onAbort);
  let tables: Record<string, Table> | null = null;
  /**
   * Each label's first result (`query I nosort LABEL`): a later query with the same label and an
   * empty block must give the same values — DuckDB's runner keeps a hash per label
   * (test/sqlite/result_helper.cpp `hash_label_map`); an empty block there is not "no rows".
   */
  const labels = new Map<string, string[][]>();
  /** Tables and views the session has that cannot be exported to Arrow, with why. */
  let unreadable = new Map<string, string>();
  /** Settings that may change answers, set and not reset: name -> the line that set it. */
  const unhonoured = new Map<string, number>();
  let lastTurn = Date.now();
  try {
    const records = sltRecords(text, path, { maxRecords: options.maxRecords });
    for (;;) {
      if (signal?.aborted) cancelled();
      let next: IteratorResult<SltRecord>;
      try {
        next = records.next();
      } catch (e) {
        // the file's structure (an unclosed loop, a bad range) or the expansion cap: one failure, next file
        if (!(e instanceof JoinlabError)) throw e;
        report({ file: path, line: lineOf(e.message), status: 'failed', reason: e.message });
        break;
      }
      if (next.done) break;
      const r = next.value;
      let o: SltOutcome;
      try {
        o = await runRecord(r);
      } catch (e) {
        if (signal?.aborted) cancelled();
        // a record that cannot be run is one failure, never the end of the run
        o = { file: path, line: r.line, status: 'failed', reason: `could not run the record: ${(e as Error).message}`, ...(r.kind === 'statement' || r.kind === 'query' ? { sql: r.sql, record: r.kind } : {}) };
      }
      report(o);
      if (Date.now() - lastTurn >= YIELD_EVERY_MS) {
        await nextTurn();
        lastTurn = Date.now();
      }
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    duck.close();
    if (ownPrinter) print.close();
  }
  return outcomes;

  async function runRecord(r: SltRecord): Promise<SltOutcome> {
    const at = { file: path, line: r.line };
    if (r.kind === 'skip') return { ...at, status: 'skipped', reason: r.reason };
    if (r.kind === 'invalid') return { ...at, status: 'failed', reason: r.reason };
    if (r.kind === 'query' && !READS.test(r.sql)) {
      // `query I` over CREATE / INSERT / PRAGMA …: DuckDB's runner runs it like a statement; here
      // it changes the session joinlab reads, so it runs in DuckDB and its answer is DuckDB's
      tables = null;
      try {
        await duck.run(r.sql);
      } catch (e) {
        const absent = absentFile(e as Error);
        if (absent !== null) return { ...at, status: 'skipped', reason: `data file ${absent} is absent` };
        return { ...at, status: 'failed', reason: `query failed in DuckDB: ${(e as Error).message}`, sql: r.sql, record: 'query' };
      }
      return hasExpected(r) ? { ...at, status: 'skipped', reason: 'not a SELECT: it ran in DuckDB, joinlab has no answer to compare' } : { ...at, status: 'passed' };
    }
    if (r.kind === 'statement') {
      tables = null; // the session's data may change
      let error: string | null = null;
      try {
        await duck.run(r.sql);
      } catch (e) {
        error = (e as Error).message;
        // setup that reads a data file this checkout does not have (DuckDB's test data)
        const absent = r.expect === 'ok' ? absentFile(e as Error) : null;
        if (absent !== null) return { ...at, status: 'skipped', reason: `data file ${absent} is absent` };
      }
      if (error === null) {
        for (const s of settingsOf(r.sql)) {
          if (s.reset) unhonoured.delete(s.name);
          else if (!HARMLESS_SETTINGS.has(s.name) && !HONOURED_SETTINGS.has(s.name)) unhonoured.set(s.name, r.line);
        }
      }
      if (r.expect === 'maybe') return { ...at, status: 'passed' };
      const failed = { ...at, status: 'failed', sql: r.sql, record: 'statement' } as const;
      if (r.expect === 'ok') return error === null ? { ...at, status: 'passed' } : { ...failed, reason: `statement failed: ${error}` };
      if (error === null) return { ...failed, reason: 'statement succeeded, an error was expected' };
      if (r.error !== null && r.error.trim() !== '' && !errorMatches(error, r.error.trim())) return { ...failed, reason: `error '${error}' does not match '${r.error.trim()}'` };
      return { ...at, status: 'passed' };
    }
    if (unhonoured.size > 0) {
      const [name, line] = [...unhonoured][0]!;
      return { ...at, status: 'skipped', reason: `setting ${name} (line ${line}) may change answers and joinlab does not honour it` };
    }
    if (tables === null) ({ tables, unreadable } = await sessionTables(duck));
    let result: SqlResult;
    try {
      result = await runSql(engine, r.sql, tables, { duck, signal });
    } catch (e) {
      if (signal?.aborted) cancelled();
      // outside the subset: SQL joinlab does not plan, a type its operators do not take
      if (e instanceof UnsupportedSqlError || e instanceof UnsupportedTypeError) return { ...at, status: 'skipped', reason: e.message };
      const absent = absentFile(e as Error);
      if (absent !== null) return { ...at, status: 'skipped', reason: `data file ${absent} is absent` };
      // a table joinlab could not be given: say which and why, not "unknown table"
      for (const [name, why] of unreadable) {
        if (mentions(r.sql, name)) return { ...at, status: 'skipped', reason: `table ${name} cannot be read by joinlab: ${why}` };
      }
      return { ...at, status: 'failed', reason: `joinlab: ${(e as Error).message}`, sql: r.sql, record: 'query', ...(hasExpected(r) ? { expected: expectedLines(r) } : {}) };
    }
    if (!hasExpected(r)) return { ...at, status: 'passed' }; // no expected block: it ran
    const printedRows = await printed(print, result.table);
    let expecting: ExpectedQuery = r;
    let against = '';
    if (r.label !== null && 'rows' in r.expected && r.expected.rows.length === 0) {
      // the label's first result; when joinlab did not produce it (that query was skipped), DuckDB's answer to this one
      let reference = labels.get(r.label);
      against = ` (the result of label ${r.label})`;
      if (reference === undefined) {
        try {
          reference = await printed(print, await duck.query(r.sql));
        } catch (e) {
          return { ...at, status: 'skipped', reason: `label ${r.label} has no result yet and DuckDB could not give one: ${(e as Error).message.split('\n')[0]}` };
        }
        against = ` (DuckDB's answer: label ${r.label} has no result joinlab produced)`;
      }
      expecting = { ...r, expected: { rows: reference } };
    }
    const failed = { ...at, status: 'failed', sql: r.sql, record: 'query', expected: expectedLines(expecting), actual: actualLines(printedRows, expecting) } as const;
    const problem = compareExpected(printedRows, expecting, columnKinds(result.table, r.types));
    if (problem === null) {
      if (r.label !== null && !labels.has(r.label)) labels.set(r.label, printedRows);
      return { ...at, status: 'passed' };
    }
    // as DuckDB's runner: a column count other than the record's fails only when the values differ
    if (printedRows.length > 0 && result.table.numCols !== r.types.length) return { ...failed, reason: `${result.table.numCols} columns, the record says ${r.types.length}` };
    return { ...failed, reason: problem + against };
  }
}

/** Every table and view of the session (main schema, temporary ones too), as Arrow; those that cannot be exported, with why. */
async function sessionTables(duck: DuckDBSession): Promise<{ tables: Record<string, Table>; unreadable: Map<string, string> }> {
  const names = await duck.queryRows("SELECT DISTINCT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type IN ('BASE TABLE', 'VIEW', 'LOCAL TEMPORARY') ORDER BY 1");
  const tables: Record<string, Table> = {};
  const unreadable = new Map<string, string>();
  for (const [name] of names) {
    try {
      tables[String(name)] = await duck.query(`SELECT * FROM ${quoteIdent(String(name))}`);
    } catch (e) {
      unreadable.set(String(name), (e as Error).message);
    }
  }
  return { tables, unreadable };
}

/** What a result column compares as (`CompareValues`): FLOAT/DOUBLE (or typed `R`) approximately, other numbers exactly, booleans as 1/0. */
type ColumnKind = 'approx' | 'number' | 'boolean' | 'text';

function columnKinds(table: Table, types: string): ColumnKind[] {
  return table.schema.fields.map((f, i) => {
    const t = f.type;
    if (DataType.isFloat(t) || types[i] === 'R') return 'approx';
    if (DataType.isInt(t) || DataType.isDecimal(t)) return 'number';
    if (DataType.isBool(t)) return 'boolean';
    return 'text';
  });
}

/** The result's values as DuckDB's runner prints them (NULL, `(empty)`, booleans 1/0), row by row. */
async function printed(duck: DuckDBSession, table: Table): Promise<string[][]> {
  if (table.numCols === 0) return [];
  const names = table.schema.fields.map((_f, i) => `c${i}`);
  await duck.run('DROP TABLE IF EXISTS __joinlab_result');
  // the result may repeat a column name; load it under positional names
  await duck.loadTable('__joinlab_result', new Table(Object.fromEntries(names.map((n, i) => [n, table.getChildAt(i)!]))));
  const shown = names.map((n, i) =>
    DataType.isBool(table.schema.fields[i]!.type)
      ? `CASE WHEN ${n} IS NULL THEN 'NULL' WHEN ${n} THEN '1' ELSE '0' END`
      : `CASE WHEN ${n} IS NULL THEN 'NULL' WHEN CAST(${n} AS VARCHAR) = '' THEN '(empty)' ELSE CAST(${n} AS VARCHAR) END`,
  );
  const rows = await duck.queryRows(`SELECT ${shown.join(', ')} FROM __joinlab_result`);
  await duck.run('DROP TABLE __joinlab_result');
  return rows.map((r) => r.map(String));
}

type QueryRecord = Extract<SltRecord, { kind: 'query' }>;
type ExpectedQuery = QueryRecord & { readonly expected: NonNullable<QueryRecord['expected']> };

function hasExpected(r: QueryRecord): r is ExpectedQuery {
  return r.expected !== null;
}

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
function onePerLine(r: ExpectedQuery, values: number): boolean {
  return 'rows' in r.expected && r.types.length > 1 && r.expected.rows.every((e) => e.length === 1) && r.expected.rows.length === values;
}

/** The record's expected block, as the file writes it (a failure prints it). */
function expectedLines(r: ExpectedQuery): string[] {
  if ('hash' in r.expected) return [`${r.expected.values} values hashing to ${r.expected.hash}`];
  return r.expected.rows.map((row) => row.join('\t'));
}

/** joinlab's answer in the expected block's form: hashed, one value a line, or rows (tab-separated). */
function actualLines(rows: string[][], r: ExpectedQuery): string[] {
  const s = sortedValues(rows, r);
  if ('hash' in r.expected) return [`${s.values.length} values hashing to ${md5Values(s.values)}`];
  if (r.sort === 'valuesort' || onePerLine(r, s.values.length)) return s.values;
  return s.rows.map((row) => row.join('\t'));
}

const BOOLEAN_TEXT: Record<string, number> = { true: 1, '1': 1, false: 0, '0': 0 };

/** One value against the expected text, as `TestResultHelper::CompareValues` compares them. */
export function valueMatches(got: string, want: string, kind: ColumnKind): boolean {
  if (got === want) return true;
  if (got === 'NULL' || want === 'NULL') return false;
  if (kind === 'boolean') {
    const g = BOOLEAN_TEXT[got.toLowerCase()];
    return g !== undefined && g === BOOLEAN_TEXT[want.toLowerCase()];
  }
  if (kind === 'text') return false;
  const g = numberOf(got);
  const w = numberOf(want);
  if (g === null || w === null) return false;
  if (kind === 'number') {
    // exact for integers past 2^53 too
    if (/^-?\d+$/.test(got) && /^-?\d+$/.test(want)) return BigInt(got) === BigInt(want);
    return g === w;
  }
  // ApproxEqual (duckdb src/common/types.cpp)
  if (Number.isNaN(g) && Number.isNaN(w)) return true;
  if (!Number.isFinite(g) || !Number.isFinite(w)) return g === w;
  return Math.abs(g - w) <= Math.abs(w) * 0.01 + 0.00000001;
}

function numberOf(s: string): number | null {
  const t = s.trim().toLowerCase();
  if (t === 'nan' || t === '-nan') return Number.NaN;
  if (t === 'inf' || t === 'infinity') return Number.POSITIVE_INFINITY;
  if (t === '-inf' || t === '-infinity') return Number.NEGATIVE_INFINITY;
  if (t === '' || !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t)) return null;
  return Number(t);
}

function compareExpected(rows: string[][], r: ExpectedQuery, kinds: readonly ColumnKind[]): string | null {
  const { values } = sortedValues(rows, r);
  if ('hash' in r.expected) {
    const hash = md5Values(values);
    if (values.length !== r.expected.values) return `${values.length} values, expected ${r.expected.values}`;
    return hash === r.expected.hash ? null : `values hash to ${hash}, expected ${r.expected.hash}`;
  }
  const expectedRows = r.expected.rows;
  const cols = Math.max(r.types.length, 1);
  // one value per line instead of one row per line
  const perValue = onePerLine(r, values.length);
  let expected = perValue ? expectedRows.map((e) => e[0]!) : expectedRows.flat();
  if (r.sort === 'valuesort') expected = [...expected].sort();
  if (r.sort === 'rowsort' && !perValue) {
    const sorted = expectedRows.map((e) => [...e]).sort((a, b) => cmpRows(a, b));
    expected = sorted.flat();
  }
  if (expected.length !== values.length) return `${values.length / cols} rows, expected ${expected.length / cols}`;
  for (let i = 0; i < values.length; i++) {
    // valuesort mixes the columns: only exact matches there
    const kind = r.sort === 'valuesort' ? 'text' : (kinds[i % cols] ?? 'text');
    if (!valueMatches(values[i]!, expected[i]!, kind)) return `row ${Math.floor(i / cols) + 1}: got '${values[i]}', expected '${expected[i]}'`;
  }
  return null;
}

function cmpRows(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}

/** Runs every file; the summary counts records. Only an abort (CancelledError) ends it early. */
export async function runSltFiles(paths: readonly string[], engine: SqlEngine, onRecord?: (o: SltOutcome) => void, options: SltRunOptions = {}): Promise<SltSummary> {
  const outcomes: SltOutcome[] = [];
  const printer = await DuckDBSession.open({ threads: 1 });
  try {
    for (const f of await sltFiles(paths)) outcomes.push(...(await runSltFile(f, engine, onRecord, options, printer)));
  } finally {
    printer.close();
  }
  return {
    passed: outcomes.filter((o) => o.status === 'passed').length,
    failed: outcomes.filter((o) => o.status === 'failed').length,
    skipped: outcomes.filter((o) => o.status === 'skipped').length,
    outcomes,
  };
}
