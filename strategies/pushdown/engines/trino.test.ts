/**
 * The `trino` policy at Trino's documented thresholds (DynamicFilterConfig defaults): the distinct
 * limit at and one past, the size limit, the range row limit at and past, partitioned and large
 * limits, DOUBLE without min/max; and no match dropped against the nested-loop oracle.
 */
import { Float64, Int32, Int64, Utf8, type DataType } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../../core/config/schema.ts';
import { hashKeys } from '../../../core/keys/hash.ts';
import { normalizeKeys } from '../../../core/keys/normalize.ts';
import type { KeyFilter } from '../../../core/pushdown/policy.ts';
import { FALSE_FILTER } from '../and.ts';
import { batchOf, buildPartitions, contextFor, kindsFor, matchingRows, rng, testConfig, vec, type Val } from '../test-support.ts';
import { trinoPushdown, trinoRetainedBytes } from './trino.ts';

function plan(type: DataType, build: readonly Val[], config: ConfigInput = {}) {
  const kinds = kindsFor([type], [type]);
  const [part] = buildPartitions(batchOf({ b: vec(type, build) }), ['b'], kinds, 1);
  const ctx = contextFor([type], kinds, ['k'], testConfig(config));
  return { part: part!, ctx, kinds, filter: trinoPushdown.planPartition(part!, ctx) };
}

const range = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i);

describe('trino: small limits (broadcast / collect-left)', () => {
  it('exactly max-distinct-values-per-driver (1000) distinct values publish the value set', () => {
    const { filter } = plan(new Int32(), range(1000));
    expect(filter!.label).toBe('in(1000)');
    expect(filter!.description).toMatch(/trino small: value set, 1000 <= 1000 distinct/);
    expect(filter!.exactValues!()!.length).toBe(1000);
  });

  it('one past (1001) falls back to min/max (the driver saw <= 2000 rows)', () => {
    const { filter } = plan(new Int32(), range(1001, 5));
    expect(filter!.label).toBe('bounds');
    expect(filter!.description).toMatch(/^k BETWEEN 5 AND 1005 \[trino small: min\/max \(values > 1000 distinct\), 1001 <= 2000 rows\]$/);
    expect(filter!.mayContain([{ min: 2000, max: 3000, nullCount: 0 }])).toBe(false);
  });

  it('range-row-limit-per-driver (2000): min/max at the limit, nothing one row past it', () => {
    expect(plan(new Int32(), range(2000)).filter!.label).toBe('bounds');
    expect(plan(new Int32(), range(2001)).filter).toBeNull();
  });

  it('the row limit counts rows with a NULL key too (positions), and does not stop the value set', () => {
    const nulls: Val[] = [...range(1001), ...Array<Val>(999).fill(null)];
    expect(plan(new Int32(), nulls).filter!.label).toBe('bounds'); // 2000 rows
    expect(plan(new Int32(), [...nulls, null]).filter).toBeNull(); // 2001 rows
    const dup = Array.from({ length: 5000 }, (_, i) => i % 10);
    expect(plan(new Int32(), dup).filter!.label).toBe('in(10)');
  });

  it('max-size-per-driver: the builder retained-size estimate at the limit keeps values, one byte under falls back', () => {
    const kinds = kindsFor([new Int32()], [new Int32()]);
    const est = trinoRetainedBytes(kinds[0]!, false, 300);
    expect(plan(new Int32(), range(300), { 'pushdown.trino.maxSizePerDriver': est }).filter!.label).toBe('in(300)');
    const past = plan(new Int32(), range(300), { 'pushdown.trino.maxSizePerDriver': est - 1 }).filter!;
    expect(past.label).toBe('bounds');
    expect(past.description).toContain(`values ~${est} > ${est - 1} bytes`);
  });

  it("Trino's size is a hash table's, not packed keys: 1000 BIGINTs are 8000 packed bytes, ~18.6 KB retained", () => {
    const { filter, kinds } = plan(new Int64(), range(1000).map(BigInt));
    expect(filter!.label).toBe('in(1000)');
    // 128 (builder) + 16 + 2048 + 8 (control) + 16 + 2048 * 8 (records): capacity 2048 holds < 1920 values
    expect(trinoRetainedBytes(kinds[0]!, false, 1000)).toBe(128 + 16 + 2056 + 16 + 16384);
    expect(trinoRetainedBytes(kinds[0]!, false, 1919)).toBe(trinoRetainedBytes(kinds[0]!, false, 1000));
    expect(trinoRetainedBytes(kinds[0]!, false, 1920)).toBeGreaterThan(trinoRetainedBytes(kinds[0]!, false, 1919));
  });

  it('the default 100 KiB size limit with long strings, under the distinct limit: min/max', () => {
    const long = range(500).map((i) => `${String(i).padStart(4, '0')}${'x'.repeat(200)}`);
    const f = plan(new Utf8(), long).filter!;
    expect(f.label).toBe('bounds');
    expect(f.description).toMatch(/values ~\d+ > 102400 bytes/);
    expect(f.description).toMatch(/500 <= 2000 rows/);
    expect(plan(new Utf8(), long.slice(0, 100)).filter!.label).toBe('in(100)');
  });

  it('DOUBLE: values within the limits, but no min/max past them (Trino skips DOUBLE and REAL)', () => {
    expect(plan(new Float64(), range(1000)).filter!.label).toBe('in(1000)');
    expect(plan(new Float64(), range(1001)).filter).toBeNull();
  });

  it('range-row-limit-per-driver 0 disables min/max; a build of only NULL keys is FALSE (Domain.none)', () => {
    expect(plan(new Int32(), range(1001), { 'pushdown.trino.rangeRowLimitPerDriver': 0 }).filter).toBeNull();
    expect(plan(new Int32(), [null, null]).filter).toBe(FALSE_FILTER);
  });

  it('a two-column key past the limits publishes min/max of the non-float column only', () => {
    const kinds = kindsFor([new Int32(), new Float64()], [new Int32(), new Float64()]);
    const build = batchOf({ a: vec(new Int32(), range(1001)), b: vec(new Float64(), range(1001)) });
    const [part] = buildPartitions(build, ['a', 'b'], kinds, 1);
    const ctx = contextFor([new Int32(), new Float64()], kinds, ['ka', 'kb'], testConfig());
    const f = trinoPushdown.planPartition(part!, ctx)!;
    expect(f.description).toMatch(/^ka BETWEEN 0 AND 1000 \[trino small: min\/max/);
    const probe = batchOf({ ka: vec(new Int32(), [-1, 0, 1000, 1001]), kb: vec(new Float64(), [0, 5000, -3, 0]) });
    const keys = normalizeKeys(probe, ['ka', 'kb'], kinds);
    const keep = new Uint8Array(4).fill(1);
    f.test(keys, null, null, keep);
    expect([...keep]).toEqual([0, 1, 1, 0]);
    expect(f.mayContain([{ min: 2000, max: 3000, nullCount: 0 }, { min: 0, max: 1, nullCount: 0 }])).toBe(false);
    expect(f.mayContain([{ min: 0, max: 3000, nullCount: 0 }, { min: 1e9, max: 2e9, nullCount: 0 }])).toBe(true);
  });
});

describe('trino: partitioned and large limits', () => {
  const partitioned = { 'hash.mode': 'partitioned' } as const;

  it('small-partitioned: 100 distinct values at the limit, 101 min/max, 501 rows nothing', () => {
    expect(plan(new Int32(), range(100), partitioned).filter!.description).toMatch(/trino small-partitioned: value set, 100 <= 100 distinct/);
    expect(plan(new Int32(), range(101), partitioned).filter!.description).toMatch(/trino small-partitioned: min\/max \(values > 100 distinct\), 101 <= 500 rows/);
    expect(plan(new Int32(), range(500), partitioned).filter!.label).toBe('bounds');
    expect(plan(new Int32(), range(501), partitioned).filter).toBeNull();
  });

  it('large (enable-large-dynamic-filters): 50000 distinct at the limit, 50001 min/max', () => {
    const large = { 'pushdown.trino.enableLargeDynamicFilters': true };
    expect(plan(new Int32(), range(50_000), large).filter!.description).toMatch(/trino large: value set, 50000 <= 50000 distinct/);
    expect(plan(new Int32(), range(50_001), large).filter!.description).toMatch(/trino large: min\/max .* 50001 <= 100000 rows/);
    expect(plan(new Int32(), range(2001), large).filter!.label).toBe('in(2001)'); // past the small limits
  });

  it('large-partitioned: 20000 distinct at the limit, 20001 min/max, 30001 rows nothing', () => {
    const lp = { 'pushdown.trino.enableLargeDynamicFilters': true, 'hash.mode': 'partitioned' } as const;
    expect(plan(new Int32(), range(20_000), lp).filter!.label).toBe('in(20000)');
    expect(plan(new Int32(), range(20_001), lp).filter!.description).toMatch(/trino large-partitioned: min\/max/);
    expect(plan(new Int32(), range(30_001), lp).filter).toBeNull();
  });

  it('config keys are validated like the others', () => {
    expect(() => testConfig({ 'pushdown.trino.maxDistinctPerDriver': -1 })).toThrow(/maxDistinctPerDriver/);
    expect(() => testConfig({ 'pushdown.trino.maxSizePerDriver': '2MiB' })).toThrow(/maxSizePerDriver/); // @MaxDataSize("1MB")
    expect(testConfig({ 'pushdown.trino.largeMaxSizePerDriver': '8MiB' })['pushdown.trino.largeMaxSizePerDriver']).toBe(8 * 2 ** 20);
    expect(testConfig()['pushdown.trino.maxSizePerDriver']).toBe(100 * 1024);
  });
});

describe('trino: never drops a match (oracle)', () => {
  const configs: ConfigInput[] = [
    {},
    { 'pushdown.trino.maxDistinctPerDriver': 8 },
    { 'pushdown.trino.maxDistinctPerDriver': 8, 'pushdown.trino.rangeRowLimitPerDriver': 30 },
    { 'hash.mode': 'partitioned' },
    { 'pushdown.trino.enableLargeDynamicFilters': true, 'pushdown.trino.largeMaxSizePerDriver': 1000 },
  ];
  it('random BIGINT keys with NULLs, 1-4 partitions, every rule', () => {
    const next = rng(42);
    const seen = new Set<string>();
    for (let round = 0; round < 60; round++) {
      const config = configs[round % configs.length]!;
      const n = 1 + Math.floor(next() * 80);
      const build: Val[] = Array.from({ length: n }, () => (next() < 0.1 ? null : BigInt(Math.floor(next() * 200) - 100)));
      const probe: Val[] = Array.from({ length: 200 }, () => (next() < 0.05 ? null : BigInt(Math.floor(next() * 300) - 150)));
      const kinds = kindsFor([new Int64()], [new Int64()]);
      const count = 1 + (round % 4);
      const parts = buildPartitions(batchOf({ b: vec(new Int64(), build) }), ['b'], kinds, count);
      const ctx = contextFor([new Int64()], kinds, ['k'], testConfig(config));
      const keys = normalizeKeys(batchOf({ k: vec(new Int64(), probe) }), ['k'], kinds);
      for (const part of parts) {
        if (part.rows === 0) continue;
        const f: KeyFilter | null = trinoPushdown.planPartition(part, ctx);
        seen.add(f === null ? 'nothing' : f.label!.replace(/\(.*$/, ''));
        if (f === null) continue;
        const keep = new Uint8Array(probe.length).fill(1);
        const nonNull = Int32Array.from(probe.flatMap((v, i) => (v === null ? [] : [i])));
        f.test(keys, f.needsHashes ? hashKeys(keys, part.seed) : null, nonNull, keep);
        const match = matchingRows(keys, [part.keys]);
        for (let r = 0; r < probe.length; r++) if (match[r] === 1) expect(keep[r]).toBe(1);
        // the value set is exact: it keeps only matches among the rows it tested
        if (f.label!.startsWith('in(')) for (const r of nonNull) expect(keep[r]).toBe(match[r]);
      }
    }
    expect([...seen].sort()).toEqual(['bounds', 'in', 'nothing']);
  });
});
