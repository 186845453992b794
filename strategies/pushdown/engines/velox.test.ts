/**
 * The `velox` policy at Velox's boundaries (`createBigintValuesFilter`: one value / contiguous ->
 * BigintRange, range < 2048 or < 256 bits per value -> bitmask, else a value hash table;
 * kMaxDistinct = 100,000; overflowing ranges), the key types it skips, strings behind the switch
 * and their storage cap, per-column filters of multi-column keys, the container tests each filter
 * allows, and each filter against the nested-loop oracle on random keys.
 */
import { Decimal, Float64, Int32, Int64, Int8, TimeUnit, Timestamp, Uint64, Utf8, type DataType } from 'apache-arrow';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { caseSpace, describeCase, randomCase } from '../../../adapters/datagen/random-cases.ts';
import { compareResults, formatComparison } from '../../../adapters/duckdb/compare.ts';
import { toJoinSpec } from '../../../core/spec.ts';
import { Engine, PUSHDOWN } from '../../../index.ts';
import type { ConfigInput } from '../../../core/config/schema.ts';
import { hashKeys } from '../../../core/keys/hash.ts';
import { normalizeKeys } from '../../../core/keys/normalize.ts';
import type { KeyColumn } from '../../../core/keys/types.ts';
import type { BuildPartition, KeyFilter } from '../../../core/pushdown/policy.ts';
import type { ColumnStats } from '../../../core/scan/scan.ts';
import { zoneMapOf } from '../../../core/scan/zone-map.ts';
import { BIGINT, batchOf, buildPartitions, contextFor, int64Column, kindsFor, matchingRows, partitionFromKeys, rng, testConfig, vec, type Val } from '../test-support.ts';
import { planVelox, stringStorage, veloxPushdown } from './velox.ts';

interface Setup {
  readonly part: BuildPartition;
  readonly ctx: ReturnType<typeof contextFor>;
}

function setup(type: DataType, build: readonly Val[], config: ConfigInput = {}, buildType: DataType = type): Setup {
  const kinds = kindsFor([type], [buildType]);
  const [part] = buildPartitions(batchOf({ b: vec(buildType, build) }), ['b'], kinds, 1);
  return { part: part!, ctx: contextFor([type], kinds, ['k'], testConfig(config)) };
}

const plan = (s: Setup) => planVelox(s.part, s.ctx);
const labelOf = (f: KeyFilter | null) => (f === null ? 'nothing' : (f.label ?? f.description));
const big = (xs: readonly number[]) => xs.map(BigInt);
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const st = (min: ColumnStats['min'], max: ColumnStats['max']): ColumnStats => ({ min, max, nullCount: 0 });

function runOn(s: Setup, f: KeyFilter, types: readonly DataType[], cols: Record<string, readonly Val[]>): number[] {
  const names = Object.keys(cols);
  const batch = batchOf(Object.fromEntries(names.map((n, c) => [n, vec(types[c]!, cols[n]!)])));
  const keys = normalizeKeys(batch, names, s.ctx.keyKinds);
  const keep = new Uint8Array(keys[0]!.length).fill(1);
  f.test(keys, f.needsHashes ? hashKeys(keys, s.part.seed) : null, null, keep);
  return [...keep];
}

describe('velox: createBigintValuesFilter', () => {
  it('contiguous values (with duplicates) -> BigintRange', () => {
    const s = setup(new Int64(), big([5, 9, 6, 7, 8, 5, 9]));
    const p = plan(s);
    expect(p.notes).toEqual(['k: BigintRange(5, 9)']);
    expect(labelOf(p.filter)).toBe('range');
    expect(p.filter!.description).toBe('BigintRange: k BETWEEN 5 AND 9');
    expect(runOn(s, p.filter!, [new Int64()], { k: big([4, 5, 9, 10]) })).toEqual([0, 1, 1, 0]);
  });

  it('one value -> BigintRange(v, v)', () => {
    expect(plan(setup(new Int64(), big([7, 7]))).notes).toEqual(['k: BigintRange(7, 7)']);
  });

  it('one gap -> bitmask', () => {
    const s = setup(new Int64(), big([5, 6, 7, 8, 10]));
    const p = plan(s);
    expect(p.notes).toEqual(['k: BigintValuesUsingBitmask(5..10, 5 values)']);
    expect(labelOf(p.filter)).toBe('bitmask(6)');
    expect(runOn(s, p.filter!, [new Int64()], { k: big([4, 5, 8, 9, 10, 11]) })).toEqual([0, 1, 1, 0, 1, 0]);
  });

  it('range < 32 * 64: max - min = 2047 is a bitmask, 2048 a hash table (2 values: 512 bits per the other rule)', () => {
    expect(labelOf(plan(setup(new Int64(), big([0, 2047]))).filter)).toBe('bitmask(2048)');
    expect(labelOf(plan(setup(new Int64(), big([0, 2048]))).filter)).toBe('hash(2)');
  });

  it('range < count * 4 * 64: 10 values over max - min = 2559 is a bitmask, 2560 a hash table', () => {
    expect(labelOf(plan(setup(new Int64(), big([...range(0, 8), 2559]))).filter)).toBe('bitmask(2560)');
    const s = setup(new Int64(), big([...range(0, 8), 2560]));
    expect(plan(s).notes).toEqual(['k: BigintValuesUsingHashTable(10)']);
    expect(labelOf(plan(s).filter)).toBe('hash(10)');
  });

  it('the bitmask thresholds follow pushdown.velox.bitmaskSmallRange / bitmaskBitsPerValue', () => {
    const cfg = { 'pushdown.velox.bitmaskSmallRange': 4, 'pushdown.velox.bitmaskBitsPerValue': 2 };
    expect(labelOf(plan(setup(new Int64(), big([0, 1, 3]), cfg)).filter)).toBe('bitmask(4)'); // 3 < 4
    expect(labelOf(plan(setup(new Int64(), big([0, 1, 5]), cfg)).filter)).toBe('bitmask(6)'); // 5 < 3 * 2
    expect(labelOf(plan(setup(new Int64(), big([0, 1, 6]), cfg)).filter)).toBe('hash(3)'); // 6 = 3 * 2
  });

  it('max - min overflowing int64 -> a hash table', () => {
    const s = setup(new Int64(), [-(2n ** 63n), 2n ** 63n - 1n]);
    expect(labelOf(plan(s).filter)).toBe('hash(2)');
    expect(runOn(s, plan(s).filter!, [new Int64()], { k: [-(2n ** 63n), 0n, 2n ** 63n - 1n] })).toEqual([1, 0, 1]);
  });

  it('kMaxDistinct = 100,000: 100,000 distinct values get a hash table, 100,001 nothing', () => {
    const ctx = contextFor([new Int64()], [BIGINT], ['k']);
    const at = partitionFromKeys([int64Column(Array.from({ length: 100_000 }, (_, i) => BigInt(i * 1000)), BIGINT)]);
    expect(labelOf(planVelox(at, ctx).filter)).toBe('hash(100000)');
    const past = partitionFromKeys([int64Column(Array.from({ length: 100_001 }, (_, i) => BigInt(i * 1000)), BIGINT)]);
    const p = planVelox(past, ctx);
    expect(p.filter).toBeNull();
    expect(p.notes).toEqual(['k: no filter, more than 100000 distinct values']);
  });

  it('kHash mode (one key, no range): 9,999 values spread over 2^60 keep a hash table, 10,000 get nothing', () => {
    const ctx = contextFor([new Int64()], [BIGINT], ['k']);
    const spread = (n: number) => partitionFromKeys([int64Column(Array.from({ length: n }, (_, i) => BigInt(i) * 2n ** 47n), BIGINT)]);
    expect(labelOf(planVelox(spread(9_999), ctx).filter)).toBe('hash(9999)');
    const p = planVelox(spread(10_000), ctx);
    expect(p.filter).toBeNull();
    expect(p.notes).toEqual(['k: no filter, the table is in kHash mode (10000 distinct values, no usable range)']);
    // the same count within a usable range: an array / normalized-key table, so a filter
    const compact = partitionFromKeys([int64Column(Array.from({ length: 10_000 }, (_, i) => BigInt(i) * 1000n), BIGINT)]);
    expect(labelOf(planVelox(compact, ctx).filter)).toBe('hash(10000)');
  });

  it('pushdown.velox.maxDistinct moves that limit (a contiguous block too)', () => {
    const cfg = { 'pushdown.velox.maxDistinct': 5 };
    expect(labelOf(plan(setup(new Int64(), big(range(1, 5)), cfg)).filter)).toBe('range');
    expect(labelOf(plan(setup(new Int64(), big(range(1, 6)), cfg)).filter)).toBe('nothing');
  });

  it('NULL build keys are left out; an all-NULL build is FALSE', () => {
    expect(labelOf(plan(setup(new Int64(), [5n, null, 6n])).filter)).toBe('range');
    expect(plan(setup(new Int64(), [null, null])).filter!.description).toBe('false');
  });
});

describe('velox: key types', () => {
  it('no filter for DOUBLE, TIMESTAMP and unsigned keys', () => {
    expect(plan(setup(new Float64(), [1.5, 2.5])).notes).toEqual(['k: no filter for DOUBLE keys']);
    expect(plan(setup(new Timestamp(TimeUnit.MILLISECOND), [1n, 2n])).filter).toBeNull();
    expect(plan(setup(new Uint64(), [1n, 2n])).notes).toEqual(['k: no filter for UBIGINT keys']);
  });

  it('INTEGER and DATE keys take the BIGINT path', () => {
    expect(labelOf(plan(setup(new Int32(), [1, 3])).filter)).toBe('bitmask(3)');
  });

  it('strings: nothing unless pushdown.velox.stringFilters, then BytesValues', () => {
    const off = plan(setup(new Utf8(), ['a', 'b', 'a']));
    expect(off.filter).toBeNull();
    expect(off.notes).toEqual(['k: string filters are off (hash_probe_string_dynamic_filter_pushdown_enabled)']);
    const s = setup(new Utf8(), ['a', 'b', 'a'], { 'pushdown.velox.stringFilters': true });
    const on = plan(s);
    expect(labelOf(on.filter)).toBe('bytes(2)');
    expect(on.filter!.description).toBe("BytesValues: k IN ('a', 'b')");
    expect(runOn(s, on.filter!, [new Utf8()], { k: ['a', 'c', 'b'] })).toEqual([1, 0, 1]);
  });

  it('the string storage cap: strings over 8 bytes in 1 KiB buffers, overflow once past the cap', () => {
    const s = (n: number, len: number) => Array.from({ length: n }, (_, i) => new Uint8Array(len).fill(i % 251));
    expect(stringStorage(s(100, 8), 1024)).toBe(0);
    expect(stringStorage(s(1, 9), 1024)).toBe(1024);
    expect(stringStorage(s(102, 10), 1024)).toBe(1024); // 1020 bytes in one buffer
    expect(stringStorage(s(103, 10), 1024)).toBe(2048); // a second buffer, total checked before each copy
    expect(stringStorage(s(104, 10), 1024)).toBeNull();
    expect(stringStorage(s(1025, 1024), 1 << 20)).toBe((1 << 20) + 1024);
    expect(stringStorage(s(1026, 1024), 1 << 20)).toBeNull();
    const cap = setup(new Utf8(), Array.from({ length: 200 }, (_, i) => `string-${String(i).padStart(4, '0')}`), {
      'pushdown.velox.stringFilters': true,
      'pushdown.velox.maxDistinctStringBytes': 1024,
    });
    expect(plan(cap).notes).toEqual(['k: no filter, distinct strings need more than 1024 bytes']);
  });

  it('HUGEINT and decimal keys -> HugeintValuesUsingHashTable', () => {
    const h = setup(new Int8(), [1n, 5n, 1n], {}, new Uint64());
    expect(h.ctx.keyKinds[0]!.sqlType).toBe('HUGEINT');
    expect(labelOf(plan(h).filter)).toBe('hash128(2)');
    const d = setup(new Decimal(2, 10, 128), [100n, 250n]);
    expect(labelOf(plan(d).filter)).toBe('hash128(2)');
  });
});

describe('velox: multi-column keys get one filter per column', () => {
  const types = [new Int64(), new Utf8()];
  function multi(config: ConfigInput = {}): Setup {
    const kinds = kindsFor(types, types);
    const [part] = buildPartitions(batchOf({ a: vec(types[0]!, [1n, 5n, 9n]), b: vec(types[1]!, ['x', 'y', 'x']) }), ['a', 'b'], kinds, 1);
    return { part: part!, ctx: contextFor(types, kinds, ['a', 'b'], testConfig(config)) };
  }

  it('the integer column alone while strings are off, tested on that column only', () => {
    const s = multi();
    const p = plan(s);
    expect(labelOf(p.filter)).toBe('bitmask(9)');
    expect(p.notes).toEqual(['a: BigintValuesUsingBitmask(1..9, 3 values)', 'b: string filters are off (hash_probe_string_dynamic_filter_pushdown_enabled)']);
    // (1, 'y') is no build key, but each column alone allows it: per-column filters are looser
    expect(runOn(s, p.filter!, types, { a: [5n, 6n, 1n], b: ['zzz', 'x', 'y'] })).toEqual([1, 0, 1]);
    expect(p.filter!.mayContain([st(6n, 8n), undefined])).toBe(true); // a range: the bitmask only overlaps
    expect(p.filter!.mayContain([st(6n, 6n), undefined])).toBe(false); // one value: its bit
    expect(p.filter!.mayContain([st(10n, 20n), undefined])).toBe(false);
  });

  it('both columns with strings on', () => {
    const s = multi({ 'pushdown.velox.stringFilters': true });
    const p = plan(s);
    expect(labelOf(p.filter)).toBe('bitmask(9) + bytes(2)');
    expect(runOn(s, p.filter!, types, { a: [5n, 5n, 1n], b: ['zzz', 'x', 'y'] })).toEqual([0, 1, 1]);
    expect(p.filter!.mayContain([undefined, st('xa', 'xz')])).toBe(false);
    expect(p.filter!.mayContain([undefined, st('x', 'xz')])).toBe(true);
  });
});

describe('velox: containers', () => {
  it('BigintRange overlaps; the value table needs a value inside', () => {
    const r = plan(setup(new Int64(), big([5, 6, 7]))).filter!;
    expect(r.mayContain([st(0n, 4n)])).toBe(false);
    expect(r.mayContain([st(0n, 5n)])).toBe(true);
    const h = plan(setup(new Int64(), big([0, 5000]))).filter!;
    expect(labelOf(h)).toBe('hash(2)');
    expect(h.mayContain([st(1n, 4999n)])).toBe(false);
    expect(h.mayContain([st(1n, 5000n)])).toBe(true);
    expect(h.mayContain([undefined])).toBe(true);
  });

  it('the bitmask across the 32-bit boundary and below zero', () => {
    const vals = [2n ** 32n - 2n, 2n ** 32n + 1n, 2n ** 32n + 3n];
    const s = setup(new Int64(), vals);
    const f = plan(s).filter!;
    expect(labelOf(f)).toBe('bitmask(6)');
    expect(runOn(s, f, [new Int64()], { k: [2n ** 32n - 3n, 2n ** 32n - 2n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 32n + 1n, 2n ** 32n + 3n, 2n ** 32n + 4n] })).toEqual([0, 1, 0, 0, 1, 1, 0]);
    const neg = setup(new Int64(), [-(2n ** 32n) - 1n, -(2n ** 32n) + 1n, 3n]);
    const g = plan(neg).filter!;
    expect(runOn(neg, g, [new Int64()], { k: [-(2n ** 32n) - 1n, -(2n ** 32n), -(2n ** 32n) + 1n, 3n, 2n, -(2n ** 62n)] })).toEqual([1, 0, 1, 1, 0, 0]);
  });
});

describe('velox: every filter agrees with the oracle on random keys', () => {
  const configs: ConfigInput[] = [{}, { 'pushdown.velox.bitmaskSmallRange': 8, 'pushdown.velox.bitmaskBitsPerValue': 2 }, { 'pushdown.velox.maxDistinct': 20 }];
  for (const [i, config] of configs.entries()) {
    it(`config ${i}: no matching row dropped, no container with a match pruned, and something pruned`, () => {
      const next = rng(41 + i);
      let dropped = 0;
      const seen = new Set<string>();
      for (let trial = 0; trial < 40; trial++) {
        const span = 1 + Math.floor(next() * (next() < 0.5 ? 60 : 5000));
        const base = BigInt(Math.floor(next() * 2 ** 40)) - 2n ** 39n;
        const build = Array.from({ length: 1 + Math.floor(next() * 80) }, () => (next() < 0.05 ? null : base + BigInt(Math.floor(next() * span))));
        const s = setup(new Int64(), build, config);
        const f = veloxPushdown.planPartition(s.part, s.ctx);
        seen.add(labelOf(f).replace(/\(.*$/, ''));
        if (f === null) continue;
        for (let batch = 0; batch < 4; batch++) {
          const vals = Array.from({ length: 64 }, () => base + BigInt(Math.floor(next() * span * 1.5) - 10));
          const b = batchOf({ k: vec(new Int64(), vals) });
          const keys: KeyColumn[] = normalizeKeys(b, ['k'], s.ctx.keyKinds);
          const match = matchingRows(keys, [s.part.keys]);
          const keep = new Uint8Array(vals.length).fill(1);
          f.test(keys, f.needsHashes ? hashKeys(keys, s.part.seed) : null, null, keep);
          for (let r = 0; r < vals.length; r++) {
            if (match[r] === 1) expect(keep[r]).toBe(1);
            if (keep[r] === 0) dropped++;
          }
          if (match.includes(1)) expect(f.mayContain([zoneMapOf(b).column('k')])).toBe(true);
        }
      }
      expect(dropped).toBeGreaterThan(0);
      expect(seen.size).toBeGreaterThan(1);
    });
  }
});

describe('velox: through the engine', () => {
  it('resolves as pushdown=velox and hash joins agree with the nested-loop oracle', async () => {
    const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
    const engine = await Engine.create({ pushdown: 'velox' }, { baseDir: ROOT });
    expect(engine.registry.resolve(PUSHDOWN, 'velox')).toBe(veloxPushdown);
    const space = caseSpace(engine.registry, { algorithms: ['hash'], pushdowns: ['velox'] });
    const oracle = await Engine.create({ join: 'nested-loop' });
    const small = { 'pushdown.velox.maxDistinct': 4, 'pushdown.velox.stringFilters': true };
    let described = '';
    for (let i = 0; i < 40; i++) {
      const c = randomCase(space, 0x7e10, i);
      const spec = toJoinSpec(c.spec);
      const got = await (await Engine.create({ ...c.config, ...(i % 2 === 0 ? small : {}) }, { baseDir: ROOT })).join(spec, c.left, c.right);
      const want = await oracle.join(spec, c.left, c.right);
      const cmp = compareResults(got.table, want.table);
      if (!cmp.equal) throw new Error(`velox pushdown hash join vs oracle\n${describeCase(c)}\n${formatComparison(cmp)}`);
      described += String(got.metrics.operators.join!.details.dynamicFilter ?? '');
    }
    expect(described).toMatch(/Bigint(Range|ValuesUsingBitmask|ValuesUsingHashTable)/);
  });
});
