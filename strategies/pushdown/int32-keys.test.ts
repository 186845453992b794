/**
 * The in-place int32 row test (`KeyFilter.testInt32`, compose.ts): on random builds and probes —
 * dense and sparse ranges (exact and bucketed bitmaps), negative keys, the int32 extremes, builds
 * wider than int32 — every filter that has the path answers exactly as its `test` on the
 * normalised column, and a composed predicate selects the same rows from an Int32 (or Date32) key
 * as from the same values in an Int64 key, which takes the normalising path. `hashInt32Keys`
 * equals `hashKeys` of the widened column.
 */
import { DateDay, Int32, Int64, type DataType } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { hashInt32Keys, hashKeys } from '../../core/keys/hash.ts';
import { normalizeKeys, rawInt32Keys } from '../../core/keys/normalize.ts';
import type { FixedKeyColumn } from '../../core/keys/types.ts';
import { rowPartOf, type KeyFilter, type PushdownPolicy } from '../../core/pushdown/policy.ts';
import { composeDynamicFilter } from '../../core/pushdown/compose.ts';
import { bloomTransferPolicy } from '../sip/filters.ts';
import { autoPushdown } from './auto.ts';
import { boundsPushdown } from './bounds.ts';
import { mapPushdown } from './map.ts';
import { batchOf, buildPartitions, contextFor, kindsFor, rng, testConfig, vec, type Val } from './test-support.ts';

const I32_MIN = -(2 ** 31);
const I32_MAX = 2 ** 31 - 1;

/** A random int32 set over one of several shapes of range. */
function draw(next: () => number, n: number, shape: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const u = next();
    if (shape === 0) out.push(Math.floor(u * 500)); // dense: an exact bitmap
    else if (shape === 1) out.push(Math.floor(u * 40_000_000) - 20_000_000); // sparse, bucketed, negative
    else if (shape === 2) out.push(u < 0.1 ? I32_MIN : u > 0.9 ? I32_MAX : Math.floor(u * 1000)); // the extremes
    else out.push(Math.floor(u * 2 ** 32) + I32_MIN); // anywhere
  }
  return out;
}

const POLICIES: readonly PushdownPolicy[] = [boundsPushdown, mapPushdown, autoPushdown, bloomTransferPolicy];

describe('testInt32', () => {
  it('answers as test on the normalised column, for every filter that has it', () => {
    const next = rng(2026);
    let checked = 0;
    for (let round = 0; round < 60; round++) {
      const shape = round % 4;
      const buildVals = draw(next, 1 + Math.floor(next() * 300), shape);
      const probeVals = [...draw(next, 700, shape), ...buildVals.slice(0, 50), I32_MIN, I32_MAX, 0, -1];
      // a build wider than int32 now and then: bounds and bitmap beyond the int32 range
      const wide = round % 7 === 6;
      const buildType: DataType = wide ? new Int64() : new Int32();
      const build: Val[] = wide ? [...buildVals.map(BigInt), 2n ** 40n] : buildVals;
      const kinds = kindsFor([new Int32()], [buildType]);
      const [part] = buildPartitions(batchOf({ b: vec(buildType, build) }), ['b'], kinds, 1);
      const ctx = contextFor([new Int32()], kinds, ['k'], testConfig());
      const batch = batchOf({ k: vec(new Int32(), probeVals) });
      const raw = rawInt32Keys(batch.getChildAt(0)!, kinds[0]!);
      expect(raw).not.toBeNull();
      const keys = normalizeKeys(batch, ['k'], kinds);
      const hashes = hashKeys(keys, part!.seed);
      expect([...hashInt32Keys(raw!, part!.seed)]).toEqual([...hashes]);
      const rows = Int32Array.from(probeVals.map((_, i) => i).filter(() => next() < 0.5));
      for (const policy of POLICIES) {
        const full = policy.planPartition(part!, ctx);
        for (const f of [full, full === null ? null : rowPartOf(full)]) {
          if (f === null || f.testInt32 === undefined) continue;
          for (const list of [null, rows]) {
            expect(viaInt32(f, raw!, hashes, list), `${policy.name} ${f.description} round ${round}`).toEqual(viaWords(f, keys[0] as FixedKeyColumn, hashes, list));
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
  });

  it('the bounds, bitmap, bloom and their AND have the path; raw keys only for one NULL-free int32 or date chunk', () => {
    const kinds = kindsFor([new Int32()], [new Int32()]);
    const [part] = buildPartitions(batchOf({ b: vec(new Int32(), [1, 5, 900, 70_000]) }), ['b'], kinds, 1);
    const ctx = contextFor([new Int32()], kinds, ['k'], testConfig());
    expect(boundsPushdown.planPartition(part!, ctx)!.testInt32).toBeDefined();
    expect(rowPartOf(mapPushdown.planPartition(part!, ctx)!)!.testInt32).toBeDefined();
    expect(bloomTransferPolicy.planPartition(part!, ctx)!.testInt32).toBeDefined();
    expect(rawInt32Keys(vec(new Int32(), [1, null]), kinds[0]!)).toBeNull();
    expect(rawInt32Keys(vec(new Int64(), [1n]), kinds[0]!)).toBeNull();
    const dateKind = kindsFor([new DateDay()], [new DateDay()])[0]!;
    expect(rawInt32Keys(vec(new DateDay(), [new Date(0)] as never), dateKind)).not.toBeNull();
  });

  it('a composed predicate selects the same rows from Int32 / Date32 keys as from the same Int64 keys', () => {
    const next = rng(7);
    for (let round = 0; round < 24; round++) {
      const shape = round % 3;
      const buildVals = draw(next, 1 + Math.floor(next() * 200), shape);
      const probeVals = draw(next, 500, shape);
      for (const policy of POLICIES) {
        for (const rowFilter of ['always', 'auto'] as const) {
          const config = testConfig({ 'pushdown.rowFilter': rowFilter });
          const select = (type: DataType, values: readonly Val[]): number[] => {
            const kinds = kindsFor([type], [type]);
            const partitions = buildPartitions(batchOf({ b: vec(type, type instanceof Int64 ? buildVals.map(BigInt) : buildVals) }), ['b'], kinds, 1);
            const ctx = contextFor([type], kinds, ['k'], config);
            const p = composeDynamicFilter({ policy, partitions, ctx, routed: false, keepNullKeys: false });
            const sel = p?.selectRows(batchOf({ k: vec(type, values) })) ?? null;
            return sel === null ? values.map((_, i) => i) : [...sel];
          };
          const viaWords = select(new Int64(), probeVals.map(BigInt));
          expect(select(new Int32(), probeVals), `${policy.name} ${rowFilter} round ${round}`).toEqual(viaWords);
          if (shape !== 2) {
            // days within JS Date's range
            const days = (vs: readonly number[]): Val[] => vs.map((d) => new Date(d * 86_400_000)) as never;
            expect(selectDates(policy, config, days(buildVals), days(probeVals)), `${policy.name} ${rowFilter} dates round ${round}`).toEqual(viaWords);
          }
        }
      }
    }
  });
});

/** The rows a composed predicate over a Date32 key keeps. */
function selectDates(policy: PushdownPolicy, config: ReturnType<typeof testConfig>, build: readonly Val[], probe: readonly Val[]): number[] {
  const kinds = kindsFor([new DateDay()], [new DateDay()]);
  const partitions = buildPartitions(batchOf({ b: vec(new DateDay(), build) }), ['b'], kinds, 1);
  const ctx = contextFor([new DateDay()], kinds, ['k'], config);
  const batch = batchOf({ k: vec(new DateDay(), probe) });
  expect(rawInt32Keys(batch.getChildAt(0)!, kinds[0]!)).not.toBeNull();
  const sel = composeDynamicFilter({ policy, partitions, ctx, routed: false, keepNullKeys: false })?.selectRows(batch) ?? null;
  return sel === null ? probe.map((_, i) => i) : [...sel];
}

function viaInt32(f: KeyFilter, raw: Int32Array, hashes: Uint32Array, rows: Int32Array | null): number[] {
  const keep = new Uint8Array(raw.length).fill(1);
  f.testInt32!(raw, f.needsHashes ? hashes : null, rows, keep);
  return [...keep];
}

function viaWords(f: KeyFilter, col: FixedKeyColumn, hashes: Uint32Array, rows: Int32Array | null): number[] {
  const keep = new Uint8Array(col.length).fill(1);
  f.test([col], f.needsHashes ? hashes : null, rows, keep);
  return [...keep];
}
