/**
 * The sort-merge join on the fuzz shape mature engines use for theirs (DataFusion's
 * `join_fuzz.rs`): 1000 rows a side, two sorted Int32 keys `a, b` in 0..100 and a twin with
 * random 4–16-byte binary keys, a payload `x` with ~10% NULLs, the residual filter
 * `r.x < l.x` or none, the inputs cut into random slices with empty batches between them, output
 * batch sizes {1, 2, 7, 49, 50, 51, 100}, sides with different column counts, every join type,
 * both `smj.existence` streams — each answer against the nested-loop oracle, and the oracle
 * against DuckDB. The inputs are declared sorted (so the cursors see the random slices as they
 * are, key groups cut at every boundary) and also run undeclared (the join sorts them itself).
 */
import * as arrow from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { Rng } from '../../core/random.ts';
import type { ScanSortColumn } from '../../core/scan/scan.ts';
import { randomSlices, slicedScan } from './test-helpers.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { JOIN_TYPES, type JoinType } from '../../core/types.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { joinToSql } from '../../adapters/duckdb/join-sql.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';

const ROWS = 1000;
const BATCH_SIZES = [1, 2, 7, 49, 50, 51, 100];
const STREAMS = ['bitwise', 'materializing'];

interface Side {
  table: arrow.Table;
  batches: arrow.RecordBatch[];
}

function intKeys(rng: Rng, n: number): [number | null, number | null][] {
  const rows: [number | null, number | null][] = [];
  for (let i = 0; i < n; i++) rows.push([rng.int(0, 100), rng.chance(0.02) ? null : rng.int(0, 100)]);
  // ASC NULLS LAST on (a, b), as declared
  rows.sort((x, y) => x[0]! - y[0]! || (x[1] === null ? (y[1] === null ? 0 : 1) : y[1] === null ? -1 : x[1] - y[1]));
  return rows;
}

function compareBytes(x: Uint8Array, y: Uint8Array): number {
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

function binaryKeys(rng: Rng, n: number, pool: Uint8Array[]): [Uint8Array, Uint8Array][] {
  const rows: [Uint8Array, Uint8Array][] = [];
  for (let i = 0; i < n; i++) rows.push([pool[rng.int(0, pool.length - 1)]!, pool[rng.int(0, pool.length - 1)]!]);
  rows.sort((x, y) => compareBytes(x[0], y[0]) || compareBytes(x[1], y[1]));
  return rows;
}

function makeSide(rng: Rng, binary: boolean, pool: Uint8Array[], extra: boolean): Side {
  const x = Array.from({ length: ROWS }, () => (rng.chance(0.1) ? null : rng.int(-50, 50)));
  const cols: Record<string, arrow.Vector> = {};
  if (binary) {
    const keys = binaryKeys(rng, ROWS, pool);
    cols.a = arrow.vectorFromArray(keys.map((k) => k[0]), new arrow.Binary());
    cols.b = arrow.vectorFromArray(keys.map((k) => k[1]), new arrow.Binary());
  } else {
    const keys = intKeys(rng, ROWS);
    cols.a = arrow.vectorFromArray(keys.map((k) => k[0]), new arrow.Int32());
    cols.b = arrow.vectorFromArray(keys.map((k) => k[1]), new arrow.Int32());
  }
  cols.x = arrow.vectorFromArray(x, new arrow.Int32());
  if (extra) cols.tag = arrow.vectorFromArray(x.map((_, i) => `t${i % 13}`), new arrow.Utf8());
  const table = new arrow.Table(cols);
  return { table, batches: randomSlices(table, rng) };
}

const SORTED: ScanSortColumn[] = [
  { column: 'a', descending: false, nullsFirst: false },
  { column: 'b', descending: false, nullsFirst: false },
];

/** Every join type on (a, b), and NOT IN on b (one key column, with NULLs in the Int32 twin). */
const VARIANTS: { type: JoinType; nullAware: boolean; on: string }[] = [
  ...JOIN_TYPES.map((type) => ({ type, nullAware: false, on: 'a=a,b=b' })),
  { type: 'left-anti', nullAware: true, on: 'b=b' },
  { type: 'right-anti', nullAware: true, on: 'b=b' },
];

describe('sort-merge join on the fuzz shape (1000 rows a side, sliced inputs) vs nested-loop vs DuckDB', () => {
  let duck: DuckDBSession;
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
  });
  afterAll(async () => {
    await duck?.close();
  });

  for (const binary of [false, true]) {
    it(`${binary ? 'binary' : 'Int32'} keys: every join type x filter x batch size x stream`, async () => {
      const rng = new Rng(binary ? 77 : 42);
      const pool = Array.from({ length: 100 }, () => Uint8Array.from({ length: rng.int(4, 16) }, () => rng.int(0, 255)));
      const left = makeSide(rng, binary, pool, true);
      const right = makeSide(rng, binary, pool, false);
      await duck.loadTable('l', left.table);
      await duck.loadTable('r', right.table);
      const oracle = await Engine.create({ join: 'nested-loop' });
      let runs = 0;
      for (const { type, nullAware, on } of VARIANTS) {
        for (const filter of [undefined, 'r.x < l.x']) {
          const spec = toJoinSpec({ type, on, filter, nullAware });
          const expected = (await oracle.join(spec, left.table, right.table)).table;
          const sql = joinToSql(spec, { table: 'l', columns: left.table.schema.fields.map((f) => f.name) }, { table: 'r', columns: right.table.schema.fields.map((f) => f.name) });
          const vsDuck = compareResults(expected, await duck.query(sql));
          expect(vsDuck.equal, `oracle vs DuckDB, ${type} filter=${filter}\n${formatComparison(vsDuck)}`).toBe(true);
          for (const batchSize of BATCH_SIZES) {
            for (const stream of STREAMS) {
              // binary keys are sorted by bytes, which is their declared order too
              const declared = (batchSize + runs) % 3 !== 0;
              const engine = await Engine.create({ join: 'sort-merge', 'smj.existence': stream, batchSize });
              const l = slicedScan(left.batches, left.table.schema, 'left', declared ? SORTED : undefined);
              const r = slicedScan(right.batches, right.table.schema, 'right', declared ? SORTED : undefined);
              const result = await engine.join(spec, l, r);
              const cmp = compareResults(result.table, expected);
              const what = `${type}${nullAware ? ' NOT IN' : ''} filter=${filter ?? 'none'} batchSize=${batchSize} stream=${stream} declared=${declared}`;
              expect(cmp.equal, `${what}\n${formatComparison(cmp)}`).toBe(true);
              expect(result.table.batches.every((b) => b.numRows <= batchSize), what).toBe(true);
              if (!nullAware) expect(result.metrics.operators.join!.details.order).toContain(declared ? 'declared (checked)' : 'sorted');
              runs++;
            }
          }
        }
      }
      expect(runs).toBe(VARIANTS.length * 2 * BATCH_SIZES.length * STREAMS.length);
    }, 300_000);
  }
});
