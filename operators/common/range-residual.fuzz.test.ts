/**
 * An equi-key plus a range predicate (`--on k=k --range "t OP t"`): the hash and sort-merge joins
 * run the range as part of their residual filter (range-residual.ts). Each against the nested-loop
 * oracle, and the oracle against DuckDB, on random inputs: 0–20 rows a side, an equi-key in 1..3
 * and a range column in 1..5, both with 20% NULLs (duplicates and ties are the rule, empty and
 * all-NULL inputs occur), cut into batches of 1–5 rows with empty batches between them, output
 * batch sizes 1..7 — every join type, each range operator, with and without a second filter,
 * NULL = NULL keys and NOT IN (null-aware anti); the hash join in both modes with either build
 * side and every pushdown policy (one run in six through the grace hash join,
 * `hash.spill: always`), the sort-merge join with every existence stream. The range
 * column's type varies with the seed: Int32, Int32 against Int64, Float64 with -0.0 / NaN /
 * ±Infinity, Utf8. Then: `auto` picks hash for it, and the dynamic filter stays the equi-key's.
 */
import * as arrow from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { joinToSql } from '../../adapters/duckdb/join-sql.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { Rng } from '../../core/random.ts';
import { PUSHDOWN, SMJ_EXISTENCE } from '../../core/registry/slots.ts';
import { toJoinSpec, type JoinSpecInput } from '../../core/spec.ts';
import { isAntiJoin, JOIN_TYPES, RANGE_OPS } from '../../core/types.ts';
import { slicedScan } from '../sort-merge-join/test-helpers.ts';
import { RANGE_KEY_TYPES, rangeKeyVector, tinySlices } from './range-key-fixtures.ts';

const SEEDS = 12;
const COLUMNS = ['k', 't', 'v'];

function makeTable(rng: Rng, type: (typeof RANGE_KEY_TYPES)[number], side: 0 | 1, n = rng.int(0, 20)): arrow.Table {
  const k = arrow.vectorFromArray(Array.from({ length: n }, () => (rng.chance(0.2) ? null : rng.int(1, 3))), new arrow.Int32());
  const v = arrow.vectorFromArray(Array.from({ length: n }, (_, i) => i * 10 + side), new arrow.Int32());
  return new arrow.Table({ k, t: rangeKeyVector(rng, n, type, side, 5), v });
}

describe('equi-key + range: hash and sort-merge (range as residual) vs nested-loop vs DuckDB', () => {
  let duck: DuckDBSession;
  let oracle: Engine;
  let pushdowns: string[];
  let existences: string[];
  const engines = new Map<string, Engine>();
  const engine = async (config: Record<string, unknown>): Promise<Engine> => {
    const key = JSON.stringify(config);
    let e = engines.get(key);
    if (e === undefined) engines.set(key, (e = await Engine.create(config)));
    return e;
  };
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
    oracle = await Engine.create({ join: 'nested-loop' });
    pushdowns = oracle.registry.names(PUSHDOWN);
    existences = oracle.registry.names(SMJ_EXISTENCE);
  });
  afterAll(async () => {
    await duck?.close();
  });

  for (let chunk = 0; chunk < 2; chunk++) {
    const first = chunk * (SEEDS / 2);
    it(`seeds ${first}..${first + SEEDS / 2 - 1}: every join type x 4 operators, filter, NULL = NULL, NOT IN`, async () => {
      let matched = 0;
      let runs = 0;
      for (let seed = first; seed < first + SEEDS / 2; seed++) {
        const rng = new Rng(8300 + seed);
        const ttype = RANGE_KEY_TYPES[seed % RANGE_KEY_TYPES.length]!;
        const left = makeTable(rng, ttype, 0);
        const right = makeTable(rng, ttype, 1);
        await duck.loadTable('l', left);
        await duck.loadTable('r', right);
        for (const type of JOIN_TYPES) {
          for (const op of RANGE_OPS) {
            const nullAware = isAntiJoin(type) && rng.chance(0.5);
            const filter = rng.chance(0.4) ? 'l.v % 3 <> r.v % 4' : undefined;
            const input: JoinSpecInput = { type, on: 'k=k', range: `t ${op} t`, ...(filter ? { filter } : {}), nullAware, nullEqualsNull: !nullAware && rng.chance(0.3) };
            const spec = toJoinSpec(input);
            const what = `seed ${seed} ${ttype} ${JSON.stringify(input)}`;
            const expected = (await oracle.join(spec, left, right)).table;
            // DuckDB checks the oracle
            const sql = joinToSql(spec, { table: 'l', columns: COLUMNS }, { table: 'r', columns: COLUMNS });
            const vsDuck = compareResults(expected, await duck.query(sql));
            expect(vsDuck.equal, `${what}: oracle vs DuckDB\n${sql}\n${formatComparison(vsDuck)}`).toBe(true);
            if (type === 'inner') matched += expected.numRows;
            const configs: Record<string, unknown>[] = [
              {
                join: 'hash',
                'hash.mode': rng.chance(0.5) ? 'collect-left' : 'partitioned',
                'hash.partitions': rng.int(2, 4),
                'hash.build': rng.pick(['left', 'right', 'auto']),
                pushdown: rng.pick(pushdowns),
                batchSize: rng.int(1, 7),
                // the grace hash join (partitions joined one at a time) one run in six
                ...(rng.chance(1 / 6) ? { 'hash.spill': 'always', 'hash.spillPartitions': rng.int(2, 4) } : {}),
              },
              { join: 'sort-merge', 'smj.existence': rng.pick(existences), batchSize: rng.int(1, 7) },
            ];
            for (const config of configs) {
              const r = await (await engine(config)).join(spec, slicedScan(tinySlices(left, rng), left.schema, 'l'), slicedScan(tinySlices(right, rng), right.schema, 'r'));
              expect(r.metrics.algorithm, what).toBe(config.join);
              const cmp = compareResults(r.table, expected);
              expect(cmp.equal, `${what} ${JSON.stringify(config)}\n${formatComparison(cmp)}`).toBe(true);
              expect(r.table.batches.every((b) => b.numRows <= (config.batchSize as number)), what).toBe(true);
              runs++;
            }
          }
        }
      }
      expect(runs).toBe((SEEDS / 2) * JOIN_TYPES.length * RANGE_OPS.length * 2);
      expect(matched).toBeGreaterThan(SEEDS * 4); // the draw is not degenerate
    }, 120_000);
  }

  it('auto runs it as a hash join; the dynamic filter is the equi-key\'s, never the range\'s', async () => {
    // every right t is above every left t: `l.t > r.t` matches nothing, but the keys all match
    const left = new arrow.Table({ k: arrow.vectorFromArray([1, 2, 3], new arrow.Int32()), t: arrow.vectorFromArray([1, 2, 3], new arrow.Int32()) });
    const right = new arrow.Table({ k: arrow.vectorFromArray([1, 2, 9], new arrow.Int32()), t: arrow.vectorFromArray([10, 20, 30], new arrow.Int32()) });
    const e = await Engine.create({ pushdown: 'bounds' });
    const inner = await e.join(toJoinSpec({ type: 'inner', on: 'k=k', range: 't > t' }), left, right);
    expect(inner.metrics).toMatchObject({ algorithm: 'hash', chosenBy: 'auto' });
    expect(inner.table.numRows).toBe(0);
    const semi = await e.join(toJoinSpec({ type: 'left-semi', on: 'k=k', range: 't < t' }), left, right);
    expect(semi.metrics.algorithm).toBe('hash');
    expect([...semi.table.getChild('k')!]).toEqual([1, 2]);
    // the filter pushed into the probe side is on k (the build's keys), whatever the range says
    const d = semi.metrics.operators.join!.details;
    expect(String(d.dynamicFilter)).toMatch(/\bk\b/);
    expect(String(d.dynamicFilter)).not.toMatch(/\bt\b/);
    const anti = await e.join(toJoinSpec({ type: 'left-anti', on: 'k=k', range: 't > t', nullAware: true }), left, right);
    expect([...anti.table.getChild('k')!]).toEqual([1, 2, 3]);
  });

  it('SQL: ON l.k = r.k AND l.t < r.t is a hash join with the inequality in its filter, as DuckDB answers it', async () => {
    const rng = new Rng(5);
    const l = makeTable(rng, 'int32', 0, 30);
    const r = makeTable(rng, 'int32', 1, 30);
    const e = await Engine.create({});
    for (const join of ['JOIN', 'LEFT JOIN', 'FULL JOIN']) {
      const sql = `SELECT l.v, r.v AS rv FROM l ${join} r ON l.k = r.k AND l.t < r.t`;
      const got = await e.sql(sql, { l, r });
      await duck.loadTable('l', l);
      await duck.loadTable('r', r);
      const cmp = compareResults(got.table, await duck.query(sql));
      expect(cmp.equal, `${sql}\n${formatComparison(cmp)}`).toBe(true);
      expect(got.joins.map((j) => [j.algorithm, j.chosenBy]), sql).toEqual([['hash', 'auto']]);
    }
  });
});
