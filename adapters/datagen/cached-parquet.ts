/**
 * Tables written once as Parquet by DuckDB into a content-keyed cache directory: what every data
 * generator of the project shares (the experiments' generators, apps/experiments/generators.ts,
 * and the SSB / TPC-H workloads, apps/workloads/).
 *
 * A generator describes each table as one SELECT (plus the order its ORDER BY writes, declared in
 * the footer as Parquet `sorting_columns`); `writeCachedTables` runs `COPY (<select>) TO <file>
 * (FORMAT parquet, ROW_GROUP_SIZE n)` for each table not already in the cache.
 *
 * Why the cache directory is named by a hash of everything that shapes the bytes: a cached file
 * is reused only when it would be written again identically. The key covers the generator's name
 * and its parameters (the caller's `key`), the row-group size, the DuckDB version (DuckDB's
 * `hash()`, which every generator draws its randomness from, may change between versions) and
 * the caller's generator version (bumped when its SQL changes). Why atomic writes: each file is
 * written to a temporary name and renamed (adapters/io/atomic.ts), so an interrupted run never
 * leaves a half-written file that a later run would take for a cached one. A generator may name
 * `setup` statements (e.g. a temporary table that several tables' SELECTs read): they run once,
 * before the first table that has to be written, and `teardown` after the last.
 */
import { existsSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quoteString } from '../../core/expr/sql.ts';
import type { SortColumnInput } from '../../core/scan/sort-order.ts';
import type { DuckDBSession } from '../duckdb/session.ts';
import { writeFileAtomic } from '../io/atomic.ts';
import { declareParquetSortOrder } from '../io/parquet.ts';

/** Default cache root: `os.tmpdir()/joinlab-data`. */
export function defaultDataRoot(): string {
  return join(tmpdir(), 'joinlab-data');
}

export interface FileInfo {
  readonly path: string;
  readonly rows: number;
  readonly rowGroups: number;
  readonly bytes: number;
}

/** One table of a generated data set: its SELECT and the order that SELECT writes (empty: none declared). */
export interface TableDef {
  readonly sql: string;
  readonly order: readonly SortColumnInput[];
}

/** Every table a generator wrote, by name. */
export interface GeneratedTables {
  readonly dir: string;
  readonly tables: Readonly<Record<string, FileInfo>>;
  /** True when every file was already in the cache. */
  readonly cached: boolean;
}

export interface CachedTablesSpec {
  /** The directory's prefix (`<name>-<hash>`), e.g. the generator's name. */
  readonly name: string;
  /** Everything that shapes the files besides the row-group size and DuckDB's version (parameters, seed, generator version). */
  readonly key: unknown;
  readonly rowGroupSize: number;
  /** The tables in the order they are written. */
  readonly tables: Readonly<Record<string, TableDef>>;
  /** Statements run once before the first table that is not cached (e.g. `CREATE TEMP TABLE` of shared draws). */
  readonly setup?: readonly string[];
  /** Statements run after the last table was written, when `setup` ran (also when a write failed). */
  readonly teardown?: readonly string[];
  /** Written beside the files as `meta.json` (with each table's SQL), for whoever looks into the cache. */
  readonly meta?: Readonly<Record<string, unknown>>;
}

export interface WriteCachedOptions {
  /** Cache root (default `os.tmpdir()/joinlab-data`). */
  readonly root?: string;
  /** Called before a table is written (not for tables found in the cache): for progress lines. */
  readonly onWrite?: (table: string, index: number, count: number) => void;
}

/** Stable JSON (sorted keys), so a cache key does not depend on key order. */
export function stableJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
    .join(',')}}`;
}

/** The cache directory of one data set: `<root>/<name>-<16 hex digits of the key's hash>`. */
export function cacheDir(name: string, key: unknown, rowGroupSize: number, duckdbVersion: string, root = defaultDataRoot()): string {
  const text = stableJson({ key, rowGroupSize, duckdb: duckdbVersion });
  return join(root, `${name}-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`);
}

export async function duckdbVersion(duck: DuckDBSession): Promise<string> {
  return String((await duck.queryRows('SELECT version()'))[0]![0]);
}

/** Row and row-group counts from the Parquet footer, plus the file size. */
export async function parquetInfo(duck: DuckDBSession, path: string): Promise<FileInfo> {
  const [row] = await duck.queryRows(`SELECT num_rows, num_row_groups FROM parquet_file_metadata(${quoteString(path)})`);
  const st = await stat(path);
  return { path, rows: Number(row![0]), rowGroups: Number(row![1]), bytes: st.size };
}

/**
 * Writes (or finds in the cache) `<table>.parquet` for every table of `spec`, in the order given,
 * and returns each file's footer counts.
 */
export async function writeCachedTables(duck: DuckDBSession, spec: CachedTablesSpec, options: WriteCachedOptions = {}): Promise<GeneratedTables> {
  const dir = cacheDir(spec.name, spec.key, spec.rowGroupSize, await duckdbVersion(duck), options.root);
  await mkdir(dir, { recursive: true });
  const entries = Object.entries(spec.tables);
  let cached = true;
  try {
    for (const [i, [name, def]] of entries.entries()) {
      const path = join(dir, `${name}.parquet`);
      if (existsSync(path)) continue;
      if (cached) for (const statement of spec.setup ?? []) await duck.run(statement);
      cached = false;
      options.onWrite?.(name, i, entries.length);
      await writeFileAtomic(path, async (tmp) => {
        await duck.run(`COPY (${def.sql}) TO ${quoteString(tmp)} (FORMAT parquet, ROW_GROUP_SIZE ${spec.rowGroupSize})`);
        if (def.order.length > 0) await declareParquetSortOrder(tmp, def.order);
      });
    }
  } finally {
    if (!cached) for (const statement of spec.teardown ?? []) await duck.run(statement);
  }
  const meta = join(dir, 'meta.json');
  if (!existsSync(meta)) {
    const sql = Object.fromEntries(entries.map(([name, def]) => [name, def.sql]));
    const text = `${JSON.stringify({ ...spec.meta, rowGroupSize: spec.rowGroupSize, ...(spec.setup ? { setup: spec.setup } : {}), sql }, null, 2)}\n`;
    await writeFileAtomic(meta, new TextEncoder().encode(text));
  }
  const tables: Record<string, FileInfo> = {};
  for (const [name] of entries) tables[name] = await parquetInfo(duck, join(dir, `${name}.parquet`));
  return { dir, tables, cached };
}
