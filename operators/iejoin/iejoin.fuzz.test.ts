/**
 * The IEJoin against the nested-loop oracle, and the oracle against DuckDB, on random inputs:
 * 0–20 rows a side, keys in 1..4 with 20% NULLs (so duplicates and ties are the rule, empty and
 * all-NULL inputs occur), cut into batches of 1–5 rows with empty batches between them, output
 * batch sizes drawn from 1..7 — every supported join type (inner, left, right, full) x all 16
 * operator pairs (`l.a OP1 r.a` as the range, `l.b OP2 r.b` in the filter). The key types vary
 * with the seed: Int32, Int32 against Int64 (widened), Float64 with -0.0 / NaN / ±Infinity, Utf8.
 * Then the shapes around it: both conditions in the filter (one with its operands reversed), a
 * residual beside them, a third inequality; inputs spanning several 1024-position chunks of the
 * chunk index; the refusals (semi / anti / mark, an equi-key, one condition) and `auto`'s choice.
 */
import * as arrow from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { joinToSql } from '../../adapters/duckdb/join-sql.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { MemoryLimitError, UnsupportedJoinError } from '../../core/errors.ts';
import { Rng } from '../../core/random.ts';
import { toJoinSpec, type JoinSpecInput } from '../../core/spec.ts';
import { RANGE_OPS } from '../../core/types.ts';
import { slicedScan } from '../sort-merge-join/test-helpers.ts';
import { RANGE_KEY_TYPES, rangeKeyVector, type RangeKeyType, tinySlices } from '../common/range-key-fixtures.ts';

const SEEDS = 16;
const TYPES = ['inner', 'left', 'right', 'full'] as const;
const KEY_TYPES = RANGE_KEY_TYPES;
type KeyType = RangeKeyType;
const keyVector = (rng: Rng, n: number, type: KeyType, side: 0 | 1): arrow.Vector => rangeKeyVector(rng, n, type, side, 4);

function makeTable(rng: Rng, type: KeyType, side: 0 | 1, n = rng.int(0, 20)): arrow.Table {
  const v = arrow.vectorFromArray(Array.from({ length: n }, (_, i) => i * 10 + side), new arrow.Int32());
  return new arrow.Table({ a: keyVector(rng, n, type, side), b: keyVector(rng, n, type, side), v });
}

describe('IEJoin vs nested-loop vs DuckDB', () => {
  let duck: DuckDBSession;
  let oracle: Engine;
  const engines = new Map<number, Engine>();
  const iejoin = async (batchSize: number): Promise<Engine> => {
    let e = engines.get(batchSize);
    if (e === undefined) engines.set(batchSize, (e = await Engine.create({ join: 'iejoin', batchSize })));
    return e;
  };
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
    oracle = await Engine.create({ join: 'nested-loop' });
  });
  afterAll(async () => {
    await duck?.close();
  });

  /** Runs `spec` on the IEJoin over the sliced inputs and on the oracle; DuckDB checks the oracle when `withDuck`. */
  async function check(what: string, spec: JoinSpecInput, left: arrow.Table, right: arrow.Table, rng: Rng, withDuck: boolean): Promise<number> {
    const s = toJoinSpec(spec);
    const expected = (await oracle.join(s, left, right)).table;
    if (withDuck) {
      const sql = joinToSql(s, { table: 'l', columns: ['a', 'b', 'v'] }, { table: 'r', columns: ['a', 'b', 'v'] });
      const vsDuck = compareResults(expected, await duck.query(sql));
      expect(vsDuck.equal, `${what}: oracle vs DuckDB\n${sql}\n${formatComparison(vsDuck)}`).toBe(true);
    }
    const batchSize = rng.int(1, 7);
    const e = await iejoin(batchSize);
    const result = await e.join(s, slicedScan(tinySlices(left, rng), left.schema, 'l'), slicedScan(tinySlices(right, rng), right.schema, 'r'));
    expect(result.metrics.algorithm, what).toBe('iejoin');
    const cmp = compareResults(result.table, expected);
    expect(cmp.equal, `${what} batchSize=${batchSize}\n${formatComparison(cmp)}`).toBe(true);
    expect(result.table.batches.every((b) => b.numRows <= batchSize), what).toBe(true);
    return expected.numRows;
  }

  for (let chunk = 0; chunk < 2; chunk++) {
    const first = chunk * (SEEDS / 2);
    it(`seeds ${first}..${first + SEEDS / 2 - 1}: every join type x 16 operator pairs, batch sizes 1..7`, async () => {
      let runs = 0;
      let matched = 0;
      for (let seed = first; seed < first + SEEDS / 2; seed++) {
        const rng = new Rng(5000 + seed);
        const type = KEY_TYPES[seed % KEY_TYPES.length]!;
        const left = makeTable(rng, type, 0);
        const right = makeTable(rng, type, 1);
        await duck.loadTable('l', left);
        await duck.loadTable('r', right);
        for (const joinType of TYPES) {
          for (const op1 of RANGE_OPS) {
            for (const op2 of RANGE_OPS) {
              const spec = { type: joinType, range: `a ${op1} a`, filter: `l.b ${op2} r.b` };
              // DuckDB for every op pair on the inner and full joins (the others are their halves)
              const rows = await check(`seed ${seed} ${type} ${joinType} a ${op1} a AND b ${op2} b`, spec, left, right, rng, joinType === 'inner' || joinType === 'full');
              if (joinType === 'inner' && rows > 0) matched++;
              runs++;
            }
          }
        }
      }
      expect(runs).toBe((SEEDS / 2) * TYPES.length * 16);
      expect(matched).toBeGreaterThan(SEEDS * 2); // the draw is not degenerate
    }, 120_000);
  }

  it('both conditions in the filter (operands reversed), a residual beside them, a third inequality', async () => {
    for (let seed = 0; seed < 12; seed++) {
      const rng = new Rng(6000 + seed);
      const type = KEY_TYPES[seed % KEY_TYPES.length]!;
      const left = makeTable(rng, type, 0);
      const right = makeTable(rng, type, 1);
      await duck.loadTable('l', left);
      await duck.loadTable('r', right);
      const op = () => RANGE_OPS[rng.int(0, 3)]!;
      for (const joinType of TYPES) {
        const shapes: JoinSpecInput[] = [
          { type: joinType, filter: `r.a ${op()} l.a AND l.b ${op()} r.b` },
          { type: joinType, range: `a ${op()} b`, filter: `l.b ${op()} r.a AND l.v % 3 <> r.v % 4` },
          { type: joinType, filter: `l.a ${op()} r.a AND (l.b ${op()} r.b AND l.b ${op()} r.a)` },
        ];
        for (const spec of shapes) await check(`seed ${seed} ${type} ${JSON.stringify(spec)}`, spec, left, right, rng, true);
      }
    }
  }, 60_000);

  it('overlapping intervals over several chunks of the chunk index (2 x 1500 rows): every pair a brute force finds', async () => {
    const rng = new Rng(99);
    const side = (n: number) => {
      const s = Array.from({ length: n }, () => (rng.chance(0.03) ? null : rng.int(0, 30_000)));
      return new arrow.Table({
        a: arrow.vectorFromArray(s, new arrow.Int32()),
        b: arrow.vectorFromArray(s.map((x) => (x === null ? null : x + rng.int(0, 150))), new arrow.Int32()),
        v: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => i), new arrow.Int32()),
      });
    };
    const left = side(1500);
    const right = side(1500);
    const col = (t: arrow.Table, c: string) => [...t.getChild(c)!] as (number | null)[]; // NULLs as null (toArray() would give 0)
    const [la, lb, ra, rb] = [col(left, 'a'), col(left, 'b'), col(right, 'a'), col(right, 'b')];
    for (const [op1, op2] of [['<', '>'], ['<=', '>=']] as const) {
      // l.a OP1 r.b AND l.b OP2 r.a: the intervals overlap (DuckDB's IEJoin benchmark shape)
      const holds = (x: number, op: string, y: number) => (op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y);
      const expected: number[] = [];
      for (let i = 0; i < 1500; i++) {
        if (la[i] === null || lb[i] === null) continue;
        for (let j = 0; j < 1500; j++) if (rb[j] !== null && ra[j] !== null && holds(la[i]!, op1, rb[j]!) && holds(lb[i]!, op2, ra[j]!)) expected.push(i * 1500 + j);
      }
      const spec = toJoinSpec({ type: 'inner', range: `a ${op1} b`, filter: `l.b ${op2} r.a`, select: 'v,v_right' });
      const result = await (await iejoin(1000)).join(spec, left, right);
      const got: number[] = [];
      for (const b of result.table.batches) {
        const lv = b.getChild('v')!.toArray() as Int32Array;
        const rv = b.getChild('v_right')!.toArray() as Int32Array;
        for (let k = 0; k < b.numRows; k++) got.push(lv[k]! * 1500 + rv[k]!);
      }
      const sort = (x: number[]) => Float64Array.from(x).sort();
      expect(expected.length, `${op1} ${op2}`).toBeGreaterThan(1000);
      expect(sort(got), `${op1} ${op2}`).toEqual(sort(expected));
    }
  });
});

describe('IEJoin refusals and the planner', () => {
  const left = new arrow.Table({ a: arrow.vectorFromArray([1, 2, 3], new arrow.Int32()), b: arrow.vectorFromArray([3, 2, 1], new arrow.Int32()) });
  const right = new arrow.Table({ a: arrow.vectorFromArray([2, 3], new arrow.Int32()), b: arrow.vectorFromArray([1, 1], new arrow.Int32()) });

  it('refuses semi / anti / mark (DuckDB never plans an IEJoin for them), an equi-key, one condition', async () => {
    const e = await Engine.create({ join: 'iejoin' });
    for (const type of ['left-semi', 'left-anti', 'right-semi', 'right-anti', 'left-mark', 'right-mark'] as const) {
      await expect(e.join(toJoinSpec({ type, range: 'a < a', filter: 'l.b > r.b' }), left, right)).rejects.toThrow(/never plans an IEJoin/);
    }
    await expect(e.join(toJoinSpec({ type: 'inner', on: 'a=a', filter: 'l.b > r.b AND l.a < r.b' }), left, right)).rejects.toThrow(UnsupportedJoinError);
    await expect(e.join(toJoinSpec({ type: 'inner', range: 'a < a', filter: 'l.b + 1 > r.b' }), left, right)).rejects.toThrow(/two inequality conditions/);
  });

  it('auto picks iejoin for two inequalities on inner / left / right / full, keeps nested-loop for semi / anti / mark', async () => {
    const e = await Engine.create({});
    for (const type of TYPES) {
      const r = await e.join(toJoinSpec({ type, range: 'a < a', filter: 'l.b > r.b' }), left, right);
      expect(r.metrics, type).toMatchObject({ algorithm: 'iejoin', chosenBy: 'auto' });
      expect(r.metrics.operators.join!.details.conditions, type).toBe('l.a < r.a (L1), l.b > r.b (L2)');
    }
    const semi = await e.join(toJoinSpec({ type: 'left-semi', range: 'a < a', filter: 'l.b > r.b' }), left, right);
    expect(semi.metrics.algorithm).toBe('nested-loop');
    expect(semi.table.numRows).toBe(2); // l(1, 3) matches r(2, 1), l(2, 2) matches r(3, 1)
  });

  it('SQL: an ON with two inequalities runs on the IEJoin under auto, as DuckDB answers it', async () => {
    const duck = await DuckDBSession.open({ threads: 1 });
    try {
      const rng = new Rng(7);
      const l = makeTable(rng, 'int32', 0, 30);
      const r = makeTable(rng, 'int32', 1, 30);
      await duck.loadTable('l', l);
      await duck.loadTable('r', r);
      const e = await Engine.create({});
      for (const join of ['JOIN', 'LEFT JOIN', 'FULL JOIN']) {
        const sql = `SELECT l.v, r.v AS rv FROM l ${join} r ON l.a <= r.a AND r.b < l.b`;
        const got = await e.sql(sql, { l, r });
        const cmp = compareResults(got.table, await duck.query(sql));
        expect(cmp.equal, `${sql}\n${formatComparison(cmp)}`).toBe(true);
        expect(got.joins.map((j) => [j.algorithm, j.chosenBy]), sql).toEqual([['iejoin', 'auto']]);
      }
    } finally {
      await duck.close();
    }
  });

  it('reserves through the memory pool: a limit below what it holds is a MemoryLimitError naming it', async () => {
    const rng = new Rng(3);
    const l = makeTable(rng, 'int32', 0, 2000);
    const r = makeTable(rng, 'int32', 1, 2000);
    const spec = toJoinSpec({ type: 'inner', range: 'a < a', filter: 'l.b > r.b' });
    const e = await Engine.create({ join: 'iejoin', memoryLimit: 64 * 1024 });
    const err = await e.join(spec, l, r).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(MemoryLimitError);
    expect((err as MemoryLimitError).consumer).toMatch(/iejoin/);
    const ok = await (await Engine.create({ join: 'iejoin' })).join(spec, l, r);
    expect(ok.metrics.operators.join!.peakReservedBytes).toBeGreaterThan(64 * 1024);
  });
});
