/**
 * The `spark` policy at Spark's documented thresholds (SQLConf defaults): the creation-side
 * threshold at and one past, the Bloom filter's bits from the defaults and from the row-count rule,
 * numBits capped at maxNumBits, no min/max, the 3.5 IN-subquery on / off and its broadcast limit;
 * and no match dropped against the nested-loop oracle.
 */
import { Int64 } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../../core/config/schema.ts';
import { hashKeys } from '../../../core/keys/hash.ts';
import { normalizeKeys } from '../../../core/keys/normalize.ts';
import type { BuildPartition, KeyFilter } from '../../../core/pushdown/policy.ts';
import { FALSE_FILTER } from '../and.ts';
import { batchOf, buildPartitions, contextFor, kindsFor, matchingRows, rng, testConfig, vec, type Val } from '../test-support.ts';
import { bloomBytesFor, optimalNumOfBits, sparkPushdown } from './spark.ts';

const MIB = 2 ** 20;
const kinds = kindsFor([new Int64()], [new Int64()]);

function part(values: readonly Val[], bytes?: number): BuildPartition {
  const [p] = buildPartitions(batchOf({ b: vec(new Int64(), values) }), ['b'], kinds, 1);
  return bytes === undefined ? p! : { ...p!, bytes };
}

function plan(p: BuildPartition, config: ConfigInput = {}): KeyFilter | null {
  return sparkPushdown.planPartition(p, contextFor([new Int64()], kinds, ['k'], testConfig(config)));
}

const ints = (n: number): bigint[] => Array.from({ length: n }, (_, i) => BigInt(i * 3));

describe('spark: the Bloom filter and the creation-side threshold', () => {
  it('defaults (no row count statistic): numBits = 8388608 bits = a 1 MiB filter', () => {
    const f = plan(part(ints(100), 4096))!;
    expect(f.label).toBe('bloom(1 MiB)');
    expect(f.description).toMatch(/spark: Bloom filter, 4096 <= 10485760 creation-side bytes; 8388608 bits for 1000000 items from defaults, Spark k=6/);
  });

  it('creationSideThreshold (10 MiB): a filter at exactly the threshold, nothing one byte past it', () => {
    expect(plan(part(ints(10), 10 * MIB))!.label).toBe('bloom(1 MiB)');
    expect(plan(part(ints(10), 10 * MIB + 1))).toBeNull();
    expect(plan(part(ints(10), 1000), { 'pushdown.spark.creationSideThreshold': '999' })).toBeNull();
  });

  it('without the measured bytes the key columns are the estimate, and the description says so', () => {
    const f = plan(part(ints(100)))!;
    expect(f.description).toContain('800 <= 10485760 creation-side bytes (estimated from the key columns)');
    expect(plan(part(ints(100)), { 'pushdown.spark.creationSideThreshold': 799 })).toBeNull();
  });

  it("with a row count: Spark's optimalNumOfBits (fpp = min(n / (maxNumItems / 0.03), 0.03))", () => {
    const n = 1000;
    const bits = Math.floor((-n * Math.log(n / (4_000_000 / 0.03))) / (Math.LN2 * Math.LN2));
    expect(optimalNumOfBits(n, 4_000_000, 67_108_864)).toBe(bits);
    const f = plan(part(ints(n), 8000), { 'pushdown.spark.rowCountStats': true })!;
    expect(f.description).toContain(`${bits} bits for 1000 items from row count`);
    expect(f.label).toBe(`bloom(${bloomBytesFor(bits) / 1024} KiB)`);
    expect(bloomBytesFor(bits)).toBe(Math.ceil(bits / 8 / 32) * 32);
    // past maxNumItems the rate is Spark's 3%: about 7.3 bits an item
    expect(optimalNumOfBits(8_000_000, 4_000_000, Infinity)).toBe(Math.floor((-8_000_000 * Math.log(0.03)) / (Math.LN2 * Math.LN2)));
  });

  it('numBits is capped at maxNumBits, in both sizings', () => {
    const d = plan(part(ints(100), 800), { 'pushdown.spark.maxNumBits': 4096 })!;
    expect(d.label).toBe('bloom(512 B)');
    expect(d.description).toContain('4096 bits (capped at maxNumBits)');
    const r = plan(part(ints(1000), 8000), { 'pushdown.spark.rowCountStats': true, 'pushdown.spark.maxNumBits': 1000 })!;
    expect(r.label).toBe('bloom(128 B)'); // 1000 bits = 125 bytes, rounded up to 32-byte blocks
    expect(r.description).toContain('1000 bits (capped at maxNumBits)');
    const items = plan(part(ints(10), 80), { 'pushdown.spark.expectedNumItems': 5_000_000 })!;
    expect(items.description).toContain('for 4000000 items'); // capped at maxNumItems
  });

  it('partitioned: the whole creation side is P x the partition, and each partition gets 1/P of the bits', () => {
    const partitioned = { 'hash.mode': 'partitioned', 'hash.partitions': 4 } as const;
    const f = plan(part(ints(100), 2.5 * MIB), partitioned)!;
    expect(f.label).toBe('bloom(256 KiB)'); // 8388608 bits / 4
    expect(f.description).toContain(`${10 * MIB} (4 x this partition's) <= ${10 * MIB} creation-side bytes`);
    expect(plan(part(ints(100), 2.5 * MIB + 1), partitioned)).toBeNull();
  });

  it('bits / 8 rounded up to a positive multiple of 32 bytes', () => {
    expect([1, 256, 257, 8 * 1024].map(bloomBytesFor)).toEqual([32, 32, 64, 1024]);
  });

  it('publishes no min/max: containers are never pruned, only rows', () => {
    const p = part(ints(100), 800);
    const f = plan(p)!;
    expect(f.mayContain([{ min: 10n ** 12n, max: 10n ** 13n, nullCount: 0 }])).toBe(true);
    expect(f.exactValues?.() ?? null).toBeNull();
    const probe = normalizeKeys(batchOf({ k: vec(new Int64(), [0n, 3n, 1n, 10n ** 12n]) }), ['k'], kinds);
    const keep = new Uint8Array(4).fill(1);
    f.test(probe, hashKeys(probe, p.seed), null, keep);
    expect([keep[0], keep[1]]).toEqual([1, 1]);
    expect(keep[2]! + keep[3]!).toBeLessThan(2); // 1 MiB for 100 keys: both misses passing is ~never
  });

  it('a build of only NULL keys filters everything (bloom_filter_agg is NULL, might_contain NULL)', () => {
    expect(plan(part([null, null], 16))).toBe(FALSE_FILTER);
  });

  it('bloomFilter.enabled off and no semi-join reduction: nothing', () => {
    expect(plan(part(ints(10), 80), { 'pushdown.spark.bloomFilterEnabled': false })).toBeNull();
  });
});

describe('spark 3.5: the IN-subquery (semi-join reduction)', () => {
  const semi = { 'pushdown.spark.bloomFilterEnabled': false, 'pushdown.spark.semiJoinReduction': true };

  it('applies only when Bloom filters are off (Spark prefers the Bloom filter)', () => {
    expect(plan(part(ints(10), 80), { 'pushdown.spark.semiJoinReduction': true })!.label).toBe('bloom(1 MiB)');
    const f = plan(part(ints(10), 80), semi)!;
    expect(f.label).toBe('semi-in(10)');
    expect(f.description).toMatch(/spark 3\.5: IN-subquery \(semi-join reduction\), 80 <= 10485760 aggregate bytes/);
  });

  it('is a left-semi join, not a scan predicate: exact rows, no container pruning, no value set for the scan', () => {
    const p = part([1n, 5n, 5n, 9n], 32);
    const f = plan(p, semi)!;
    expect(f.mayContain([{ min: 100n, max: 200n, nullCount: 0 }])).toBe(true);
    expect(f.exactValues!()).toBeNull();
    const probe = normalizeKeys(batchOf({ k: vec(new Int64(), [1n, 2n, 5n, 9n, 10n]) }), ['k'], kinds);
    const keep = new Uint8Array(5).fill(1);
    f.test(probe, hashKeys(probe, p.seed), null, keep);
    expect([...keep]).toEqual([1, 0, 1, 1, 0]);
  });

  it('the aggregate must fit autoBroadcastJoinThreshold (10 MiB): at the limit in, one byte past nothing', () => {
    const p = part(ints(100), 1); // the aggregate is the key columns: 100 x 8 bytes
    expect(plan(p, { ...semi, 'pushdown.spark.broadcastThreshold': 800 })!.label).toBe('semi-in(100)');
    expect(plan(p, { ...semi, 'pushdown.spark.broadcastThreshold': 799 })).toBeNull();
    // no creation-side threshold on this path
    expect(plan(part(ints(100), 20 * MIB), semi)!.label).toBe('semi-in(100)');
  });

  it('config keys are validated like the others', () => {
    expect(testConfig()['pushdown.spark.creationSideThreshold']).toBe(10 * MIB);
    expect(testConfig({ 'pushdown.spark.creationSideThreshold': '10MiB' })['pushdown.spark.creationSideThreshold']).toBe(10 * MIB);
    expect(() => testConfig({ 'pushdown.spark.maxNumBits': 0 })).toThrow(/maxNumBits/);
    expect(() => testConfig({ 'pushdown.spark.semiJoinReduction': 'yes' as never })).toThrow(/semiJoinReduction/);
  });
});

describe('spark: never drops a match (oracle)', () => {
  const configs: ConfigInput[] = [
    { 'pushdown.spark.rowCountStats': true, 'pushdown.spark.maxNumBits': 256 },
    {},
    { 'pushdown.spark.creationSideThreshold': 200 },
    { 'pushdown.spark.bloomFilterEnabled': false, 'pushdown.spark.semiJoinReduction': true },
  ];
  it('random BIGINT keys with NULLs, 1-4 partitions, every rule', () => {
    const next = rng(7);
    const seen = new Set<string>();
    for (let round = 0; round < 48; round++) {
      const config = configs[round % configs.length]!;
      const n = 1 + Math.floor(next() * 60);
      const build: Val[] = Array.from({ length: n }, () => (next() < 0.1 ? null : BigInt(Math.floor(next() * 2000) - 1000)));
      const probe: Val[] = Array.from({ length: 300 }, () => (next() < 0.05 ? null : BigInt(Math.floor(next() * 3000) - 1500)));
      const parts = buildPartitions(batchOf({ b: vec(new Int64(), build) }), ['b'], kinds, 1 + (round % 4));
      const ctx = contextFor([new Int64()], kinds, ['k'], testConfig(config));
      const keys = normalizeKeys(batchOf({ k: vec(new Int64(), probe) }), ['k'], kinds);
      const nonNull = Int32Array.from(probe.flatMap((v, i) => (v === null ? [] : [i])));
      for (const p of parts) {
        if (p.rows === 0) continue;
        const f = sparkPushdown.planPartition({ ...p, bytes: 8 * p.rows }, ctx);
        seen.add(f === null ? 'nothing' : f.label!.replace(/\(.*$/, ''));
        if (f === null) continue;
        const keep = new Uint8Array(probe.length).fill(1);
        f.test(keys, f.needsHashes ? hashKeys(keys, p.seed) : null, nonNull, keep);
        const match = matchingRows(keys, [p.keys]);
        for (let r = 0; r < probe.length; r++) if (match[r] === 1) expect(keep[r]).toBe(1);
        if (f.label!.startsWith('semi-in(')) for (const r of nonNull) expect(keep[r]).toBe(match[r]);
      }
    }
    expect([...seen].sort()).toEqual(['bloom', 'nothing', 'semi-in']);
  });
});
