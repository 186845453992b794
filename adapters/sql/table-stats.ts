/**
 * What the join planner knows about a table before reading it: its row count and, per column,
 * the range, NULL count and an estimate of its distinct values — all from metadata
 * (`Scan.containers`: a Parquet footer's row-group statistics, an in-memory batch's zone map).
 * Estimates only: nothing here decides which rows a query returns.
 *
 * Distinct values (NDV), in order of preference:
 *  - every container has a distinct count (DuckDB writes one for each dictionary-encoded chunk):
 *    between the largest one and their sum. Where the containers' ranges overlap, the same values
 *    recur in many of them, so the sum is divided by how many containers cover a value on average
 *    (the sum of the containers' ranges over the whole range; a sorted column's containers are
 *    disjoint and the sum stands);
 *  - an integer or date column: at most its range (max - min + 1) and its non-NULL rows;
 *  - anything else: its non-NULL rows (a column DuckDB did not dictionary-encode has many distinct
 *    values per row group).
 * A column whose NDV reaches (nearly) its non-NULL rows is *unique*: a join on it finds at most
 * one row per key on this side, which is what tells a foreign-key join from a many-to-many one
 * (cardinality.ts).
 */
import { DataType } from 'apache-arrow';
import type { ColumnStats, ContainerStats, Scan, StatValue } from '../../core/scan/scan.ts';

export interface ColumnProfile {
  /** Smallest and largest non-NULL value over the table (null: unknown). */
  readonly min: StatValue | null;
  readonly max: StatValue | null;
  readonly nullCount: number;
  /** Estimated distinct non-NULL values (>= 1 when the column has a non-NULL value). */
  readonly ndv: number;
  /** The column's values are (nearly) all distinct. */
  readonly unique: boolean;
}

export interface TableProfile {
  readonly rows: number;
  /** The containers' statistics (null: the scan has none before it runs). */
  readonly containers: readonly ContainerStats[] | null;
  column(name: string): ColumnProfile | undefined;
}

/** NDV within this fraction of the non-NULL rows counts as unique. */
const UNIQUE_SHARE = 0.95;

const profiles = new WeakMap<Scan, TableProfile>();

/** The scan's profile (computed per column on first use, cached per scan). */
export function profileOf(scan: Scan): TableProfile {
  let p = profiles.get(scan);
  if (p === undefined) profiles.set(scan, (p = new Profile(scan)));
  return p;
}

class Profile implements TableProfile {
  readonly rows: number;
  readonly containers: readonly ContainerStats[] | null;
  readonly #columns = new Map<string, ColumnProfile | undefined>();
  readonly #types: ReadonlyMap<string, DataType>;
  constructor(scan: Scan) {
    this.rows = scan.numRows;
    this.containers = scan.containers?.() ?? null;
    this.#types = new Map(scan.schema.fields.map((f) => [f.name, f.type]));
  }
  column(name: string): ColumnProfile | undefined {
    if (!this.#columns.has(name)) {
      const type = this.#types.get(name);
      const profile = this.containers === null || type === undefined ? undefined : columnProfile(this.containers, name, this.rows, isIntegral(type));
      this.#columns.set(name, profile);
    }
    return this.#columns.get(name);
  }
}

/** Whether the column's statistics are integers of its own domain (so its range bounds its NDV). */
function isIntegral(t: DataType): boolean {
  return DataType.isInt(t) || DataType.isDate(t) || DataType.isTimestamp(t) || DataType.isDecimal(t);
}

function columnProfile(containers: readonly ContainerStats[], name: string, rows: number, integral: boolean): ColumnProfile | undefined {
  const stats: { rows: number; s: ColumnStats }[] = [];
  for (const c of containers) {
    const s = c.column(name);
    if (s === undefined) return undefined; // a container without stats: nothing is known
    stats.push({ rows: c.numRows, s });
  }
  let nullCount = 0;
  let min: StatValue | null = null;
  let max: StatValue | null = null;
  let distinctSum = 0;
  let distinctMax = 0;
  let allDistinct = true;
  for (const { rows: n, s } of stats) {
    if (s.nullCount === null) return undefined;
    nullCount += s.nullCount;
    if (s.nullCount < n) {
      if (s.min === null || s.max === null) return undefined;
      if (min === null || less(s.min, min)) min = s.min;
      if (max === null || less(max, s.max)) max = s.max;
    }
    if (s.distinctCount === undefined) allDistinct = false;
    else {
      distinctSum += s.distinctCount;
      distinctMax = Math.max(distinctMax, s.distinctCount);
    }
  }
  const nonNull = rows - nullCount;
  if (nonNull <= 0) return { min: null, max: null, nullCount, ndv: 0, unique: false };
  const range = integral && min !== null && max !== null ? span(min, max) : null;
  let ndv: number;
  if (allDistinct && stats.length > 0) {
    // containers covering each value, on average (1: disjoint ranges, as in a sorted column)
    let covered = 0;
    if (range !== null) for (const { s } of stats) if (s.min !== null && s.max !== null) covered += span(s.min, s.max) ?? 0;
    const overlap = disjoint(stats.map((x) => x.s)) ? 1 : range !== null && range > 0 && covered > 0 ? Math.max(1, covered / range) : stats.length;
    ndv = Math.max(distinctMax, Math.min(distinctSum, distinctSum / overlap));
  } else ndv = nonNull;
  if (range !== null) ndv = Math.min(ndv, range);
  ndv = Math.max(1, Math.min(ndv, nonNull));
  return { min, max, nullCount, ndv, unique: ndv >= UNIQUE_SHARE * nonNull };
}

/** Whether the containers' [min, max] ranges overlap nowhere (a column sorted across containers). */
function disjoint(stats: readonly ColumnStats[]): boolean {
  const ranges = stats.filter((s) => s.min !== null && s.max !== null).sort((a, b) => (less(a.min!, b.min!) ? -1 : less(b.min!, a.min!) ? 1 : 0));
  for (let i = 1; i < ranges.length; i++) if (!less(ranges[i - 1]!.max!, ranges[i]!.min!)) return false;
  return true;
}

/** `a < b` for two statistics of one column (numbers, bigints and strings order; others never). */
function less(a: StatValue, b: StatValue): boolean {
  if (typeof a === 'number' || typeof a === 'bigint') return (typeof b === 'number' || typeof b === 'bigint') && a < b;
  if (typeof a === 'string') return typeof b === 'string' && a < b;
  return false;
}

/** The number of integers in [min, max] (for an integral column: a bound on its distinct values), or null. */
export function span(min: StatValue, max: StatValue): number | null {
  if (typeof min === 'number' && typeof max === 'number') return Number.isInteger(min) && Number.isInteger(max) ? max - min + 1 : null;
  if (typeof min === 'bigint' && typeof max === 'bigint') return Number(max - min) + 1;
  return null;
}

/** A statistic as a number on the column's own scale (for interpolating a range), or null. */
export function numericStat(v: StatValue | null): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  return null;
}
