/**
 * The ASOF join against a brute-force oracle and DuckDB's own `ASOF JOIN`, on random inputs: 0–20
 * rows a side, an equi-key k in 1..3 and a time t in 1..6, both with 20% NULLs (so duplicates and
 * ties on the closest t are the rule; empty and all-NULL inputs occur), cut into batches of 1–5
 * rows with empty batches between them, output batch sizes 1..7 — inner / left / right / full x
 * the four operators x with and without the equi-key. t's type varies with the seed: Int32, Int32
 * against Int64, Float64 with -0.0 / NaN / ±Infinity, Utf8.
 *
 * Ties: DuckDB returns ONE of the right rows sharing the closest t (which one is arbitrary), so
 * results are compared in a canonical form that names a right row by its (k, t) — -0.0 as 0.0 —
 * not its id; the oracle also checks that each row joinlab picked really is one of the closest.
 */
import * as arrow from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { caseSpace } from '../../adapters/datagen/random-cases.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { MemoryLimitError, UnsupportedJoinError } from '../../core/errors.ts';
import { Rng } from '../../core/random.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { RANGE_OPS, type RangeOp } from '../../core/types.ts';
import { slicedScan } from '../sort-merge-join/test-helpers.ts';
import { RANGE_KEY_TYPES, rangeKeyVector, type RangeKeyType, tinySlices } from '../common/range-key-fixtures.ts';

const SEEDS = 24;
const TYPES = ['inner', 'left', 'right', 'full'] as const;
type Val = number | bigint | string | null;

function makeTable(rng: Rng, type: RangeKeyType, side: 0 | 1, n = rng.int(0, 20)): arrow.Table {
  const k = arrow.vectorFromArray(Array.from({ length: n }, () => (rng.chance(0.2) ? null : rng.int(1, 3))), new arrow.Int32());
  const id = arrow.vectorFromArray(Array.from({ length: n }, (_, i) => i), new arrow.Int32());
  return new arrow.Table({ k, t: rangeKeyVector(rng, n, type, side, 6), id });
}

const values = (t: arrow.Table, c: string): Val[] => [...t.getChild(c)!] as Val[];

/** DuckDB's order: numbers numerically with NaN above all and -0 = 0; strings in byte (here code unit) order. */
function compare(a: Val, b: Val): number {
  if (typeof a === 'string' || typeof b === 'string') return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) ? (Number.isNaN(y) ? 0 : 1) : -1;
  return x < y ? -1 : x > y ? 1 : 0;
}
const holds = (c: number, op: RangeOp): boolean => (op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0);
const canon = (v: Val): string => (v === null ? 'null' : typeof v === 'number' && Object.is(v, -0) ? '0' : String(v));

interface Sides {
  readonly lk: Val[];
  readonly lt: Val[];
  readonly rk: Val[];
  readonly rt: Val[];
}
const rightName = (s: Sides, j: number, keyed: boolean): string => `${keyed ? canon(s.rk[j]!) : ''}@${canon(s.rt[j]!)}`;

/** For each left row, the closest right rows (all of them, ties included); empty when none. */
function closestRows(s: Sides, op: RangeOp, keyed: boolean): number[][] {
  return s.lt.map((t, i) => {
    if (t === null || (keyed && s.lk[i] === null)) return [];
    let best: number[] = [];
    for (let j = 0; j < s.rt.length; j++) {
      if (s.rt[j] === null || (keyed && (s.rk[j] === null || s.rk[j] !== s.lk[i]))) continue;
      if (!holds(compare(t, s.rt[j]!), op)) continue;
      if (best.length === 0) best = [j];
      else {
        const c = compare(s.rt[j]!, s.rt[best[0]!]!);
        // >, >=: the largest r.t; <, <=: the smallest
        const better = op === '>' || op === '>=' ? c > 0 : c < 0;
        if (better) best = [j];
        else if (c === 0) best.push(j);
      }
    }
    return best;
  });
}

/** A result (columns id, id_right) in canonical form: "lid|right (k, t)" rows, sorted. */
function canonical(lid: (number | null)[], rid: (number | null)[], s: Sides, keyed: boolean): string[] {
  return lid.map((l, n) => `${l ?? '-'}|${rid[n] === null ? '-' : rightName(s, rid[n]!, keyed)}`).sort();
}

describe('ASOF join vs a brute force vs DuckDB', () => {
  let duck: DuckDBSession;
  const engines = new Map<number, Engine>();
  const asof = async (batchSize: number): Promise<Engine> => {
    let e = engines.get(batchSize);
    if (e === undefined) engines.set(batchSize, (e = await Engine.create({ join: 'asof', batchSize })));
    return e;
  };
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
  });
  afterAll(async () => {
    await duck?.close();
  });

  for (let chunk = 0; chunk < 2; chunk++) {
    const first = chunk * (SEEDS / 2);
    it(`seeds ${first}..${first + SEEDS / 2 - 1}: inner/left/right/full x 4 operators x with/without a key`, async () => {
      let matched = 0;
      let ties = 0;
      for (let seed = first; seed < first + SEEDS / 2; seed++) {
        const rng = new Rng(7100 + seed);
        const ttype = RANGE_KEY_TYPES[seed % RANGE_KEY_TYPES.length]!;
        const left = makeTable(rng, ttype, 0);
        const right = makeTable(rng, ttype, 1);
        await duck.loadTable('l', left);
        await duck.loadTable('r', right);
        const s: Sides = { lk: values(left, 'k'), lt: values(left, 't'), rk: values(right, 'k'), rt: values(right, 't') };
        for (const keyed of [false, true]) {
          for (const op of RANGE_OPS) {
            const best = closestRows(s, op, keyed);
            ties += best.filter((b) => b.length > 1).length;
            for (const type of TYPES) {
              const what = `seed ${seed} ${ttype} ${type}${keyed ? ' k=k' : ''} t ${op} t`;
              // the oracle's rows, ties named by (k, t)
              const chosen = new Set<number>();
              const lid: (number | null)[] = [];
              const rid: (number | null)[] = [];
              best.forEach((b, i) => {
                if (b.length > 0) {
                  lid.push(i);
                  rid.push(b[0]!);
                  chosen.add(b[0]!);
                } else if (type === 'left' || type === 'full') {
                  lid.push(i);
                  rid.push(null);
                }
              });
              if (type === 'right' || type === 'full') {
                for (let j = 0; j < s.rt.length; j++) if (!chosen.has(j)) (lid.push(null), rid.push(j));
              }
              const expected = canonical(lid, rid, s, keyed);
              if (type === 'inner') matched += expected.length;

              // DuckDB for inner and left only: its ASOF RIGHT / FULL JOIN (1.5.5) pairs a left row whose t
              // is NULL with a right row, and hung on some inputs here (docs/asof.md); the oracle checks those
              if (type === 'inner' || type === 'left') {
                const sql = `SELECT l.id, r.id AS id_right FROM l ASOF ${type === 'left' ? 'LEFT ' : ''}JOIN r ON ${keyed ? 'l.k = r.k AND ' : ''}l.t ${op} r.t`;
                const d = await duck.query(sql);
                expect(canonical(values(d, 'id') as (number | null)[], values(d, 'id_right') as (number | null)[], s, keyed), `${what}: DuckDB vs the brute force\n${sql}`).toEqual(expected);
              }

              const batchSize = rng.int(1, 7);
              const spec = toJoinSpec({ type, ...(keyed ? { on: 'k=k' } : {}), range: `t ${op} t`, select: 'id,id_right' });
              const r = await (await asof(batchSize)).join(spec, slicedScan(tinySlices(left, rng), left.schema, 'l'), slicedScan(tinySlices(right, rng), right.schema, 'r'));
              expect(r.metrics.algorithm, what).toBe('asof');
              expect(r.table.batches.every((b) => b.numRows <= batchSize), what).toBe(true);
              const gl = values(r.table, 'id') as (number | null)[];
              const gr = values(r.table, 'id_right') as (number | null)[];
              expect(canonical(gl, gr, s, keyed), `${what} batchSize=${batchSize}`).toEqual(expected);
              // and each pair's right row is one of the closest ones
              for (let n = 0; n < gl.length; n++) if (gl[n] !== null && gr[n] !== null) expect(best[gl[n]!], what).toContain(gr[n]);
            }
          }
        }
      }
      expect(matched).toBeGreaterThan(SEEDS * 10); // the draw is not degenerate
      expect(ties).toBeGreaterThan(SEEDS);
    }, 120_000);
  }

  it('2000 x 2000 rows, 50 keys, several batches: every left row gets the closest (DuckDB)', async () => {
    const rng = new Rng(42);
    // no NULL t on the left: DuckDB's sort-based ASOF (the plan above asof_loop_join_threshold) pairs
    // such a row with the last right row of its key group (docs/asof.md); the fuzz above covers it
    const side = (n: number, tNulls: number) =>
      new arrow.Table({
        k: arrow.vectorFromArray(Array.from({ length: n }, () => (rng.chance(0.02) ? null : rng.int(1, 50))), new arrow.Int32()),
        t: arrow.vectorFromArray(Array.from({ length: n }, () => (rng.chance(tNulls) ? null : BigInt(rng.int(0, 1_000_000)))), new arrow.Int64()),
        id: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => i), new arrow.Int32()),
      });
    const left = side(2000, 0);
    const right = side(2000, 0.02);
    await duck.loadTable('l', left);
    await duck.loadTable('r', right);
    const s: Sides = { lk: values(left, 'k'), lt: values(left, 't'), rk: values(right, 'k'), rt: values(right, 't') };
    for (const op of ['>=', '<'] as const) {
      const sql = `SELECT l.id, r.id AS id_right FROM l ASOF LEFT JOIN r ON l.k = r.k AND l.t ${op} r.t`;
      const d = await duck.query(sql);
      const spec = toJoinSpec({ type: 'left', on: 'k=k', range: `t ${op} t`, select: 'id,id_right' });
      const r = await (await asof(1000)).join(spec, slicedScan(tinySlices(left, rng), left.schema, 'l'), slicedScan(right.batches, right.schema, 'r'));
      const want = canonical(values(d, 'id') as (number | null)[], values(d, 'id_right') as (number | null)[], s, true);
      expect(want.filter((x) => !x.endsWith('|-')).length).toBeGreaterThan(1500);
      expect(canonical(values(r.table, 'id') as (number | null)[], values(r.table, 'id_right') as (number | null)[], s, true), op).toEqual(want);
    }
  });
});

describe('ASOF join on 64-bit integers, inside and beyond ±2^53', () => {
  // The operator searches integer keys as doubles when every value of a batch has an exact one,
  // and through the comparators otherwise: keys and times drawn from values on both sides of that
  // edge (negative ones with low words above 2^31, 2^53 ± 1), against a brute force over BigInts.
  const BIG = 2n ** 53n;
  const EXACT = [-5_000_000_000n, -4_294_967_297n, -4_294_967_296n, -1n, 0n, 1n, 4_294_967_295n, 4_294_967_296n, BIG - 2n, BIG - 1n];
  const BEYOND = [-(2n ** 62n), -BIG - 1n, -BIG, BIG - 1n, BIG, BIG + 1n, BIG + 2n, 2n ** 62n];
  const draw = (rng: Rng, pool: readonly bigint[], n: number): (bigint | null)[] => Array.from({ length: n }, () => (rng.chance(0.1) ? null : pool[rng.int(0, pool.length - 1)]!));
  const table = (k: (bigint | null)[], t: (bigint | null)[]) =>
    new arrow.Table({ k: arrow.vectorFromArray(k, new arrow.Int64()), t: arrow.vectorFromArray(t, new arrow.Int64()), id: arrow.vectorFromArray(k.map((_, i) => i), new arrow.Int32()) });

  it('every left row gets a closest right row of its key, or none, whichever search runs', async () => {
    const engine = await Engine.create({ join: 'asof', batchSize: 64 });
    const rng = new Rng(53);
    let matched = 0;
    for (const [kPool, tPool] of [[EXACT, EXACT], [EXACT, BEYOND], [BEYOND, EXACT], [BEYOND, BEYOND]] as const) {
      for (let round = 0; round < 4; round++) {
        const n = 60;
        // three keys a side, close together (so 2^53 and 2^53 + 1 meet as keys)
        const keys = kPool.slice(round % (kPool.length - 2), (round % (kPool.length - 2)) + 3);
        const lk = draw(rng, keys, n);
        const lt = draw(rng, tPool, n);
        const rk = draw(rng, keys, n);
        const rt = draw(rng, tPool, n);
        const left = table(lk, lt);
        const right = table(rk, rt);
        for (const keyed of [false, true]) {
          for (const op of RANGE_OPS) {
            const what = `${kPool === EXACT ? 'exact' : 'beyond'} keys, ${tPool === EXACT ? 'exact' : 'beyond'} t, round ${round}${keyed ? ' k=k' : ''} t ${op} t`;
            const spec = toJoinSpec({ type: 'left', ...(keyed ? { on: 'k=k' } : {}), range: `t ${op} t`, select: 'id,id_right' });
            const r = await engine.join(spec, slicedScan(tinySlices(left, rng), left.schema, 'l'), right);
            const got = new Map<number, number | null>();
            const ids = values(r.table, 'id') as number[];
            const rids = values(r.table, 'id_right') as (number | null)[];
            ids.forEach((i, x) => got.set(i, rids[x]!));
            expect(got.size, what).toBe(n);
            for (let i = 0; i < n; i++) {
              // the brute force: the best right t satisfying op within the key, in BigInt
              let best: bigint | null = null;
              const x = lt[i]!;
              if (x !== null && (!keyed || lk[i] !== null)) {
                for (let j = 0; j < n; j++) {
                  const y = rt[j]!;
                  if (y === null || (keyed && rk[j] !== lk[i])) continue;
                  const ok = op === '>=' ? x >= y : op === '>' ? x > y : op === '<=' ? x <= y : x < y;
                  if (ok && (best === null || (op === '>=' || op === '>' ? y > best : y < best))) best = y;
                }
              }
              const j = got.get(i)!;
              if (best === null) expect(j, `${what}: left row ${i}`).toBeNull();
              else {
                expect(j, `${what}: left row ${i}`).not.toBeNull();
                expect([rt[j!], keyed ? rk[j!] : null], `${what}: left row ${i}`).toEqual([best, keyed ? lk[i] : null]);
                matched++;
              }
            }
          }
        }
      }
    }
    expect(matched).toBeGreaterThan(2000);
    await engine.close();
  });
});

describe('SQL: ASOF [LEFT] JOIN runs on the ASOF join, as DuckDB answers it', () => {
  it('keys or none, each operator, WHERE on either side, an ASOF inside a three-table join', async () => {
    const duck = await DuckDBSession.open({ threads: 1 });
    try {
      const rng = new Rng(11);
      // right t distinct within a key (no ties, so whole rows compare); no NULL t on the left (docs/asof.md)
      const n = 40;
      const rt = Array.from({ length: n }, (_, i) => (rng.chance(0.1) ? null : i * 3 + rng.int(0, 2)));
      const r = new arrow.Table({
        k: arrow.vectorFromArray(Array.from({ length: n }, () => (rng.chance(0.1) ? null : rng.int(1, 3))), new arrow.Int32()),
        t: arrow.vectorFromArray(rt, new arrow.Int32()),
        v: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => i), new arrow.Int32()),
      });
      const l = new arrow.Table({
        k: arrow.vectorFromArray(Array.from({ length: n }, () => (rng.chance(0.1) ? null : rng.int(1, 3))), new arrow.Int32()),
        t: arrow.vectorFromArray(Array.from({ length: n }, () => rng.int(0, 130)), new arrow.Int32()),
        id: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => i), new arrow.Int32()),
      });
      const u = new arrow.Table({ k: arrow.vectorFromArray([1, 2, 2, 4], new arrow.Int32()), name: arrow.vectorFromArray(['a', 'b', 'c', 'd'], new arrow.Utf8()) });
      await duck.loadTable('l', l);
      await duck.loadTable('r', r);
      await duck.loadTable('u', u);
      const e = await Engine.create({});
      const queries = [
        'SELECT l.id, r.v, r.t FROM l ASOF JOIN r ON l.k = r.k AND l.t >= r.t',
        'SELECT l.id, r.v FROM l ASOF LEFT JOIN r ON l.k = r.k AND l.t > r.t',
        'SELECT l.id, r.v FROM l ASOF JOIN r ON r.k = l.k AND r.t >= l.t',
        'SELECT l.id, r.v FROM l ASOF LEFT JOIN r ON l.t < r.t',
        'SELECT l.id, r.v FROM l ASOF JOIN r ON l.k = r.k AND l.t >= r.t WHERE r.v % 2 = 0',
        'SELECT l.id, r.v FROM l ASOF LEFT JOIN r ON l.k = r.k AND l.t <= r.t WHERE l.id % 3 <> 0 AND r.v IS NULL',
        'SELECT l.id, r.v, u.name FROM l ASOF JOIN r ON l.k = r.k AND l.t >= r.t JOIN u ON u.k = r.k WHERE r.v > 5',
        'SELECT u.name, l.id, r.v FROM u JOIN l ON u.k = l.k ASOF LEFT JOIN r ON l.k = r.k AND l.t >= r.t',
        'SELECT r.k, count(*) AS n, max(r.v) AS m FROM l ASOF JOIN r ON l.k = r.k AND l.t >= r.t GROUP BY r.k',
        // USING (k, t): the last column is l.t >= r.t, shown once
        'SELECT * FROM l ASOF JOIN r USING (k, t)',
        'SELECT k, t, l.id, r.v FROM l ASOF LEFT JOIN r USING (k, t)',
        'SELECT t, l.id, r.v FROM l ASOF JOIN r USING (t)',
        // a subquery on the right side's column: its semi join above the ASOF must not push a
        // dynamic filter into r's scan (another row would become the closest; found by the SQL fuzzer)
        'SELECT l.id, r.v FROM l ASOF JOIN r ON l.t >= r.t WHERE r.v IN (SELECT u.k * 7 FROM u)',
        'SELECT l.id, r.v FROM l ASOF JOIN r ON l.k = r.k AND l.t >= r.t WHERE EXISTS (SELECT 1 FROM u WHERE u.k * 5 = r.v)',
      ];
      for (const sql of queries) {
        const got = await e.sql(sql, { l, r, u });
        const cmp = compareResults(got.table, await duck.query(sql));
        expect(cmp.equal, `${sql}\n${formatComparison(cmp)}`).toBe(true);
        expect(got.joins.map((j) => j.algorithm), sql).toContain('asof');
      }
      // the plain join of the same ON is a range join, on another algorithm
      const plain = await e.sql('SELECT l.id, r.v FROM l JOIN r ON l.k = r.k AND l.t >= r.t', { l, r });
      expect(plain.joins.map((j) => j.algorithm)).not.toContain('asof');
      await expect(e.sql('SELECT * FROM l ASOF JOIN r ON l.k = r.k AND l.t >= r.t AND l.id > r.v', { l, r })).rejects.toThrow(/ASOF join whose ON/);
      await expect(e.sql('SELECT * FROM l ASOF RIGHT JOIN r ON l.t >= r.t', { l, r })).rejects.toThrow(/ASOF RIGHT join/);
      // join=asof for a whole query would give its plain JOINs the ASOF meaning
      await expect((await Engine.create({ join: 'asof' })).sql('SELECT l.id FROM l JOIN r ON l.k = r.k AND l.t >= r.t', { l, r })).rejects.toThrow(/does not answer SQL's JOIN/);
    } finally {
      await duck.close();
    }
  });
});

describe('ASOF join: refusals, auto, memory', () => {
  const left = new arrow.Table({ k: arrow.vectorFromArray([1, 2, 3], new arrow.Int32()), t: arrow.vectorFromArray([3, 2, 1], new arrow.Int32()) });
  const right = new arrow.Table({ k: arrow.vectorFromArray([2, 3], new arrow.Int32()), t: arrow.vectorFromArray([1, 1], new arrow.Int32()) });

  it('refuses no range, a filter, semi / anti / mark, IS NOT DISTINCT FROM keys', async () => {
    const e = await Engine.create({ join: 'asof' });
    await expect(e.join(toJoinSpec({ type: 'inner', on: 'k=k' }), left, right)).rejects.toThrow(/exactly one inequality/);
    await expect(e.join(toJoinSpec({ type: 'inner', range: 't >= t', filter: 'l.k > r.k' }), left, right)).rejects.toThrow(/no residual/);
    for (const type of ['left-semi', 'left-anti', 'right-semi', 'right-anti', 'left-mark', 'right-mark'] as const) {
      await expect(e.join(toJoinSpec({ type, range: 't >= t' }), left, right)).rejects.toThrow(UnsupportedJoinError);
    }
    await expect(e.join(toJoinSpec({ type: 'inner', on: 'k=k', range: 't >= t', nullEqualsNull: true }), left, right)).rejects.toThrow(/IS NOT DISTINCT FROM/);
  });

  it('auto never picks it: the same spec is a range join there', async () => {
    const spec = toJoinSpec({ type: 'inner', range: 't >= t' });
    const auto = await (await Engine.create({})).join(spec, left, right);
    expect(auto.metrics.algorithm).not.toBe('asof');
    expect(auto.table.numRows).toBe(6);
    const a = await (await Engine.create({ join: 'asof' })).join(spec, left, right);
    expect(a.table.numRows).toBe(3);
  });

  it('is explicit-only: the random cases (joinlab parity) draw it only as ASOF cases, never for a plain join', async () => {
    const e = await Engine.create({});
    expect(caseSpace(e.registry).joins).toContain('iejoin');
    expect(caseSpace(e.registry).joins).not.toContain('asof');
    expect(caseSpace(e.registry).asof).toBe(true); // ASOF cases of their own (random-cases.ts asofDraw)
    expect(caseSpace(e.registry, { algorithms: ['asof'] }).joins).toEqual(['asof']);
  });

  it('reserves through the memory pool: a limit below what it holds is a MemoryLimitError naming it', async () => {
    const rng = new Rng(3);
    const l = makeTable(rng, 'int32', 0, 5000);
    const r = makeTable(rng, 'int32', 1, 5000);
    const spec = toJoinSpec({ type: 'inner', on: 'k=k', range: 't >= t' });
    const err = await (await Engine.create({ join: 'asof', memoryLimit: 32 * 1024 })).join(spec, l, r).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(MemoryLimitError);
    expect((err as MemoryLimitError).consumer).toMatch(/asof/);
  });
});
