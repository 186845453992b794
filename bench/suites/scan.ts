/**
 * `scan` suite: joinlab's Parquet scan against DuckDB's, one column type at a time — what reading
 * a column costs before any join does anything with it, and how much of that is the decode
 * itself (the raw scan) rather than the SQL around it.
 *
 * Data: one file written by DuckDB with its default writer settings (snappy, its default encodings,
 * row groups of 122,880 rows: 49 at scale 1) and cached under `os.tmpdir()/joinlab-bench/scan-<rows>/`:
 * 6M rows (`--scale` multiplies), `k` BIGINT = the row number (sorted, for the selective
 * predicate) and one column per type, every value a function of the row number i through two
 * multiplicative hashes (h = i·2654435761 mod 2^32, g = i·2246822519 + 3266489917 mod 2^32), so the
 * file is the same on every machine:
 *   i32       INTEGER in ±1M                       i32_null  INTEGER, 10% NULL
 *   i64       BIGINT in ±2.1e15                    f64       DOUBLE
 *   dec       DECIMAL(15,2), negative too          d         DATE over 1992–1998, 5% NULL
 *   s_short   'S0'…'S999' (1000 distinct)          s_null    'N0'…'N4999', 10% NULL
 *   s_long    40–80 hex characters, all distinct   s_dict    20 ship modes
 *
 * Cases, per column, each a query through `Engine.sql` (joinlab; the time includes DuckDB's parse
 * of the text with the suite's session, as DuckDB's own time includes its parse) and the same text
 * in DuckDB over a view of the same file, at the round's thread count (`--threads`):
 *   - all rows: `SELECT count(*) AS n, AGG(c) AS v FROM scan_data`;
 *   - 1% of rows: the same `WHERE k BETWEEN a AND b` (a 1% slice of the middle of the file: every
 *     row group but one or two is pruned by its min/max of k, in both engines).
 * AGG is `sum` for the numeric columns; for DATE and strings, which have no `sum`, `max` of the
 * NULL-free strings and `count` of the columns with NULLs. Not `count` of a NULL-free column nor
 * `min`/`max` of a number or date: DuckDB answers those from the footer's statistics without
 * reading a value (its plan is a COLUMN_DATA_SCAN), which would time nothing — so setup checks
 * that DuckDB's plan reads the file for every query. `count(*)` rides along so the rows column
 * of the table says how many rows each engine aggregated.
 *
 * Every answer — joinlab's and DuckDB's, every run — is compared with DuckDB's answer computed once
 * at setup (`compareResults`, doubles to 1e-9 relative): a wrong answer stops the suite with
 * `WrongAnswerError`. The all-rows cases also time a baseline: joinlab's `ParquetScan` of that one
 * column (opened as the engine opens a file, `openScan`), counting rows and nothing else — the raw
 * decode, serial whatever `--threads` says; its `speedup` (raw ms / SQL ms) is the share of the
 * SQL time that is decoding. Notes: the SQL scan's row groups pruned, rows and bytes decoded (and
 * the raw scan's); facts (JSON fields): `rowGroupsPruned`, `rowGroupsTotal`, `rowsDecoded`.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Table } from 'apache-arrow';
import { Engine } from '../../composition.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import type { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { scanOf, sqlScans } from '../../apps/experiments/sql-scans.ts';
import { openScan } from '../../adapters/io/open.ts';
import type { SqlResult } from '../../adapters/sql/run.ts';
import type { ScanMetrics } from '../../core/metrics.ts';
import { caseConfig, type BenchCase, type SuiteOverrides } from '../harness.ts';

/** An engine's answer differs from DuckDB's setup answer (a benchmark of the wrong thing). */
export class WrongAnswerError extends Error {
  override readonly name = 'WrongAnswerError';
}

/** DuckDB would answer a query without reading the file (from the footer's statistics). */
export class NotAScanError extends Error {
  override readonly name = 'NotAScanError';
}

/** The name of the file as a table, in joinlab's table map and as DuckDB's view. */
export const SCAN_TABLE = 'scan_data';

/** Rows at scale 1. */
const BASE_ROWS = 6_000_000;

/** Bump when the generator's SQL changes, so a cached file of the old shape is not reused. */
const DATA_VERSION = 1;

export interface ScanColumn {
  readonly column: string;
  /** The type as the case names say it. */
  readonly label: string;
  /** The generator's expression over `i` (row number), `h` and `g` (its hashes). */
  readonly expr: string;
  readonly aggregate: 'sum' | 'max' | 'count';
}

const SHIP_MODES = [
  'AIR', 'MAIL', 'RAIL', 'SHIP', 'TRUCK', 'REG AIR', 'FOB', 'COURIER', 'BARGE', 'PIPELINE',
  'DRONE', 'CARGO BIKE', 'TRAM', 'FERRY', 'VAN', 'POST', 'EXPRESS', 'FREIGHT', 'PICKUP', 'LOCKER',
];

export const SCAN_COLUMNS: readonly ScanColumn[] = [
  { column: 'i32', label: 'int32', expr: '(h % 2000001)::INTEGER - 1000000', aggregate: 'sum' },
  { column: 'i32_null', label: 'int32 10% NULL', expr: 'CASE WHEN g % 10 = 0 THEN NULL ELSE (g % 2000001)::INTEGER - 1000000 END', aggregate: 'sum' },
  { column: 'i64', label: 'int64', expr: '(h - 2147483648) * 1000003', aggregate: 'sum' },
  { column: 'f64', label: 'double', expr: '((h % 1000000) / 7.0)::DOUBLE', aggregate: 'sum' },
  { column: 'dec', label: 'decimal(15,2)', expr: '((((h * 997) % 100000000000) - 50000000000) * 0.01)::DECIMAL(15,2)', aggregate: 'sum' },
  { column: 'd', label: 'date 5% NULL', expr: "CASE WHEN g % 20 = 1 THEN NULL ELSE DATE '1992-01-01' + (h % 2557)::INTEGER END", aggregate: 'count' },
  { column: 's_short', label: 'short string', expr: "'S' || (h % 1000)", aggregate: 'max' },
  { column: 's_null', label: 'short string 10% NULL', expr: "CASE WHEN g % 10 = 3 THEN NULL ELSE 'N' || (g % 5000) END", aggregate: 'count' },
  { column: 's_long', label: 'long string', expr: 'substr(md5(i::VARCHAR) || md5(h::VARCHAR), 1, 40 + (h % 41)::INTEGER)', aggregate: 'max' },
  { column: 's_dict', label: 'dict string', expr: `[${SHIP_MODES.map((m) => `'${m}'`).join(', ')}][(h % 20)::INTEGER + 1]`, aggregate: 'max' },
];

export interface ScanFile {
  readonly path: string;
  readonly rows: number;
  /** The selective predicate's bounds (inclusive): 1% of the rows, from the middle of the file. */
  readonly from: number;
  readonly to: number;
}

export interface ScanFileOptions {
  /** Where the file goes (default `os.tmpdir()/joinlab-bench`). */
  readonly root?: string;
  /** Rows per row group; default DuckDB's own (tests use small ones to have several). */
  readonly rowGroupSize?: number;
}

/** Writes (once, cached by size) the suite's file with DuckDB, through a temporary name. */
export async function scanFile(duck: DuckDBSession, rows: number, options: ScanFileOptions = {}): Promise<ScanFile> {
  const dir = join(options.root ?? join(tmpdir(), 'joinlab-bench'), `scan-${rows}`);
  const rg = options.rowGroupSize === undefined ? '' : `-rg${options.rowGroupSize}`;
  const path = join(dir, `scan-v${DATA_VERSION}${rg}.parquet`);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    const partial = `${path}.tmp-${process.pid}`;
    const columns = SCAN_COLUMNS.map((c) => `${c.expr} AS ${c.column}`).join(',\n  ');
    const hashes = '(i * 2654435761) % 4294967296 AS h, (i * 2246822519 + 3266489917) % 4294967296 AS g';
    try {
      await duck.run(
        `COPY (SELECT i::BIGINT AS k,\n  ${columns}\nFROM (SELECT i, ${hashes} FROM range(${rows}) t(i))) ` +
          `TO '${partial}' (FORMAT parquet${options.rowGroupSize === undefined ? '' : `, ROW_GROUP_SIZE ${options.rowGroupSize}`})`,
      );
      renameSync(partial, path);
    } finally {
      rmSync(partial, { force: true });
    }
  }
  const slice = Math.max(1, Math.floor(rows / 100));
  const from = Math.floor(rows / 2);
  return { path, rows, from, to: from + slice - 1 };
}

/** The query of one case: all rows, or the 1% slice of `k`. */
export function scanQuery(c: ScanColumn, f: ScanFile, selective: boolean): string {
  const where = selective ? ` WHERE k BETWEEN ${f.from} AND ${f.to}` : '';
  return `SELECT count(*) AS n, ${c.aggregate}(${c.column}) AS v FROM ${SCAN_TABLE}${where}`;
}

/** Throws `WrongAnswerError` unless `got` is DuckDB's setup answer `want` (doubles to 1e-9 relative). */
export function checkAnswer(engine: string, sql: string, got: Table, want: Table): number {
  const cmp = compareResults(got, want, { floatTolerance: 1e-9 });
  if (!cmp.equal) throw new WrongAnswerError(`scan suite: ${engine} answered differently from DuckDB's setup answer to ${sql}\n${formatComparison(cmp)}`);
  return Number(got.getChild('n')!.get(0));
}

function pct(part: number, whole: number): string {
  return whole === 0 ? '0.0' : ((100 * part) / whole).toFixed(1);
}

/** The cases on `f`, for a DuckDB session that has `SCAN_TABLE` as a view of it. */
export async function scanCasesOn(duck: DuckDBSession, f: ScanFile, overrides: SuiteOverrides = {}): Promise<BenchCase[]> {
  const engine = await Engine.create(caseConfig({}, overrides));
  const tables = { [SCAN_TABLE]: f.path };
  const size = f.rows >= 1e6 ? `${f.rows / 1e6}M` : `${f.rows / 1e3}K`;
  const cases: BenchCase[] = [];
  for (const c of SCAN_COLUMNS) {
    for (const selective of [false, true]) {
      const sql = scanQuery(c, f, selective);
      const plan = (await duck.queryRows(`EXPLAIN ${sql}`)).map((r) => String(r[1])).join('\n');
      if (!/READ_PARQUET|PARQUET_SCAN/.test(plan)) throw new NotAScanError(`scan suite: DuckDB would answer ${sql} without reading the file:\n${plan}`);
      const want = await duck.query(sql);
      let last: SqlResult | null = null;
      let raw: ScanMetrics | null = null;
      const sqlScan = () => scanOf(sqlScans(last!), SCAN_TABLE)!.metrics;
      cases.push({
        name: `${c.label} ${c.aggregate}(${c.column}), ${selective ? '1% of k' : 'all rows'}, ${size}`,
        joinlab: async () => {
          last = await engine.sql(sql, tables, { duck });
          return checkAnswer('joinlab', sql, last.table, want);
        },
        duckdb: async () => checkAnswer('DuckDB', sql, await duck.query(sql), want),
        ...(selective
          ? {}
          : {
              baseline: {
                name: 'raw scan',
                run: async () => {
                  const scan = await openScan(f.path, SCAN_TABLE);
                  let rows = 0;
                  for await (const b of scan.batches({ columns: [c.column] })) rows += b.numRows;
                  if (rows !== f.rows) throw new WrongAnswerError(`scan suite: the raw scan of ${c.column} gave ${rows} rows, the file has ${f.rows}`);
                  raw = scan.metrics;
                  return rows;
                },
              },
            }),
        facts: () => {
          const s = sqlScan();
          return { rowGroupsPruned: s.containersPruned, rowGroupsTotal: s.containersTotal, rowsDecoded: s.rowsDecoded };
        },
        notes: () => {
          const s = sqlScan();
          const rawNote = raw === null ? '' : `; raw scan rows decoded ${raw.rowsDecoded}, ${raw.bytesDecoded} bytes`;
          return (
            `row groups pruned ${s.containersPruned}/${s.containersTotal} (${pct(s.containersPruned, s.containersTotal)}%), ` +
            `rows decoded ${s.rowsDecoded}, ${s.bytesDecoded} bytes${rawNote}`
          );
        },
      });
    }
  }
  return cases;
}

export async function scanCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides = {}): Promise<BenchCase[]> {
  const f = await scanFile(duck, Math.round(BASE_ROWS * scale));
  await duck.createViewOnParquet(SCAN_TABLE, f.path);
  return scanCasesOn(duck, f, overrides);
}
