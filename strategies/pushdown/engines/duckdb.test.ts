/**
 * The `duckdb` policy at DuckDB v1.5's rule boundaries (dynamic_or_filter_threshold = 50 rows,
 * dense ranges, NULLs in the hash table, each Bloom gate, the Bloom sizing), the selectivity pause
 * (engaging at the threshold, never resuming in 1.5, growing pauses with `pauseResume`), and each
 * filter against the nested-loop oracle on random keys.
 */
import { DateDay, Int32, Int64, Utf8, type DataType } from 'apache-arrow';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { caseSpace, describeCase, randomCase } from '../../../adapters/datagen/random-cases.ts';
import { compareResults, formatComparison } from '../../../adapters/duckdb/compare.ts';
import { toJoinSpec } from '../../../core/spec.ts';
import { Engine, PUSHDOWN } from '../../../index.ts';
import type { ConfigInput } from '../../../core/config/schema.ts';
import { hashKeys } from '../../../core/keys/hash.ts';
import { normalizeKeys } from '../../../core/keys/normalize.ts';
import type { FixedKeyColumn, KeyColumn, KeyKind } from '../../../core/keys/types.ts';
import { rowPartOf, type BuildPartition, type KeyFilter } from '../../../core/pushdown/policy.ts';
import type { ColumnStats } from '../../../core/scan/scan.ts';
import { zoneMapOf } from '../../../core/scan/zone-map.ts';
import { boundsFilter } from '../bounds.ts';
import { batchOf, buildPartitions, contextFor, int64Column, kindsFor, matchingRows, partitionFromKeys, rng, testConfig, vec, type Val } from '../test-support.ts';
import { duckdbBloomBytes, duckdbPushdown, planDuckdb } from './duckdb.ts';
import { DUCKDB_BLOOM, DUCKDB_MIN_MAX, SelectivityPause, STANDARD_VECTOR_SIZE, type PauseRule } from './selectivity-pause.ts';

interface Setup {
  readonly part: BuildPartition;
  readonly ctx: ReturnType<typeof contextFor>;
}

function setup(type: DataType, build: readonly Val[], config: ConfigInput = {}, buildType: DataType = type, nullEqualsNull = false): Setup {
  const kinds = kindsFor([type], [buildType]);
  const [part] = buildPartitions(batchOf({ b: vec(buildType, build) }), ['b'], kinds, 1, { nullEqualsNull });
  return { part: part!, ctx: contextFor([type], kinds, ['k'], testConfig(config)) };
}

function probe(s: Setup, type: DataType, values: readonly Val[]) {
  const batch = batchOf({ k: vec(type, values) });
  const keys = normalizeKeys(batch, ['k'], s.ctx.keyKinds);
  return { batch, keys, hashes: hashKeys(keys, s.part.seed) };
}

function run(f: KeyFilter, keys: readonly KeyColumn[], hashes: Uint32Array): number[] {
  const keep = new Uint8Array(keys[0]!.length).fill(1);
  f.test(keys, f.needsHashes ? hashes : null, null, keep);
  return [...keep];
}

const labelOf = (f: KeyFilter | null) => (f === null ? 'null' : (f.label ?? f.description));
const range = (a: number, b: number, step = 1) => Array.from({ length: Math.floor((b - a) / step) + 1 }, (_, i) => a + i * step);
const st = (min: ColumnStats['min'], max: ColumnStats['max']): ColumnStats => ({ min, max, nullCount: 0 });

describe('duckdb: IN list (dynamic_or_filter_threshold = 50 hash-table rows, zone maps only)', () => {
  it('exactly 50 rows: an IN list; 51 rows: none', () => {
    const at = planDuckdb(setup(new Int32(), range(0, 98, 2)).part, setup(new Int32(), range(0, 98, 2)).ctx);
    expect(at.notes).toContain('IN list on k: 50 values (zone maps only)');
    expect(labelOf(at.filter)).toContain('in(50) zonemap');
    const past = setup(new Int32(), range(0, 100, 2));
    const p = planDuckdb(past.part, past.ctx);
    expect(p.notes).toContain('no IN list: 51 hash-table rows > 50');
    expect(labelOf(p.filter)).not.toContain('zonemap');
  });

  it('counts rows, not distinct values: 26 values twice (52 rows) get no IN list', () => {
    const vals = range(0, 50, 2);
    const s = setup(new Int32(), [...vals, ...vals]);
    expect(planDuckdb(s.part, s.ctx).notes).toContain('no IN list: 52 hash-table rows > 50');
  });

  it('needs more than one row (one row: the constant filter k = v)', () => {
    const s = setup(new Int32(), [7]);
    const plan = planDuckdb(s.part, s.ctx);
    expect(plan.notes).toContain('no IN list: 1 hash-table row(s), needs > 1');
    expect(plan.notes).toContain('min = max: constant filter (never paused)');
    expect(labelOf(plan.filter)).toBe('bounds');
  });

  it('follows pushdown.duckdb.inlistMaxRows', () => {
    const s = setup(new Int32(), [1, 5, 9], { 'pushdown.duckdb.inlistMaxRows': 2 });
    expect(planDuckdb(s.part, s.ctx).notes).toContain('no IN list: 3 hash-table rows > 2');
  });

  it('a dense integer range gets none (min/max is exact); one gap gets one', () => {
    const dense = setup(new Int32(), range(1, 10));
    expect(planDuckdb(dense.part, dense.ctx).notes).toContain('no IN list on k: 10 value(s) form a dense range');
    const gap = setup(new Int32(), [...range(1, 9), 11]);
    expect(planDuckdb(gap.part, gap.ctx).notes).toContain('IN list on k: 10 values (zone maps only)');
  });

  it('the dense rule is for integral types only: consecutive DATEs still get an IN list', () => {
    const kind: KeyKind = kindsFor([new DateDay()], [new DateDay()])[0]!;
    expect(kind.sqlType).toBe('DATE');
    const col = int64Column([100n, 101n, 102n, 103n, 104n], kind);
    const plan = planDuckdb(partitionFromKeys([col]), contextFor([new DateDay()], [kind], ['k']));
    expect(plan.notes).toContain('IN list on k: 5 values (zone maps only)');
  });

  it('a NULL build key: left out of an inner join table (IN list over the rest), kept by null-equals-null (no IN list)', () => {
    const inner = setup(new Int32(), [1, 5, null, 9]);
    const a = planDuckdb(inner.part, inner.ctx);
    expect(inner.part.table.inserted).toBe(3);
    expect(a.notes).toContain('IN list on k: 3 values (zone maps only)');
    const keeps = setup(new Int32(), [1, 5, null, 9], {}, new Int32(), true);
    const b = planDuckdb(keeps.part, keeps.ctx);
    expect(keeps.part.table.inserted).toBe(4);
    expect(b.notes).toContain('no IN list on k: the hash table holds a NULL key');
  });

  it('prunes containers only: every row is kept by its test, and it has no row part', () => {
    const s = setup(new Int32(), [10, 20, 30]);
    const f = planDuckdb(s.part, s.ctx).filter!;
    const zone = (f as unknown as { parts: KeyFilter[] }).parts.find((p) => p.label === 'in(3) zonemap')!;
    expect(zone.description).toBe('OPTIONAL(k IN (10, 20, 30)) [zone maps only]');
    const { keys, hashes } = probe(s, new Int32(), [10, 11, 25]);
    expect(run(zone, keys, hashes)).toEqual([1, 1, 1]);
    expect(rowPartOf(zone)).toBeNull();
    expect(zone.mayContain([st(11, 19)])).toBe(false); // inside [min, max], no listed value
    expect(zone.mayContain([st(11, 20)])).toBe(true);
    expect(f.mayContain([st(11, 19)])).toBe(false);
  });

  it('multi-column keys get one IN list per column', () => {
    const kinds = kindsFor([new Int32(), new Utf8()], [new Int32(), new Utf8()]);
    const batch = batchOf({ a: vec(new Int32(), [1, 5, 9]), b: vec(new Utf8(), ['x', 'y', 'x']) });
    const [part] = buildPartitions(batch, ['a', 'b'], kinds, 1);
    const plan = planDuckdb(part!, contextFor([new Int32(), new Utf8()], kinds, ['a', 'b']));
    expect(plan.notes).toEqual(expect.arrayContaining(['IN list on a: 3 values (zone maps only)', 'IN list on b: 2 values (zone maps only)', 'no Bloom filter: more than one key column']));
  });
});

describe('duckdb: Bloom filter gate and sizing', () => {
  const spread = range(0, 600, 3); // 201 rows, range 600: count <= range, a perfect hash join
  it('a perfect hash join (range <= 2^20 and count <= range) gets none; count > range (a dense build) gets one', () => {
    const perfect = setup(new Int32(), spread);
    expect(planDuckdb(perfect.part, perfect.ctx).notes).toContain('no Bloom filter: perfect hash join (min/max prunes well)');
    const dense = setup(new Int32(), range(0, 99)); // count 100 > range 99: DuckDB bails out of the perfect hash
    const plan = planDuckdb(dense.part, dense.ctx);
    expect(plan.notes).toContain('Bloom filter of 256 bytes for 100 rows');
    expect(labelOf(plan.filter)).toBe('bounds~75% + bloom(256 B)~25%');
  });

  it('the perfect-hash range limit: max - min = 2^20 is perfect, 2^20 + 1 is not', () => {
    const at = setup(new Int64(), [0n, 2n ** 20n]);
    expect(planDuckdb(at.part, at.ctx).notes).toContain('no Bloom filter: perfect hash join (min/max prunes well)');
    const past = setup(new Int64(), [0n, 2n ** 20n + 1n]);
    expect(planDuckdb(past.part, past.ctx).notes).toContain('Bloom filter of 64 bytes for 2 rows');
  });

  it('no Bloom filter when the probe column is cast to the join type', () => {
    const s = setup(new Int32(), range(0, 99), {}, new Int64());
    expect(planDuckdb(s.part, s.ctx).notes).toContain('no Bloom filter: the probe column is cast to BIGINT');
  });

  it('no Bloom filter when min = max, the build is unfiltered or the probe is not larger', () => {
    const one = setup(new Int32(), [4, 4, 4]);
    expect(planDuckdb(one.part, one.ctx).notes).toContain('no Bloom filter: min = max (the constant filter is exact)');
    const unf = setup(new Int32(), range(0, 99), { 'pushdown.duckdb.buildSideFiltered': false });
    expect(planDuckdb(unf.part, unf.ctx).notes).toContain('no Bloom filter: the build side is not filtered');
    const small = setup(new Int32(), range(0, 99), { 'pushdown.duckdb.probeLargerThanBuild': false });
    expect(planDuckdb(small.part, small.ctx).notes).toContain('no Bloom filter: the probe side is not larger than the build');
  });

  it('strings get a Bloom filter (one key, no perfect hash)', () => {
    const s = setup(new Utf8(), range(0, 60).map((i) => `v${i}`));
    expect(planDuckdb(s.part, s.ctx).notes).toContain('Bloom filter of 128 bytes for 61 rows');
  });

  it('sizes as BloomFilter::Initialize: max(512, 12 * rows) bits, a power of two, at most 2^26 sectors', () => {
    expect(duckdbBloomBytes(1)).toBe(64);
    expect(duckdbBloomBytes(42)).toBe(64); // 504 bits -> 512
    expect(duckdbBloomBytes(43)).toBe(128); // 516 -> 1024
    expect(duckdbBloomBytes(100)).toBe(256);
    expect(duckdbBloomBytes(2 ** 30)).toBe(2 ** 26 * 8);
    expect(duckdbBloomBytes(100, 20)).toBe(256); // 2000 bits -> 2048
  });

  it('prunes an integer container spanning <= 2048 values when none is in the filter', () => {
    const s = setup(new Int64(), [...range(0, 99).map(BigInt), 1_000_000n]);
    // count 101 <= range 10^6 <= 2^20 would be a perfect hash join: lower the range limit
    // (and 64 bits per key, so that no value of the test windows is a false positive)
    const plan = planDuckdb(s.part, { ...s.ctx, config: testConfig({ 'pushdown.duckdb.perfectHashMaxRange': 10, 'pushdown.duckdb.bloomBitsPerKey': 64 }) });
    const f = plan.filter!;
    const bloom = (f as unknown as { parts: KeyFilter[] }).parts.find((p) => (p.label ?? '').startsWith('bloom'))!;
    expect(bloom.mayContain([st(0n, 2047n)])).toBe(true);
    expect(bloom.mayContain([st(500n, 600n)])).toBe(false); // inside [min, max], no key, 101 values enumerated
    expect(bloom.mayContain([st(500n, 500n + 2048n)])).toBe(false); // 2049 values: still enumerated
    expect(bloom.mayContain([st(500n, 500n + 2049n)])).toBe(true); // wider than 2048: not enumerated
    expect(f.mayContain([st(500n, 600n)])).toBe(false);
  });
});

describe('selectivity pause', () => {
  const kind = kindsFor([new Int32()], [new Int32()])[0]!;
  const col = (vals: readonly number[]): FixedKeyColumn => int64Column(vals.map(BigInt), kind);
  /** bounds [0, 9]: a row passes iff its value is in 0..9. */
  const bounds = () => boundsFilter(partitionFromKeys([col(range(0, 9))]), contextFor([new Int32()], [kind], ['k']));
  const rule = (over: Partial<PauseRule> = {}): PauseRule => ({ threshold: 0.75, checkVectors: 2, vectorRows: 4, resume: false, ...over });
  /** Tests one batch; returns the kept flags. */
  const feed = (f: KeyFilter, vals: readonly number[]) => {
    const keep = new Uint8Array(vals.length).fill(1);
    f.test([col(vals)], null, null, keep);
    return [...keep];
  };
  const PASS = [1, 2, 3, 4];
  const FAIL = [50, 60, 70, 80];

  it("has DuckDB 1.5's constants", () => {
    expect(DUCKDB_MIN_MAX).toEqual({ threshold: 0.75, checkVectors: 30 });
    expect(DUCKDB_BLOOM).toEqual({ threshold: 0.25, checkVectors: 75 });
    expect(STANDARD_VECTOR_SIZE).toBe(2048);
  });

  it('engages after checkVectors vectors whose pass rate is >= the threshold (exactly 75%)', () => {
    const f = new SelectivityPause(bounds(), rule());
    // vector 1: 4 of 4 pass; vector 2: 2 of 4 -> 6 / 8 = 0.75 >= 0.75
    expect(feed(f, [...PASS, 1, 2, 50, 60])).toEqual([1, 1, 1, 1, 1, 1, 0, 0]);
    expect(f.paused).toBe(true);
    expect(feed(f, FAIL)).toEqual([1, 1, 1, 1]); // paused: every row kept
    expect(f.skippedVectors).toBe(1);
  });

  it('does not engage below the threshold (5 / 8), and keeps filtering', () => {
    const f = new SelectivityPause(bounds(), rule());
    feed(f, [...PASS, 1, 50, 60, 70]);
    expect(f.paused).toBe(false);
    expect(feed(f, FAIL)).toEqual([0, 0, 0, 0]);
  });

  it('decides at exactly checkVectors: one vector is not enough', () => {
    const f = new SelectivityPause(bounds(), rule());
    feed(f, PASS);
    expect(f.paused).toBe(false);
    expect(feed(f, FAIL)).toEqual([0, 0, 0, 0]); // vector 2 measured: 4 / 8 < 0.75
    expect(f.paused).toBe(false);
    expect(feed(f, FAIL)).toEqual([0, 0, 0, 0]); // 1.5 decides once: never paused later
  });

  it('1.5: a pause is final', () => {
    const f = new SelectivityPause(bounds(), rule());
    feed(f, [...PASS, ...PASS]);
    for (let i = 0; i < 50; i++) expect(feed(f, FAIL)).toEqual([1, 1, 1, 1]);
    expect(f.pauses).toBe(1);
    expect(f.skippedVectors).toBe(50);
  });

  it('resume (main): consecutive high windows pause for 8, 18, 28 vectors (10k - checkVectors), then re-check', () => {
    const f = new SelectivityPause(bounds(), rule({ resume: true, vectorRows: 1 }));
    const runs: number[] = [];
    for (let round = 0; round < 3; round++) {
      feed(f, [1]);
      feed(f, [2]);
      expect(f.paused).toBe(true);
      let n = 0;
      while (f.paused) {
        expect(feed(f, [99])).toEqual([1]);
        n++;
      }
      runs.push(n);
    }
    expect(runs).toEqual([8, 18, 28]);
    expect(f.pauses).toBe(3);
  });

  it('resume (main): a selective window resets the pause length', () => {
    const f = new SelectivityPause(bounds(), rule({ resume: true, vectorRows: 1 }));
    feed(f, [1]);
    feed(f, [2]);
    while (f.paused) feed(f, [99]); // pause 1: 8 vectors
    // a selective window: 10 vectors, all failing -> not paused, multiplier back to 0
    for (let i = 0; i < 10; i++) expect(feed(f, [99])).toEqual([0]);
    expect(f.paused).toBe(false);
    feed(f, [1]);
    feed(f, [2]);
    expect(f.paused).toBe(true);
    let n = 0;
    while (f.paused) {
      feed(f, [99]);
      n++;
    }
    expect(n).toBe(8); // not 18
  });

  it('never pauses container pruning', () => {
    const f = new SelectivityPause(bounds(), rule());
    feed(f, [...PASS, ...PASS]);
    expect(f.paused).toBe(true);
    expect(f.mayContain([st(50, 60)])).toBe(false);
    expect(f.mayContain([st(5, 60)])).toBe(true);
  });

  it('slices a batch into vectors of vectorRows rows and honours a row list', () => {
    const f = new SelectivityPause(bounds(), rule());
    // one batch of 12 rows = 3 vectors: 4 pass, 4 pass (-> paused after vector 2), 4 kept unfiltered
    expect(feed(f, [...PASS, ...PASS, ...FAIL])).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    const g = new SelectivityPause(bounds(), rule());
    const keep = new Uint8Array(8).fill(1);
    g.test([col([1, 50, 2, 60, 3, 70, 4, 80])], null, Int32Array.from([1, 3, 5, 7]), keep);
    expect([...keep]).toEqual([1, 0, 1, 0, 1, 0, 1, 0]);
    expect(g.paused).toBe(false); // 0 of 4 kept over 2 vectors
  });

  it('rejects rules DuckDB would not run', () => {
    expect(() => new SelectivityPause(bounds(), rule({ threshold: 0 }))).toThrow(RangeError);
    expect(() => new SelectivityPause(bounds(), rule({ checkVectors: 0 }))).toThrow(RangeError);
    expect(() => new SelectivityPause(bounds(), rule({ resume: true, checkVectors: 10 }))).toThrow(RangeError);
  });

  it('the policy pauses min/max at 75% after 30 vectors of 2048 rows by default', () => {
    const s = setup(new Int32(), [1, 5, 9]);
    const f = (planDuckdb(s.part, s.ctx).filter as unknown as { parts: KeyFilter[] }).parts[0]!;
    expect(f).toBeInstanceOf(SelectivityPause);
    expect(f.description).toBe('OPTIONAL(k BETWEEN 1 AND 9; paused at >= 75% kept after 30 vectors)');
  });
});

describe('duckdb: every filter agrees with the oracle on random keys', () => {
  const configs: ConfigInput[] = [
    {},
    { 'pushdown.duckdb.inlistMaxRows': 1000, 'pushdown.duckdb.perfectHashMaxRange': 1 },
    { 'pushdown.duckdb.perfectHashMaxRange': 1, 'pushdown.duckdb.vectorRows': 8, 'pushdown.duckdb.bloomCheckVectors': 2, 'pushdown.duckdb.pauseResume': true, 'pushdown.duckdb.minMaxCheckVectors': 2 },
  ];
  for (const [i, config] of configs.entries()) {
    it(`config ${i}: no matching row dropped, no container with a match pruned, and something pruned`, () => {
      const next = rng(17 + i);
      let dropped = 0;
      for (let trial = 0; trial < 30; trial++) {
        const spanB = 1 + Math.floor(next() * 400);
        const build = Array.from({ length: 1 + Math.floor(next() * 120) }, () => (next() < 0.05 ? null : Math.floor(next() * spanB)));
        const s = setup(new Int32(), build, config);
        const f = duckdbPushdown.planPartition(s.part, s.ctx);
        if (f === null) continue;
        for (let batch = 0; batch < 4; batch++) {
          const vals = Array.from({ length: 64 }, () => Math.floor(next() * spanB * 1.5) - 10);
          const p = probe(s, new Int32(), vals);
          const match = matchingRows(p.keys, [s.part.keys]);
          const kept = run(f, p.keys, p.hashes);
          for (let r = 0; r < vals.length; r++) {
            if (match[r] === 1) expect(kept[r]).toBe(1);
            if (kept[r] === 0) dropped++;
          }
          if (match.includes(1)) expect(f.mayContain([zoneMapOf(p.batch).column('k')])).toBe(true);
        }
      }
      expect(dropped).toBeGreaterThan(0);
    });
  }
});

describe('duckdb: through the engine', () => {
  it('resolves as pushdown=duckdb and hash joins agree with the nested-loop oracle (small thresholds: every part runs)', async () => {
    const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
    const engine = await Engine.create({ pushdown: 'duckdb' }, { baseDir: ROOT });
    expect(engine.registry.resolve(PUSHDOWN, 'duckdb')).toBe(duckdbPushdown);
    const space = caseSpace(engine.registry, { algorithms: ['hash'], pushdowns: ['duckdb'] });
    const oracle = await Engine.create({ join: 'nested-loop' });
    const small = { 'pushdown.duckdb.perfectHashMaxRange': 1, 'pushdown.duckdb.vectorRows': 4, 'pushdown.duckdb.minMaxCheckVectors': 1, 'pushdown.duckdb.bloomCheckVectors': 1 };
    let described = '';
    for (let i = 0; i < 40; i++) {
      const c = randomCase(space, 0xd0c4, i);
      const spec = toJoinSpec(c.spec);
      const got = await (await Engine.create({ ...c.config, ...(i % 2 === 0 ? small : {}) }, { baseDir: ROOT })).join(spec, c.left, c.right);
      const want = await oracle.join(spec, c.left, c.right);
      const cmp = compareResults(got.table, want.table);
      if (!cmp.equal) throw new Error(`duckdb pushdown hash join vs oracle\n${describeCase(c)}\n${formatComparison(cmp)}`);
      described += String(got.metrics.operators.join!.details.dynamicFilter ?? '');
    }
    expect(described).toContain('IN BLOOM');
  });
});
