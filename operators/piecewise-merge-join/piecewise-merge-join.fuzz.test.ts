/**
 * The piecewise merge join on the fuzz shape of DataFusion's `fuzz_pwmj_matches_nested_loop`:
 * 60 seeds, 0–24 rows a side, keys in 1..5 with 20% NULLs, inputs cut into batches of 1–5 rows
 * with empty batches between them, 1–3 streamed partitions, output batch sizes 3 and 1 — every
 * join type x every range operator x both search strategies x prefilter on and off, against the
 * nested-loop oracle, and the oracle against DuckDB. The key type varies with the seed: Int32,
 * Int32 against Int64 (widened), Float64 with -0.0 / NaN / ±Infinity among the values, and Utf8
 * (the comparator path), so both of match.ts's paths run. Half the runs read in-memory tables, whose
 * containers the extreme-key filter (range-filter.ts) prunes by their zone maps.
 */
import * as arrow from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { joinToSql } from '../../adapters/duckdb/join-sql.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { Rng } from '../../core/random.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { JOIN_TYPES, RANGE_OPS } from '../../core/types.ts';
import { slicedScan } from '../sort-merge-join/test-helpers.ts';
import { RANGE_KEY_TYPES, rangeKeyVector, type RangeKeyType, tinySlices } from '../common/range-key-fixtures.ts';

const SEEDS = 60;
const BATCH_SIZES = [3, 1];
const SEARCHES = ['binary', 'linear'];
const KEY_TYPES = RANGE_KEY_TYPES;
type KeyType = RangeKeyType;
const keyVector = (rng: Rng, n: number, type: KeyType, side: 0 | 1): arrow.Vector => rangeKeyVector(rng, n, type, side, 5);

function makeTable(rng: Rng, type: KeyType, side: 0 | 1): arrow.Table {
  const n = rng.int(0, 24);
  const k = keyVector(rng, n, type, side);
  const v = arrow.vectorFromArray(Array.from({ length: n }, (_, i) => i * 10 + side), new arrow.Int32());
  return new arrow.Table({ k, v });
}

describe('piecewise merge join vs nested-loop vs DuckDB (60 seeds, 0–24 rows a side)', () => {
  let duck: DuckDBSession;
  const engines = new Map<string, Engine>();
  const engine = async (config: Record<string, unknown>): Promise<Engine> => {
    const key = JSON.stringify(config);
    let e = engines.get(key);
    if (e === undefined) engines.set(key, (e = await Engine.create(config)));
    return e;
  };
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
  });
  afterAll(async () => {
    await duck?.close();
  });

  for (let chunk = 0; chunk < 4; chunk++) {
    it(`seeds ${chunk * 15}..${chunk * 15 + 14}: every join type x operator x search x prefilter x batch size`, async () => {
      let runs = 0;
      let matchedSomething = 0;
      for (let seed = chunk * 15; seed < chunk * 15 + 15; seed++) {
        const rng = new Rng(1000 + seed);
        const type = KEY_TYPES[seed % KEY_TYPES.length]!;
        const partitions = 1 + (seed % 3);
        const left = makeTable(rng, type, 0);
        const right = makeTable(rng, type, 1);
        const leftBatches = tinySlices(left, rng);
        const rightBatches = tinySlices(right, rng);
        await duck.loadTable('l', left);
        await duck.loadTable('r', right);
        const oracle = await engine({ join: 'nested-loop' });
        for (const joinType of JOIN_TYPES) {
          for (const op of RANGE_OPS) {
            const spec = toJoinSpec({ type: joinType, range: `k ${op} k` });
            const expected = (await oracle.join(spec, left, right)).table;
            if (expected.numRows > 0) matchedSomething++;
            const sql = joinToSql(spec, { table: 'l', columns: ['k', 'v'] }, { table: 'r', columns: ['k', 'v'] });
            const vsDuck = compareResults(expected, await duck.query(sql));
            expect(vsDuck.equal, `seed ${seed} ${type}: oracle vs DuckDB, ${joinType} k ${op} k\n${formatComparison(vsDuck)}`).toBe(true);
            for (const search of SEARCHES) {
              for (const prefilter of [true, false]) {
                for (const batchSize of BATCH_SIZES) {
                  const e = await engine({ join: 'piecewise', 'pwmj.search': search, 'pwmj.prefilter': prefilter, 'pwmj.partitions': partitions, batchSize });
                  // batch size 3: in-memory tables of those batches, whose zone maps the extreme-key
                  // filter prunes; batch size 1: scans of exactly the batches (empty ones included)
                  const result =
                    batchSize === 3
                      ? await e.join(spec, new arrow.Table(left.schema, leftBatches), new arrow.Table(right.schema, rightBatches))
                      : await e.join(spec, slicedScan(leftBatches, left.schema, 'l'), slicedScan(rightBatches, right.schema, 'r'));
                  const what = `seed ${seed} ${type} ${joinType} k ${op} k search=${search} prefilter=${prefilter} batchSize=${batchSize} partitions=${partitions}`;
                  const cmp = compareResults(result.table, expected);
                  expect(cmp.equal, `${what}\n${formatComparison(cmp)}`).toBe(true);
                  expect(result.table.batches.every((b) => b.numRows <= batchSize), what).toBe(true);
                  runs++;
                }
              }
            }
          }
        }
      }
      expect(runs).toBe(15 * JOIN_TYPES.length * RANGE_OPS.length * SEARCHES.length * 2 * BATCH_SIZES.length);
      expect(matchedSomething).toBeGreaterThan(100); // the draw is not degenerate
    }, 120_000);
  }
});

describe('piecewise merge join output as runs (fixed-width columns without NULLs) vs by index', () => {
  it('every classic join type x operator x batch size: the same rows as the oracle, through both output paths', async () => {
    const rng = new Rng(77);
    const side = (n: number, nullPayload: boolean) =>
      new arrow.Table({
        k: arrow.vectorFromArray(Array.from({ length: n }, () => BigInt(rng.int(0, 40))), new arrow.Int64()),
        x: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => (nullPayload && i % 5 === 0 ? null : i + 0.5)), new arrow.Float64()),
        d: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => i * 3), new arrow.Int32()),
      });
    const oracle = await Engine.create({ join: 'nested-loop' });
    let viaRuns = 0;
    let viaIndex = 0;
    for (const nullPayload of [false, true]) {
      const left = side(150, nullPayload);
      const right = side(220, false);
      for (const type of ['inner', 'left', 'right', 'full'] as const) {
        for (const op of RANGE_OPS) {
          for (const batchSize of [7, 8192]) {
            const spec = toJoinSpec({ type, range: `k ${op} k`, select: 'x,d,d_right,x_right' });
            const expected = (await oracle.join(spec, left, right)).table;
            const result = await (await Engine.create({ join: 'piecewise', batchSize })).join(spec, left, right);
            const cmp = compareResults(result.table, expected);
            expect(cmp.equal, `${type} k ${op} k batchSize=${batchSize} nullPayload=${nullPayload}\n${formatComparison(cmp)}`).toBe(true);
            expect(result.table.batches.every((b) => b.numRows <= batchSize)).toBe(true);
            const runs = result.metrics.operators.join!.counters.runBatches ?? 0;
            if (runs > 0) viaRuns++;
            else viaIndex++;
            if (nullPayload) expect(runs, 'a NULL in a buffered output column: gathered by index').toBe(0);
          }
        }
      }
    }
    expect(viaRuns).toBeGreaterThan(0);
    expect(viaIndex).toBeGreaterThan(0);
  });
});
