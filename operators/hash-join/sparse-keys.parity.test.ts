/**
 * The hash join on sparse integer keys — the shape where `hashmap=auto` builds the `rank` layout
 * (too sparse for `array`, dense enough for a small directory), which the small random domains of
 * hash-join.parity.test.ts never reach. Keys are multiples of 7 around a high-word boundary (int64)
 * or near the bottom of int32, with NULLs and duplicates; every join type x pushdown x mode is
 * checked against DuckDB, and the metrics must say `rank` was built.
 */
import { Int32, Int64, Table, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { joinToSql } from '../../adapters/duckdb/join-sql.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { rebatch } from '../../adapters/datagen/random-tables.ts';
import { Engine } from '../../composition.ts';
import { Rng } from '../../core/random.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { JOIN_TYPES } from '../../core/types.ts';

const BUILD_ROWS = 1500;
const PROBE_ROWS = 6000;

function sides(type: 'int64' | 'int32', seed: number): { left: Table; right: Table } {
  const rng = new Rng(seed);
  // int64: 2^32 - 7000 .. 2^32 + 7000 (the range crosses a high word); int32: from -2^31
  const base = type === 'int64' ? 2 ** 32 - 7000 : -(2 ** 31);
  const key = (spreadOver: number, nullRate: number) => (rng.next() < nullRate ? null : base + 7 * Math.floor(rng.next() * spreadOver));
  // 1500 rows over a range of 10500: too sparse for array (density ~0.14), and a rank directory of
  // ~3.7 bytes per row even in each of 2 partitions (auto's limit is 6)
  const build = Array.from({ length: BUILD_ROWS }, () => key(1500, 0.05));
  // probe keys: most on the build's grid, some off it, some outside its range on both sides
  const probe = Array.from({ length: PROBE_ROWS }, () => {
    const r = rng.next();
    if (r < 0.1) return null;
    if (r < 0.3) return base - 50 + Math.floor(rng.next() * 10_600);
    return key(1600, 0);
  });
  const column = (xs: (number | null)[]) =>
    type === 'int64' ? vectorFromArray(xs.map((x) => (x === null ? null : BigInt(x))), new Int64()) : vectorFromArray(xs, new Int32());
  const tag = (n: number) => vectorFromArray(Array.from({ length: n }, (_, i) => i), new Int32());
  return {
    left: rebatch(new Table({ k: column(probe), lt: tag(PROBE_ROWS) }), 777),
    right: rebatch(new Table({ k: column(build), rt: tag(BUILD_ROWS) }), 333),
  };
}

describe('hash join on sparse integer keys (auto builds rank)', () => {
  let duck: DuckDBSession;
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
  });
  afterAll(async () => {
    await duck?.close();
  });

  for (const type of ['int64', 'int32'] as const) {
    it(`${type}: every join type x pushdown x mode agrees with DuckDB`, async () => {
      const { left, right } = sides(type, type === 'int64' ? 11 : 12);
      await duck.loadTable('l', left);
      await duck.loadTable('r', right);
      try {
        for (const pushdown of ['none', 'map', 'auto'] as const) {
          for (const mode of [{ 'hash.mode': 'collect-left' }, { 'hash.mode': 'partitioned', 'hash.partitions': 2 }] as const) {
            const engine = await Engine.create({ join: 'hash', hashmap: 'auto', pushdown, 'hash.build': 'right', batchSize: 500, ...mode });
            for (const joinType of JOIN_TYPES) {
              const spec = toJoinSpec({ type: joinType, on: 'k=k' });
              const { table, metrics } = await engine.join(spec, left, right);
              expect(metrics.operators.join!.details.hashmap, `${joinType} ${pushdown}`).toBe('rank');
              const sql = joinToSql(spec, { table: 'l', columns: ['k', 'lt'] }, { table: 'r', columns: ['k', 'rt'] });
              const cmp = compareResults(table, await duck.query(sql));
              expect(cmp.equal, `${type} ${joinType} pushdown=${pushdown} ${mode['hash.mode']}\n${formatComparison(cmp)}`).toBe(true);
            }
          }
        }
      } finally {
        await duck.run('DROP TABLE l; DROP TABLE r;');
      }
    });
  }
});
