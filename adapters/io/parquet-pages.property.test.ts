/**
 * Page pruning never drops a matching row: random sorted and unsorted columns (int32, int64,
 * double, string, date; with NULLs), random small pages and row groups, dictionary-encoded or not,
 * random static predicates (through SQL) and a dynamic filter (a hash join whose build side holds
 * a random subset of the keys). Each query's answer with `scan.pageIndex=auto` equals the answer
 * with `off` and DuckDB's on the same file; over the run, pages are really pruned.
 *
 * `PRUNS=200 PSEED=7 npx vitest run adapters/io/parquet-pages.property.test.ts` runs a longer
 * search (and prints how many pages were asked and pruned).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { DateDay, Float64, Int32, Int64, Table, Utf8, vectorFromArray, type DataType } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { compareResults, formatComparison } from '../duckdb/compare.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { writeParquetFile } from './parquet-write.ts';
import { Rng } from '../../core/random.ts';

type Kind = 'int32' | 'int64' | 'double' | 'string' | 'date';
type Value = number | bigint | string | null;

/** core/random.ts's seeded generator (mulberry32) as a function, so a failure names its seed. */
function rng(seed: number): () => number {
  const g = new Rng(seed);
  return () => g.next();
}

const DAY = 86_400_000;

function value(kind: Kind, r: () => number): Value {
  const i = Math.floor(r() * 1001) - 500;
  switch (kind) {
    case 'int32':
      return i;
    case 'int64':
      return BigInt(i) * 1_000_003n;
    case 'double':
      return r() < 0.02 ? -0 : i / 4;
    case 'string': {
      const len = Math.floor(r() * 9);
      let s = '';
      for (let c = 0; c < len; c++) s += 'abcxyzé'[Math.floor(r() * 7)];
      return s;
    }
    case 'date':
      return 18_000 + Math.floor(r() * 900);
  }
}

function compare(a: Value, b: Value): number {
  if (typeof a === 'string' && typeof b === 'string') {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return Buffer.compare(x, y);
  }
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

function arrowType(kind: Kind): DataType {
  return { int32: new Int32(), int64: new Int64(), double: new Float64(), string: new Utf8(), date: new DateDay() }[kind];
}

function literal(kind: Kind, v: Value): string {
  if (kind === 'string') return `'${v as string}'`;
  if (kind === 'date') return `DATE '${new Date((v as number) * DAY).toISOString().slice(0, 10)}'`;
  if (kind === 'double') return Object.is(v, -0) ? '0.0' : `${v as number}`;
  return String(v);
}

function vector(kind: Kind, values: readonly Value[]) {
  return vectorFromArray(kind === 'date' ? values.map((v) => (v === null ? null : new Date((v as number) * DAY))) : (values as never[]), arrowType(kind) as never);
}

interface Case {
  readonly kind: Kind;
  readonly rows: number;
  readonly nullRate: number;
  readonly order: 'sorted' | 'unsorted' | 'runs';
  readonly rowGroupSize: number;
  readonly dataPageBytes: number;
  readonly writeBatchRows: number;
  readonly dictionary: boolean;
  readonly seed: number;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  kind: fc.constantFrom<Kind>('int32', 'int64', 'double', 'string', 'date'),
  rows: fc.integer({ min: 50, max: 1500 }),
  nullRate: fc.constantFrom(0, 0.05, 0.3, 1),
  order: fc.constantFrom<Case['order']>('sorted', 'sorted', 'unsorted', 'runs'),
  rowGroupSize: fc.integer({ min: 40, max: 1500 }),
  dataPageBytes: fc.integer({ min: 1, max: 600 }),
  writeBatchRows: fc.integer({ min: 1, max: 48 }),
  dictionary: fc.boolean(),
  seed: fc.integer({ min: 1, max: 2 ** 30 }),
});

let dir: string;
let duck: DuckDBSession;
let auto: Engine;
let off: Engine;
let pagesPruned = 0;
let pagesAsked = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-pages-prop-'));
  duck = await DuckDBSession.open({ threads: 1 });
  auto = await Engine.create({ join: 'hash', 'scan.pageIndex': 'auto' });
  off = await Engine.create({ join: 'hash', 'scan.pageIndex': 'off', 'scan.lateMaterialization': 'off' }); // late materialization on in `auto` only: both paths differ
});

afterAll(async () => {
  await duck?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs `sql` three ways; returns a description of the first difference, or null. */
async function check(sql: string, tables: Record<string, string | Table>): Promise<string | null> {
  const expected = await duck.query(sql);
  const withPages = await auto.sql(sql, tables, { duck });
  const withoutPages = await off.sql(sql, tables, { duck });
  const t = withPages.scans.find((s) => s.table === 't')!.metrics;
  const tOff = withoutPages.scans.find((s) => s.table === 't')!.metrics;
  pagesPruned += t.pagesPruned;
  pagesAsked += t.pagesTotal;
  if (t.rowsDecoded > tOff.rowsDecoded) return `${sql}: pages decoded ${t.rowsDecoded} rows, row groups ${tOff.rowsDecoded}`;
  const a = compareResults(withPages.table, expected);
  if (!a.equal) return `${sql}: with pages vs DuckDB\n${formatComparison(a)}`;
  const b = compareResults(withoutPages.table, expected);
  if (!b.equal) return `${sql}: without pages vs DuckDB\n${formatComparison(b)}`;
  return null;
}

describe('page pruning never drops a matching row', () => {
  it('static predicates and a join filter over random files, against scan.pageIndex=off and DuckDB', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const r = rng(c.seed);
        let keys: Value[] = Array.from({ length: c.rows }, () => (r() < c.nullRate ? null : value(c.kind, r)));
        const nonNull = keys.filter((k) => k !== null);
        const nulls = keys.length - nonNull.length;
        if (c.order === 'sorted') {
          nonNull.sort(compare);
          keys = r() < 0.5 ? [...nonNull, ...Array(nulls).fill(null)] : [...Array(nulls).fill(null), ...nonNull];
        } else if (c.order === 'runs') {
          // sorted runs of random length: pages are partly clustered
          const out: Value[] = [];
          for (let i = 0; i < keys.length; ) {
            const len = 1 + Math.floor(r() * 200);
            out.push(...keys.slice(i, i + len).sort((x, y) => (x === null ? 1 : y === null ? -1 : compare(x, y))));
            i += len;
          }
          keys = out;
        }
        const table = new Table({
          k: vector(c.kind, keys),
          p: vectorFromArray(Array.from({ length: c.rows }, (_, i) => i), new Int32()),
          s: vectorFromArray(Array.from({ length: c.rows }, (_, i) => (i % 7 === 0 ? null : `row ${i} ${'.'.repeat(i % 13)}`)), new Utf8()),
        });
        const path = join(dir, `t${n++}.parquet`);
        await writeParquetFile(path, table, { rowGroupSize: c.rowGroupSize, dataPageBytes: c.dataPageBytes, writeBatchRows: c.writeBatchRows, dictionary: c.dictionary });
        await duck.createViewOnParquet('t', path);
        const pick = (): Value => (nonNull.length === 0 ? value(c.kind, r) : r() < 0.2 ? value(c.kind, r) : nonNull[Math.floor(r() * nonNull.length)]!);
        let lo = pick();
        let hi = pick();
        if (compare(lo, hi) > 0) [lo, hi] = [hi, lo];
        const cut = Math.floor(r() * c.rows);
        const build = new Table({ k: vector(c.kind, [...new Set(keys.filter(() => r() < 0.03))].slice(0, 40).concat(r() < 0.3 ? [null] : [])) });
        await duck.loadTable('b', build);
        const tables = { t: path, b: build };
        const queries = [
          `SELECT p, k FROM t WHERE k BETWEEN ${literal(c.kind, lo)} AND ${literal(c.kind, hi)}`,
          `SELECT p, s, k FROM t WHERE k >= ${literal(c.kind, lo)} AND p < ${cut}`,
          `SELECT p, s FROM t WHERE k IS NULL AND p >= ${cut}`,
          `SELECT p, k FROM t WHERE k = ${literal(c.kind, hi)} OR k < ${literal(c.kind, lo)}`,
          `SELECT t.p, t.s, t.k FROM t JOIN b ON t.k = b.k`,
        ];
        for (const sql of queries) {
          const problem = await check(sql, tables);
          if (problem !== null) throw new Error(`${JSON.stringify(c)}\n${problem}`);
        }
      }),
      { seed: Number(process.env.PSEED ?? 0x9a9e5), numRuns: Number(process.env.PRUNS ?? 14) },
    );
    if (process.env.PRUNS) console.log({ pagesPruned, pagesAsked });
    expect(pagesPruned).toBeGreaterThan(0);
    expect(pagesAsked).toBeGreaterThan(pagesPruned);
  });
});
