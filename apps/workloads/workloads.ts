/**
 * The standard workloads joinlab ships: the Star Schema Benchmark (`ssb`, 13 queries) and TPC-H
 * (`tpch`, 22 queries) — their generators (ssb.ts, tpch.ts), their tables and their query texts
 * (queries/<workload>/<query>.sql, in DuckDB's dialect, written as the specs write them).
 *
 * `generateWorkload` writes a workload's tables as Parquet once per scale factor, row-group size,
 * seed and DuckDB version into the shared cache (adapters/datagen/cached-parquet.ts:
 * `os.tmpdir()/joinlab-data/<workload>-<hash>/<table>.parquet`, written atomically);
 * `WORKLOAD_VERSION` is part of the key and is bumped whenever the generators' SQL changes.
 * DuckDB generates on all its threads — the data does not depend on the thread count.
 *
 * Degenerate input: a scale factor outside [MIN_SF, workload's maxSf] or not a number, an unknown
 * workload or query name is a `UsageError` naming what is allowed, before anything is written.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { UsageError } from '../../core/errors.ts';
import { writeCachedTables, type GeneratedTables } from '../../adapters/datagen/cached-parquet.ts';
import type { DuckDBSession } from '../../adapters/duckdb/session.ts';
import type { WorkloadData } from './data.ts';
import { SSB_TABLES, ssbData } from './ssb.ts';
import { TPCH_TABLES, tpchData } from './tpch.ts';

/** Bump when the SQL of a workload generator changes, so old caches are not reused. */
export const WORKLOAD_VERSION = 1;

/** Rows per Parquet row group (~100K, as the issue asks; DuckDB's default is 122,880). */
export const DEFAULT_ROW_GROUP_SIZE = 100_000;
export const DEFAULT_SEED = 1;
/** The smallest scale factor: TPC-H's part-supplier bridge needs at least 4 suppliers (10,000 · SF). */
export const MIN_SF = 0.001;

export interface WorkloadDef {
  readonly name: string;
  readonly title: string;
  /** The tables in the order they are written. */
  readonly tables: readonly string[];
  /** The query names, in the spec's order (`q1.1`…`q4.3`, `q1`…`q22`). */
  readonly queries: readonly string[];
  /** The largest scale factor (SSB's keys are INTEGER). */
  readonly maxSf: number;
  readonly data: (sf: number, seed: number) => WorkloadData;
}

export const WORKLOADS = {
  ssb: {
    name: 'ssb',
    title: 'Star Schema Benchmark',
    tables: SSB_TABLES,
    queries: ['q1.1', 'q1.2', 'q1.3', 'q2.1', 'q2.2', 'q2.3', 'q3.1', 'q3.2', 'q3.3', 'q3.4', 'q4.1', 'q4.2', 'q4.3'],
    maxSf: 300,
    data: ssbData,
  },
  tpch: {
    name: 'tpch',
    title: 'TPC-H',
    tables: TPCH_TABLES,
    queries: Array.from({ length: 22 }, (_, i) => `q${i + 1}`),
    maxSf: 1000,
    data: tpchData,
  },
} as const satisfies Record<string, WorkloadDef>;

export type WorkloadName = keyof typeof WORKLOADS;
export const WORKLOAD_NAMES = Object.keys(WORKLOADS) as WorkloadName[];

/** What to generate: a workload at a scale factor. */
export interface WorkloadDataSpec {
  readonly workload: WorkloadName;
  readonly sf: number;
  readonly rowGroupSize?: number;
  readonly seed?: number;
}

/** The workload named `name`, or a UsageError listing the workloads. */
export function workloadDef(name: string): WorkloadDef {
  if (!Object.hasOwn(WORKLOADS, name)) throw new UsageError(`unknown workload '${name}'; workloads: ${WORKLOAD_NAMES.join(', ')}`);
  return WORKLOADS[name as WorkloadName];
}

/** Checks a scale factor for `workload`; returns it. */
export function checkScaleFactor(workload: WorkloadName, sf: number): number {
  const max = WORKLOADS[workload].maxSf;
  if (!Number.isFinite(sf) || sf < MIN_SF || sf > max) throw new UsageError(`scale factor for ${workload}: expected a number from ${MIN_SF} to ${max}, got ${sf}`);
  return sf;
}

/**
 * The query names of `list` (comma-separated, e.g. `q1.1,q2.1` or `1,6,q14`; a name without its
 * `q` is accepted), in the order given; every query when `list` is undefined. Unknown or repeated
 * names are a UsageError.
 */
export function selectQueries(workload: WorkloadName, list?: string): string[] {
  const all: readonly string[] = WORKLOADS[workload].queries;
  if (list === undefined) return [...all];
  const names = list.split(',').map((n) => n.trim().toLowerCase()).filter((n) => n !== '');
  if (names.length === 0) throw new UsageError(`--queries expects query names of ${workload} (${all.join(', ')}), got '${list}'`);
  const out: string[] = [];
  for (const n of names) {
    const name = n.startsWith('q') ? n : `q${n}`;
    if (!all.includes(name)) throw new UsageError(`${workload} has no query '${n}'; queries: ${all.join(', ')}`);
    if (out.includes(name)) throw new UsageError(`--queries names ${name} twice`);
    out.push(name);
  }
  return out;
}

function queryUrl(workload: WorkloadName, name: string): URL {
  if (!(WORKLOADS[workload].queries as readonly string[]).includes(name)) throw new UsageError(`${workload} has no query '${name}'`);
  return new URL(`./queries/${workload}/${name}.sql`, import.meta.url);
}

/** The text of one query (queries/<workload>/<name>.sql). */
export async function queryText(workload: WorkloadName, name: string): Promise<string> {
  return readFile(queryUrl(workload, name), 'utf8');
}

/** `queryText`, synchronously (for parsing an experiment file, which is synchronous). */
export function queryTextSync(workload: WorkloadName, name: string): string {
  return readFileSync(queryUrl(workload, name), 'utf8');
}

export interface GenerateWorkloadOptions {
  /** Cache root (default `os.tmpdir()/joinlab-data`). */
  readonly root?: string;
  /** Called before each table that is written (not for cached ones): for progress lines. */
  readonly onWrite?: (table: string, index: number, count: number) => void;
}

/** Writes (or finds in the cache) every table of a workload at a scale factor. */
export async function generateWorkload(duck: DuckDBSession, spec: WorkloadDataSpec, options: GenerateWorkloadOptions = {}): Promise<GeneratedTables> {
  const def = WORKLOADS[spec.workload];
  const sf = checkScaleFactor(spec.workload, spec.sf);
  const seed = spec.seed ?? DEFAULT_SEED;
  const rowGroupSize = spec.rowGroupSize ?? DEFAULT_ROW_GROUP_SIZE;
  const data = def.data(sf, seed);
  return writeCachedTables(
    duck,
    {
      name: `${def.name}-sf${sf}`,
      key: { v: WORKLOAD_VERSION, workload: def.name, sf, seed },
      rowGroupSize,
      tables: data.tables,
      setup: data.setup,
      teardown: data.teardown,
      meta: { workload: def.name, sf, seed },
    },
    options,
  );
}
