/**
 * The example `bloom` pushdown extension: it must never drop a matching row or prune a container
 * holding one (seeded property over key kinds x partitioning x NULL modes), it must actually
 * filter (< 5% of 10K absent keys pass; the target is 1%), and it must plug in the way a user
 * would load it — `extensions: [file]`, `pushdown: bloom` — with hash joins that agree with the
 * nested-loop oracle on random cases.
 */
import { DataType, Dictionary, Float64, Int32, Int64, Int8, TimeUnit, Timestamp, Uint64, Utf8 } from 'apache-arrow';
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Engine, PUSHDOWN } from '../../index.ts';
import { hashKeys } from '../../core/keys/hash.ts';
import { normalizeKeys } from '../../core/keys/normalize.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { zoneMapOf } from '../../core/scan/zone-map.ts';
import { caseSpace, describeCase, randomCase } from '../../adapters/datagen/random-cases.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { composeDynamicFilter, type PartitionReport } from '../../core/pushdown/compose.ts';
import { batchOf, buildPartitions, chunks, contextFor, keptMask, kindsFor, matchingRows, testConfig, vec, type Val } from '../pushdown/test-support.ts';
import extension, { bloomOf, bloomPushdown } from './bloom-pushdown.ts';
import { SplitBlockBloomFilter } from '../../index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXTENSION = './strategies/examples/bloom-pushdown.ts';

interface Scenario {
  readonly name: string;
  readonly probeTypes: readonly DataType[];
  readonly buildTypes: readonly DataType[];
  /** Logical value i -> (probe value, build value) per column. */
  readonly value: (i: number, c: number, side: 'probe' | 'build') => Val;
}

const FLOATS = [-0, 0, NaN, 1.5, -2.25, Infinity, -Infinity, 3, 1e300, -7];
const WORDS = ['', 'a', 'ab', 'b', 'é', '日本', 'zz', 'a\u0000b', 'x', 'yy'];

const SCENARIOS: readonly Scenario[] = [
  { name: 'int32 probe vs int64 build', probeTypes: [new Int32()], buildTypes: [new Int64()], value: (i, _c, s) => (s === 'build' ? BigInt(i * 7 - 50) : i * 7 - 50) },
  { name: 'int64 extremes', probeTypes: [new Int64()], buildTypes: [new Int64()], value: (i) => (i % 5 === 0 ? -(2n ** 63n) + BigInt(i) : 2n ** 62n - BigInt(i) * 1_000_003n) },
  { name: 'int8 probe vs uint64 build (HUGEINT)', probeTypes: [new Int8()], buildTypes: [new Uint64()], value: (i, _c, s) => (s === 'build' ? BigInt(i % 120) : i % 120) },
  { name: 'float64 with -0.0 / NaN', probeTypes: [new Float64()], buildTypes: [new Float64()], value: (i) => FLOATS[i % FLOATS.length]! + (i >= FLOATS.length ? i : 0) },
  { name: 'dictionary utf8 probe vs utf8 build', probeTypes: [new Dictionary(new Utf8(), new Int32())], buildTypes: [new Utf8()], value: (i) => `${WORDS[i % WORDS.length]}${Math.floor(i / WORDS.length) || ''}` },
  { name: '2 columns int32 + utf8', probeTypes: [new Int32(), new Utf8()], buildTypes: [new Int32(), new Utf8()], value: (i, c) => (c === 0 ? i % 4 : WORDS[Math.floor(i / 4) % WORDS.length]!) },
  {
    name: 'timestamp[s] probe vs timestamp[ms] build',
    probeTypes: [new Timestamp(TimeUnit.SECOND)],
    buildTypes: [new Timestamp(TimeUnit.MILLISECOND)],
    value: (i, _c, s) => BigInt(i * 3600 - 7200) * (s === 'build' ? 1000n : 1n),
  },
];

interface Case {
  readonly build: (number | null)[]; // logical value or NULL row
  readonly probe: (number | null)[];
  readonly probeChunks: number[];
  readonly partitions: number;
  readonly keepNullKeys: boolean;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  build: fc.array(fc.option(fc.nat(40), { freq: 8 }), { maxLength: 40 }),
  probe: fc.array(fc.option(fc.nat(60), { freq: 8 }), { minLength: 1, maxLength: 60 }),
  probeChunks: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 8 }),
  partitions: fc.integer({ min: 1, max: 4 }),
  keepNullKeys: fc.boolean(),
});

function rowOf(s: Scenario, v: number | null, side: 'probe' | 'build'): Val[] {
  return s.probeTypes.map((_, c) => (v === null ? null : s.value(v, c, side)));
}

function columns(s: Scenario, types: readonly DataType[], names: readonly string[], rows: readonly Val[][]) {
  return batchOf(Object.fromEntries(names.map((n, c) => [n, vec(types[c]!, rows.map((r) => r[c]!))])));
}

describe('bloom pushdown (example extension)', () => {
  for (const s of SCENARIOS) {
    it(`never drops a matching row or container: ${s.name}`, () => {
      const pNames = s.probeTypes.map((_, c) => `p${c}`);
      const bNames = s.buildTypes.map((_, c) => `b${c}`);
      const kinds = kindsFor(s.probeTypes, s.buildTypes);
      let dropped = 0;
      fc.assert(
        fc.property(caseArb, (k) => {
          const build = columns(s, s.buildTypes, bNames, k.build.map((v) => rowOf(s, v, 'build')));
          const parts: PartitionReport[] = buildPartitions(build, bNames, kinds, k.partitions, { nullEqualsNull: k.keepNullKeys });
          const ctx = contextFor(s.probeTypes, kinds, pNames, testConfig());
          const pred = composeDynamicFilter({ policy: bloomPushdown, partitions: parts, ctx, routed: k.partitions > 1, keepNullKeys: k.keepNullKeys })!;
          expect(pred).not.toBeNull();
          const builtKeys = parts.map((p) => (p as Exclude<PartitionReport, 'failed'>).keys);
          for (const values of chunks(k.probe, k.probeChunks)) {
            const batch = columns(s, s.probeTypes, pNames, values.map((v) => rowOf(s, v, 'probe')));
            const match = matchingRows(normalizeKeys(batch, pNames, kinds), builtKeys);
            const kept = keptMask(pred.selectRows(batch), values.length);
            let mustKeep = false;
            values.forEach((v, r) => {
              const must = match[r] === 1 || (k.keepNullKeys && v === null);
              if (must && kept[r] !== 1) throw new Error(`row ${r} (logical ${v}) dropped by ${pred.description}`);
              mustKeep ||= must;
              if (kept[r] === 0 && v !== null) dropped++;
            });
            if (mustKeep && !pred.mayContain(zoneMapOf(batch))) throw new Error(`container pruned by ${pred.description}`);
          }
        }),
        { seed: 0xb100f + s.name.length, numRuns: 80 },
      );
      expect(dropped).toBeGreaterThan(0); // not vacuous
    });
  }

  it('lets fewer than 5% of 10K absent keys through (target 1%)', () => {
    const N = 10_000;
    // build: even keys; probe: odd keys in the same range, so bounds cannot help — only the Bloom filter
    const kinds = kindsFor([new Int64()], [new Int64()]);
    const build = batchOf({ b0: vec(new Int64(), Array.from({ length: N }, (_, i) => BigInt(2 * i))) });
    const probe = batchOf({ p0: vec(new Int64(), Array.from({ length: N }, (_, i) => BigInt(2 * i + 1))) });
    const parts = buildPartitions(build, ['b0'], kinds, 1);
    const ctx = contextFor([new Int64()], kinds, ['p0']);
    const pred = composeDynamicFilter({ policy: bloomPushdown, partitions: parts, ctx, routed: false, keepNullKeys: false })!;
    expect(pred.description).toMatch(/p0 BETWEEN 0 AND 19998 AND p0 IN BLOOM\(10000 keys, 131072 bits, split-block\)/);
    const kept = pred.selectRows(probe);
    const falsePositives = kept === null ? N : kept.length;
    expect(falsePositives / N).toBeLessThan(0.05);
    // and every present key passes
    const present = batchOf({ p0: vec(new Int64(), Array.from({ length: N }, (_, i) => BigInt(2 * i))) });
    expect(pred.selectRows(present)).toBeNull();

    // the same on strings, with the filter alone (hashes with the partition's seed, as the composer gives them)
    const utf8 = kindsFor([new Utf8()], [new Utf8()]);
    const bloom = bloomOf(buildPartitions(batchOf({ b0: vec(new Utf8(), Array.from({ length: N }, (_, i) => `key-${i}`)) }), ['b0'], utf8, 1)[0]!);
    const absent = buildPartitions(batchOf({ b0: vec(new Utf8(), Array.from({ length: N }, (_, i) => `other-${i}`)) }), ['b0'], utf8, 1)[0]!;
    const hashes = hashKeys(absent.keys, absent.seed);
    let fp = 0;
    for (let i = 0; i < N; i++) if (bloom.mayContainHash32(hashes[i]!)) fp++;
    expect(fp / N).toBeLessThan(0.05);
    expect(SplitBlockBloomFilter.forKeys(0, 0.01).mayContainHash32(12345)).toBe(false); // an empty filter rejects everything
  });

  it('loads as an extension and hash joins with pushdown=bloom agree with the nested-loop oracle', async () => {
    const engine = await Engine.create({ extensions: [EXTENSION], pushdown: 'bloom' }, { baseDir: ROOT });
    expect(extension.name).toBe('example.bloom');
    const info = engine.registry.slots().find((s) => s.name === 'pushdown')!.strategies.find((s) => s.name === 'bloom')!;
    expect(info.extension).toBe('example.bloom');
    expect(engine.registry.resolve(PUSHDOWN, 'bloom').name).toBe('bloom');

    const space = caseSpace(engine.registry, { algorithms: ['hash'], pushdowns: ['bloom'], extensions: engine.config.extensions });
    const oracle = await Engine.create({ join: 'nested-loop' });
    let filtered = 0;
    let bloomUsed = 0;
    for (let i = 0; i < 80; i++) {
      const c = randomCase(space, 0xb1005, i);
      expect(c.config.pushdown).toBe('bloom');
      const spec = toJoinSpec(c.spec);
      const got = await (await Engine.create(c.config, { baseDir: ROOT })).join(spec, c.left, c.right);
      const want = await oracle.join(spec, c.left, c.right);
      const cmp = compareResults(got.table, want.table);
      if (!cmp.equal) throw new Error(`bloom hash join vs oracle\n${describeCase(c)}\n${formatComparison(cmp)}`);
      const scans = got.metrics.scans;
      filtered += scans.left.rowsDecoded - scans.left.rowsAfterFilter + scans.right.rowsDecoded - scans.right.rowsAfterFilter;
      if (String(got.metrics.operators.join!.details.dynamicFilter).includes('BLOOM')) bloomUsed++;
    }
    expect(bloomUsed).toBeGreaterThan(0);
    expect(filtered).toBeGreaterThan(0);
  });
});
