/**
 * The grace hash join (`hash.spill=auto`, grace.ts) past its memory limit: 1000 rows a side, a
 * `memoryLimit` of a few KB and two partitions per level (`hash.spillPartitions=2`), so the build
 * spills and partitions are split again over several levels. Every join type, NOT IN, a residual
 * filter, NULL keys, duplicate keys, null-equals-null, random batch sizes with empty batches —
 * each answer equal to the nested-loop oracle's (unlimited memory), the oracle checked against
 * DuckDB. No spill file is left behind: after success, after an input that fails mid-way, after
 * an abort. A key too heavy for memory is a MemoryLimitError naming it; `hash.spill=off` keeps the
 * old refusal.
 */
import { readdirSync } from 'node:fs';
import * as os from 'node:os';
import * as arrow from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { joinToSql } from '../../adapters/duckdb/join-sql.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { MemoryLimitError } from '../../core/errors.ts';
import { Rng } from '../../core/random.ts';
import type { Scan } from '../../core/scan/scan.ts';
import { toJoinSpec, type JoinSpecInput } from '../../core/spec.ts';
import type { JoinSpec } from '../../core/types.ts';
import { JOIN_TYPES } from '../../core/types.ts';
import { randomSlices, slicedScan } from '../sort-merge-join/test-helpers.ts';

const LIMIT = 24 * 1024;

/** `rows` rows: key k in 0..keys-1 with NULLs, a payload x with NULLs, a string s. */
function side(rng: Rng, rows: number, keys: number, tag: string): arrow.Table {
  const k = Array.from({ length: rows }, () => (rng.chance(0.05) ? null : rng.int(0, keys - 1)));
  return new arrow.Table({
    k: arrow.vectorFromArray(k, new arrow.Int32()),
    x: arrow.vectorFromArray(k.map(() => (rng.chance(0.1) ? null : rng.int(0, 1000))), new arrow.Int32()),
    s: arrow.vectorFromArray(k.map((_, i) => `${tag}-${i}`), new arrow.Utf8()),
  });
}

function spillDirs(): string[] {
  return readdirSync(os.tmpdir()).filter((f) => f.startsWith(`joinlab-spill-${process.pid}-`));
}

const COLUMNS = ['k', 'x', 's'];

/** The join streamed, not Engine.join: its result table would be reserved in the same small pool. */
async function drain(engine: Engine, spec: JoinSpec, left: Scan | arrow.Table, right: Scan | arrow.Table) {
  const s = await engine.stream(spec, left, right);
  const batches: arrow.RecordBatch[] = [];
  for await (const b of s.batches) batches.push(b);
  return { table: new arrow.Table(s.schema, batches), metrics: s.metrics, op: s.metrics.operators.join! };
}

describe('grace hash join under memoryLimit = 24 KB, two partitions a level', () => {
  let duck: DuckDBSession;
  let oracle: Engine;
  let grace: Engine;
  const rng = new Rng(4242);
  const L = side(rng, 1000, 300, 'l');
  const R = side(rng, 1000, 300, 'r');
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
    await duck.loadTable('l', L);
    await duck.loadTable('r', R);
    oracle = await Engine.create({ join: 'nested-loop' });
    grace = await Engine.create({ join: 'hash', memoryLimit: LIMIT, 'hash.spillPartitions': 2, batchSize: 97, threads: 1 });
  });
  afterAll(async () => {
    await duck?.close();
  });

  async function check(what: string, input: JoinSpecInput, engine = grace): Promise<Record<string, number>> {
    const spec = toJoinSpec(input);
    const expected = (await oracle.join(spec, L, R)).table;
    const sql = joinToSql(spec, { table: 'l', columns: COLUMNS }, { table: 'r', columns: COLUMNS });
    const vsDuck = compareResults(expected, await duck.query(sql));
    expect(vsDuck.equal, `${what}: oracle vs DuckDB\n${sql}\n${formatComparison(vsDuck)}`).toBe(true);
    const { table, metrics, op } = await drain(engine, spec, slicedScan(randomSlices(L, rng), L.schema, 'l'), slicedScan(randomSlices(R, rng), R.schema, 'r'));
    const cmp = compareResults(table, expected);
    expect(cmp.equal, `${what}\n${formatComparison(cmp)}`).toBe(true);
    expect(op.details.spill, what).toMatch(/^grace hash join: \d+ partitions over \d+ levels?$/);
    expect(metrics.memory.peakReservedBytes, what).toBeLessThanOrEqual(LIMIT);
    expect(metrics.memory.peakReservedBytes, what).toBeGreaterThan(0);
    expect(spillDirs()).toEqual([]);
    return op.counters;
  }

  for (const type of JOIN_TYPES) {
    it(`${type}: the answer of unlimited memory, over several levels of partitions`, async () => {
      const counters = await check(type, { type, on: 'k=k' });
      expect(counters.graceLevels).toBeGreaterThan(1);
      expect(counters.gracePairsJoined).toBeGreaterThan(4);
      await check(`${type} with a residual filter`, { type, on: 'k=k', filter: 'l.x < r.x' });
    });
  }

  it('NOT IN, both sides returned, with the NULL keys of other partitions deciding', async () => {
    await check('left-anti NOT IN', { type: 'left-anti', on: 'k=k', nullAware: true });
    await check('right-anti NOT IN', { type: 'right-anti', on: 'k=k', nullAware: true });
    // without NULL keys on the inner side, rows survive: each partition's own build has none
    const spec = toJoinSpec({ type: 'left-anti', on: 'k=k', nullAware: true, filter: undefined });
    const noNulls = new arrow.Table({ k: arrow.vectorFromArray(Array.from({ length: 1000 }, (_, i) => (i % 7 === 0 ? null : i)), new arrow.Int32()) });
    const probe = new arrow.Table({ k: arrow.vectorFromArray(Array.from({ length: 1000 }, (_, i) => 2 * i), new arrow.Int32()) });
    const expected = (await oracle.join(spec, probe, noNulls)).table;
    const actual = (await grace.join(spec, probe, noNulls)).table;
    expect(compareResults(actual, expected).equal).toBe(true);
    expect(expected.numRows).toBe(0); // the inner side has NULLs: NOT IN returns nothing
  });

  it('null-equals-null: NULL keys meet in one partition', async () => {
    await check('inner, null-equals-null', { type: 'inner', on: 'k=k', nullEqualsNull: true });
    await check('full, null-equals-null', { type: 'full', on: 'k=k', nullEqualsNull: true });
  });

  it('publishes a dynamic filter from the bounds of every partition, and says so', async () => {
    const narrow = new arrow.Table({ k: arrow.vectorFromArray(Array.from({ length: 3000 }, (_, i) => 100 + (i % 50)), new arrow.Int32()), x: arrow.vectorFromArray(Array.from({ length: 3000 }, (_, i) => i), new arrow.Int32()) });
    const wide = new arrow.Table({ k: arrow.vectorFromArray(Array.from({ length: 400 }, (_, i) => i), new arrow.Int32()) });
    const spec = toJoinSpec({ type: 'inner', on: 'k=k' });
    const e = await Engine.create({ join: 'hash', 'hash.build': 'left', memoryLimit: LIMIT, 'hash.spillPartitions': 4, batchSize: 256, threads: 1 });
    const { table, op } = await drain(e, spec, narrow, wide);
    expect(compareResults(table, (await oracle.join(spec, narrow, wide)).table).equal).toBe(true);
    expect(op.details.spill).toMatch(/grace hash join/);
    expect(op.details.dynamicFilter).toMatch(/bounds of every spilled partition/);
    expect(op.counters.probeRows).toBe(50); // keys 100..149 only reach the join
  });

  it('a key heavier than memory is a MemoryLimitError naming the key; hash.spill=off refuses as before', async () => {
    const heavy = new arrow.Table({ k: arrow.vectorFromArray(Array.from({ length: 4000 }, (_, i) => (i < 3000 ? 7 : i)), new arrow.Int32()), s: arrow.vectorFromArray(Array.from({ length: 4000 }, (_, i) => `payload-${i}`), new arrow.Utf8()) });
    const probe = new arrow.Table({ k: arrow.vectorFromArray([7, 8, 3500], new arrow.Int32()) });
    const spec = toJoinSpec({ type: 'inner', on: 'k=k' });
    const e = await Engine.create({ join: 'hash', 'hash.build': 'left', memoryLimit: LIMIT, batchSize: 256, threads: 1 });
    await expect(e.join(spec, heavy, probe)).rejects.toSatisfy((err: unknown) => err instanceof MemoryLimitError && /key k = 7 has 3000 build rows/.test(err.message));
    expect(spillDirs()).toEqual([]);
    const off = await Engine.create({ join: 'hash', 'hash.build': 'left', 'hash.spill': 'off', memoryLimit: LIMIT, batchSize: 256, threads: 1 });
    await expect(off.join(spec, heavy, probe)).rejects.toBeInstanceOf(MemoryLimitError);
    // a string key is named too (compared byte by byte, not left to the level cap)
    const text = (k: number) => (k === 7 ? 'the-heavy-one' : `key-${k}`);
    const heavyText = new arrow.Table({ k: arrow.vectorFromArray(Array.from({ length: 4000 }, (_, i) => text(i < 3000 ? 7 : i)), new arrow.Utf8()), s: heavy.getChild('s')! });
    const probeText = new arrow.Table({ k: arrow.vectorFromArray([text(7), text(3500)], new arrow.Utf8()) });
    await expect(e.join(spec, heavyText, probeText)).rejects.toSatisfy((err: unknown) => err instanceof MemoryLimitError && /key k = .*the-heavy-one.* has 3000 build rows/.test(err.message));
    expect(spillDirs()).toEqual([]);
  });

  it('a NOT IN with a residual filter that does not fit is a MemoryLimitError that says why', async () => {
    await expect(grace.join(toJoinSpec({ type: 'left-anti', on: 'k=k', nullAware: true, filter: 'l.x < r.x' }), L, R)).rejects.toThrow(/NOT IN with a residual filter cannot spill/);
    expect(spillDirs()).toEqual([]);
  });

  it('removes its spill files when an input fails mid-way and when the run is aborted', async () => {
    const r = slicedScan(randomSlices(R, rng), R.schema, 'r');
    const failing: Scan = {
      ...r,
      async *batches(options) {
        let n = 0;
        for await (const b of r.batches(options)) {
          if (++n === 6) throw new Error('disk on fire');
          yield b;
        }
      },
    };
    const spec = toJoinSpec({ type: 'full', on: 'k=k' });
    // the probe side fails while it is partitioned; then the build side fails while it is
    await expect(grace.join(spec, slicedScan(randomSlices(L, rng), L.schema, 'l'), failing)).rejects.toThrow(/disk on fire/);
    expect(spillDirs()).toEqual([]);
    const e = await Engine.create({ join: 'hash', 'hash.build': 'right', memoryLimit: LIMIT, 'hash.spillPartitions': 2, threads: 1 });
    await expect(e.join(spec, slicedScan(randomSlices(L, rng), L.schema, 'l'), failing)).rejects.toThrow(/disk on fire/);
    expect(spillDirs()).toEqual([]);

    const ac = new AbortController();
    const s = await grace.stream(spec, slicedScan(randomSlices(L, rng), L.schema, 'l'), slicedScan(randomSlices(R, rng), R.schema, 'r'), { signal: ac.signal });
    let batches = 0;
    await expect(
      (async () => {
        for await (const _ of s.batches) if (++batches === 3) ac.abort();
      })(),
    ).rejects.toThrow();
    expect(spillDirs()).toEqual([]);
  });
});

describe('grace hash join with hash.spill=always: empty inputs', () => {
  it('NOT IN over an empty inner side returns every outer row, NULL keys too; an empty outer side returns nothing', async () => {
    const oracle = await Engine.create({ join: 'nested-loop' });
    const always = await Engine.create({ join: 'hash', 'hash.spill': 'always', 'hash.spillPartitions': 3, threads: 1 });
    const outer = new arrow.Table({ k: arrow.vectorFromArray([1, null, 3, null], new arrow.Int32()) });
    const empty = new arrow.Table({ k: arrow.vectorFromArray([] as number[], new arrow.Int32()) });
    for (const [type, l, r] of [
      ['left-anti', outer, empty],
      ['right-anti', empty, outer],
      ['left-anti', empty, outer],
      ['full', outer, empty],
      ['inner', outer, empty],
    ] as const) {
      const spec = toJoinSpec({ type, on: 'k=k', nullAware: type.endsWith('anti') });
      const want = (await oracle.join(spec, l, r)).table;
      const got = await always.join(spec, l, r);
      expect(compareResults(got.table, want).equal, `${type}`).toBe(true);
      expect(got.metrics.operators.join!.details.spill, type).toMatch(/grace hash join/);
    }
  });
});
