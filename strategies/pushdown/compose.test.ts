/**
 * The composer's rules (core/pushdown/compose.ts) — each one a real bug in a mature engine — plus
 * the publication barrier and the extension's registrations. It sits with the policies because it
 * runs the composer over the built-in ones (core's tests may not import strategies).
 */
import { Int32, Int64, Utf8, type RecordBatch } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { hashKeys } from '../../core/keys/hash.ts';
import { normalizeKeys } from '../../core/keys/normalize.ts';
import { partitionIds } from '../../core/keys/partition.ts';
import type { KeyColumn } from '../../core/keys/types.ts';
import type { BuildPartition, KeyFilter, PushdownContext, PushdownPolicy } from '../../core/pushdown/policy.ts';
import { PUSHDOWN } from '../../core/registry/slots.ts';
import { Registry } from '../../core/registry/registry.ts';
import { loadExtension } from '../../core/registry/extensions.ts';
import { zoneMapOf } from '../../core/scan/zone-map.ts';
import { DynamicFilter, type ColumnStats, type ContainerStats } from '../../core/scan/scan.ts';
import { restoreRowTest } from '../../core/scan/shared-row-test.ts';
import { renamedFilter, StackedFilter } from '../../core/scan/stacked-filter.ts';
import { autoPushdown } from './auto.ts';
import { boundsPushdown } from './bounds.ts';
import { composeDynamicFilter, publishWhenComplete, type PartitionReport } from '../../core/pushdown/compose.ts';
import extension from './extension.ts';
import { inlistPushdown } from './inlist.ts';
import { nonePushdown } from './none.ts';
import { batchOf, buildPartitions, contextFor, gatherKeys, kindsFor, partitionFromKeys, testConfig, vec, type Val } from './test-support.ts';

const kinds = kindsFor([new Int64()], [new Int64()]);
const ctx: PushdownContext = contextFor([new Int64()], kinds, ['k'], testConfig());

function build(values: readonly Val[], partitions = 1, seed?: number): BuildPartition[] {
  return buildPartitions(batchOf({ b: vec(new Int64(), values) }), ['b'], kinds, partitions, seed === undefined ? {} : { seed });
}

function probe(values: readonly Val[]): RecordBatch {
  return batchOf({ k: vec(new Int64(), values) });
}

function kept(sel: Int32Array | null, n: number): number[] {
  if (sel === null) return Array.from({ length: n }, (_, i) => i);
  return [...sel];
}

/** The partition `partitionIds` routes a single int64 key to. */
function routeOf(v: bigint, count: number): number {
  const keys = normalizeKeys(probe([v]), ['k'], kinds);
  const out = new Int32Array(1);
  partitionIds(keys, count, out);
  return out[0]!;
}

/** Keys 0..n-1 that route to partition p of `count`. */
function keysRoutedTo(p: number, count: number, n: number): bigint[] {
  const out: bigint[] = [];
  for (let v = 0n; out.length < n; v++) if (routeOf(v, count) === p) out.push(v);
  return out;
}

const containerOf = (stats: Record<string, ColumnStats | undefined>, numRows = 10): ContainerStats => ({
  index: 0,
  numRows,
  bytes: 80,
  column: (name) => stats[name],
});

describe('composeDynamicFilter rules', () => {
  it('empty partition: its probe rows are dropped (false), containers routed only there pruned', () => {
    const [p] = build([]);
    expect(p!.rows).toBe(0);
    const pred = composeDynamicFilter({ policy: inlistPushdown, partitions: [p!], ctx, routed: false, keepNullKeys: false })!;
    expect(pred.description).toBe('false (empty)');
    expect(pred.selectRows(probe([1n, 2n]))).toEqual(new Int32Array(0));
    expect(pred.mayContain(zoneMapOf(probe([1n, 2n])))).toBe(false);
  });

  it('empty partition in partitioned mode: rows routed to it dropped, rows routed elsewhere tested there', () => {
    const count = 2;
    const in0 = keysRoutedTo(0, count, 5);
    const in1 = keysRoutedTo(1, count, 2);
    const parts = build(in0.slice(0, 3), count); // partition 1 gets nothing
    expect(parts[1]!.rows).toBe(0);
    const pred = composeDynamicFilter({ policy: inlistPushdown, partitions: parts, ctx, routed: true, keepNullKeys: false })!;
    expect(pred.description).toMatch(/^CASE partition\(k\) WHEN 0 THEN .* WHEN 1 THEN false \(empty\) END$/);
    const rows = [in0[0]!, in1[0]!, in0[4]!, in0[2]!, in1[1]!];
    expect(kept(pred.selectRows(probe(rows)), 5)).toEqual([0, 3]);
  });

  it('failed partition: its rows are kept and every container may contain', () => {
    const count = 2;
    const in0 = keysRoutedTo(0, count, 3);
    const in1 = keysRoutedTo(1, count, 3);
    const parts: PartitionReport[] = build([in0[0]!], count);
    parts[1] = 'failed';
    const pred = composeDynamicFilter({ policy: inlistPushdown, partitions: parts, ctx, routed: true, keepNullKeys: false })!;
    expect(pred.description).toContain('WHEN 1 THEN true (failed)');
    // in0[1] misses partition 0's list; every key routed to the failed partition survives
    expect(kept(pred.selectRows(probe([in0[0]!, in0[1]!, in1[0]!, in1[1]!, in1[2]!])), 5)).toEqual([0, 2, 3, 4]);
    expect(pred.mayContain(containerOf({ k: { min: 10n ** 15n, max: 10n ** 16n, nullCount: 0 } }))).toBe(true);
    // single failed build (collect-left): keep everything; with NULLs kept too there is nothing to publish
    const only = composeDynamicFilter({ policy: inlistPushdown, partitions: ['failed'], ctx, routed: false, keepNullKeys: false })!;
    expect(only.selectRows(probe([1n, 2n]))).toBeNull();
    expect(only.selectRows(probe([1n, null]))).toEqual(Int32Array.from([0]));
    expect(composeDynamicFilter({ policy: inlistPushdown, partitions: ['failed'], ctx, routed: false, keepNullKeys: true })).toBeNull();
  });

  it('routing: a probe row is tested ONLY against its own partition filter, with that partition seed', () => {
    const count = 3;
    const values = Array.from({ length: 60 }, (_, i) => BigInt(i * 7));
    const parts = build(values, count).map((p, i) => ({ ...p, seed: 1000 + i }));
    const seen: { partition: number; rows: number[]; hashesOk: boolean }[] = [];
    const spy: PushdownPolicy = {
      name: 'spy',
      description: 'records what each partition filter sees',
      planPartition(b: BuildPartition): KeyFilter {
        return {
          description: `spy${b.index}`,
          needsHashes: true,
          mayContain: () => true,
          test(keys: readonly KeyColumn[], hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array) {
            const expected = hashKeys(keys, b.seed);
            const list = rows === null ? Array.from({ length: keys[0]!.length }, (_, i) => i) : [...rows];
            seen.push({ partition: b.index, rows: list, hashesOk: list.every((r) => hashes![r] === expected[r]) });
            // keep only rows whose key is in this partition's build
            const bk = b.keys[0]!;
            for (const r of list) {
              let found = false;
              for (let j = 0; j < b.rows && !found; j++) {
                const pw = (keys[0] as { words: Int32Array }).words;
                const bw = (bk as { words: Int32Array }).words;
                found = pw[2 * r] === bw[2 * j] && pw[2 * r + 1] === bw[2 * j + 1];
              }
              if (!found) keep[r] = 0;
            }
          },
        };
      },
    };
    const pred = composeDynamicFilter({ policy: spy, partitions: parts, ctx, routed: true, keepNullKeys: false })!;
    const probeValues = [...values.slice(0, 30), 1n, 2n, 3n, null];
    const batch = probe(probeValues);
    const sel = kept(pred.selectRows(batch), probeValues.length);
    expect(sel).toEqual(Array.from({ length: 30 }, (_, i) => i));
    const keys = normalizeKeys(batch, ['k'], kinds);
    const pid = new Int32Array(probeValues.length);
    partitionIds(keys, count, pid);
    expect(seen.map((s) => s.partition).sort()).toEqual([0, 1, 2]);
    for (const s of seen) {
      expect(s.hashesOk).toBe(true);
      for (const r of s.rows) expect(pid[r]).toBe(s.partition);
      expect(s.rows).not.toContain(probeValues.length - 1); // the NULL row never reaches a filter
    }
  });

  it('container mayContain is the OR over partitions', () => {
    const count = 2;
    const in0 = keysRoutedTo(0, count, 1)[0]!;
    let in1 = 1_000_000n;
    while (routeOf(in1, count) !== 1) in1++;
    const parts = build([in0, in1], count);
    // whichever partition holds which key: a container around either key may contain
    const pred = composeDynamicFilter({ policy: boundsPushdown, partitions: parts, ctx, routed: true, keepNullKeys: false })!;
    const at = (lo: bigint, hi: bigint) => pred.mayContain(containerOf({ k: { min: lo, max: hi, nullCount: 0 } }));
    expect(at(in0, in0)).toBe(true);
    expect(at(in1, in1 + 1n)).toBe(true);
    expect(at(500_000n, 600_000n)).toBe(false);
    expect(at(-10n, -1n)).toBe(false);
  });

  it('NULL keys are dropped (and all-NULL containers pruned) unless keepNullKeys', () => {
    const parts = build([1n, 2n]);
    const drop = composeDynamicFilter({ policy: boundsPushdown, partitions: parts, ctx, routed: false, keepNullKeys: false })!;
    expect(kept(drop.selectRows(probe([1n, null, 2n, null])), 4)).toEqual([0, 2]);
    expect(drop.mayContain(zoneMapOf(probe([null, null])))).toBe(false);
    expect(drop.mayContain(containerOf({ k: { min: null, max: null, nullCount: 10 } }))).toBe(false);
    expect(drop.mayContain(containerOf({ k: { min: 5n, max: 9n, nullCount: 3 } }))).toBe(false);
  });

  it('keepNullKeys (null-equals-null / null-aware anti): NULL rows kept, containers that may hold NULLs kept', () => {
    const parts = build([1n, 2n]);
    const keepN = composeDynamicFilter({ policy: boundsPushdown, partitions: parts, ctx, routed: false, keepNullKeys: true })!;
    expect(keepN.description).toBe('(k BETWEEN 1 AND 2) OR k HAS NULL');
    expect(kept(keepN.selectRows(probe([1n, null, 5n, null])), 4)).toEqual([0, 1, 3]);
    expect(keepN.mayContain(zoneMapOf(probe([null, null])))).toBe(true);
    expect(keepN.mayContain(containerOf({ k: { min: 5n, max: 9n, nullCount: 3 } }))).toBe(true);
    expect(keepN.mayContain(containerOf({ k: { min: 5n, max: 9n, nullCount: null } }))).toBe(true); // unknown
    expect(keepN.mayContain(containerOf({ k: undefined }))).toBe(true);
    expect(keepN.mayContain(containerOf({ k: { min: 5n, max: 9n, nullCount: 0 } }))).toBe(false);
    // routed to an empty partition: a NULL row is still kept
    const count = 2;
    const in0 = keysRoutedTo(0, count, 1);
    const routedParts = build(in0, count);
    const r = composeDynamicFilter({ policy: boundsPushdown, partitions: routedParts, ctx, routed: true, keepNullKeys: true })!;
    expect(kept(r.selectRows(probe([null, in0[0]!, keysRoutedTo(1, count, 1)[0]!])), 3)).toEqual([0, 1]);
  });

  it('multi-column keys: a NULL in any column makes the row a NULL-key row', () => {
    const k2 = kindsFor([new Int32(), new Int32()], [new Int32(), new Int32()]);
    const b = batchOf({ x: vec(new Int32(), [1, 2]), y: vec(new Int32(), [3, null]) });
    const parts = buildPartitions(b, ['x', 'y'], k2, 1);
    const c2 = contextFor([new Int32(), new Int32()], k2, ['x', 'y']);
    const pred = composeDynamicFilter({ policy: inlistPushdown, partitions: parts, ctx: c2, routed: false, keepNullKeys: false })!;
    const p = batchOf({ x: vec(new Int32(), [1, 2, 1, null]), y: vec(new Int32(), [3, null, 4, 3]) });
    expect(kept(pred.selectRows(p), 4)).toEqual([0]);
  });

  it('selectRows returns null when every row is kept, ascending indices otherwise', () => {
    const pred = composeDynamicFilter({ policy: inlistPushdown, partitions: build([1n, 2n, 3n]), ctx, routed: false, keepNullKeys: false })!;
    expect(pred.selectRows(probe([3n, 1n, 2n]))).toBeNull();
    expect(pred.selectRows(probe([3n, 9n, 2n, 0n, 1n]))).toEqual(Int32Array.from([0, 2, 4]));
    expect(pred.selectRows(probe([]))).toBeNull();
    expect(pred.columns).toEqual(['k']);
  });

  it('unrouted with several partitions: a row passes if SOME partition may match it', () => {
    const a = partitionFromKeys(gatherKeys(normalizeKeys(probe([1n, 2n]), ['k'], kinds), [0, 1]), 0);
    const b = partitionFromKeys(gatherKeys(normalizeKeys(probe([10n]), ['k'], kinds), [0]), 1);
    const pred = composeDynamicFilter({ policy: inlistPushdown, partitions: [a, b], ctx, routed: false, keepNullKeys: false })!;
    expect(kept(pred.selectRows(probe([1n, 5n, 10n, 2n])), 4)).toEqual([0, 2, 3]);
  });

  it('none publishes nothing', () => {
    expect(composeDynamicFilter({ policy: nonePushdown, partitions: build([1n]), ctx, routed: false, keepNullKeys: false })).toBeNull();
  });

  it('a policy returning no filter for a partition keeps that partition', () => {
    const keepAll: PushdownPolicy = { name: 'keep', description: 'no filter', planPartition: () => null };
    const pred = composeDynamicFilter({ policy: keepAll, partitions: build([1n]), ctx, routed: false, keepNullKeys: false })!;
    expect(kept(pred.selectRows(probe([1n, 7n, null])), 3)).toEqual([0, 1]);
  });
});

describe('publishWhenComplete', () => {
  it('publishes nothing after N-1 reports, the composed filter after the N-th', () => {
    const count = 3;
    const parts = build(Array.from({ length: 30 }, (_, i) => BigInt(i)), count);
    const target = new DynamicFilter();
    const reporter = publishWhenComplete(target, { policy: autoPushdown, ctx, routed: true, keepNullKeys: false, count });
    reporter.report(2, parts[2]!);
    reporter.report(0, parts[0]!);
    expect(reporter.reported).toBe(2);
    expect(reporter.complete).toBe(false);
    expect(target.current()).toBeNull();
    expect(target.version).toBe(0);
    reporter.report(1, parts[1]!);
    expect(reporter.complete).toBe(true);
    expect(target.version).toBe(1);
    const pred = target.current()!;
    expect(pred.description).toMatch(/^CASE partition\(k\) WHEN 0 THEN/);
    const batch = probe([...Array.from({ length: 30 }, (_, i) => BigInt(i)), 100n]);
    expect(kept(pred.selectRows(batch), 31)).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it('a failed partition still counts as a report', () => {
    const target = new DynamicFilter();
    const reporter = publishWhenComplete(target, { policy: inlistPushdown, ctx, routed: true, keepNullKeys: false, count: 2 });
    reporter.report(0, 'failed');
    expect(target.current()).toBeNull();
    reporter.report(1, build([5n], 2)[1]!);
    expect(target.version).toBe(1);
  });

  it('rejects double and out-of-range reports', () => {
    const reporter = publishWhenComplete(new DynamicFilter(), { policy: inlistPushdown, ctx, routed: false, keepNullKeys: false, count: 2 });
    reporter.report(0, 'failed');
    expect(() => reporter.report(0, 'failed')).toThrow(/twice/);
    expect(() => reporter.report(2, 'failed')).toThrow(/2 partitions/);
    expect(() => publishWhenComplete(new DynamicFilter(), { policy: inlistPushdown, ctx, routed: false, keepNullKeys: false, count: 0 })).toThrow();
  });
});

describe('extension', () => {
  it('registers none, bounds, inlist, map, auto into PUSHDOWN', async () => {
    const registry = new Registry();
    await loadExtension(registry, extension);
    expect(registry.names(PUSHDOWN)).toEqual(['none', 'bounds', 'inlist', 'map', 'auto']);
    expect(registry.resolve(PUSHDOWN, 'auto')).toBe(autoPushdown);
  });
});

describe('string stats keep a leading U+FEFF', () => {
  // A decoder that strips a leading U+FEFF as a byte-order mark would report max 'b' for a
  // container holding 'q' and '\uFEFFb', and any pushdown trusting max would prune it although
  // 'q' matches. Zone maps and Parquet stats decode with ignoreBOM: true.
  it('a string container whose max starts with U+FEFF is not pruned', () => {
    const skinds = kindsFor([new Utf8()], [new Utf8()]);
    const parts = buildPartitions(batchOf({ b: vec(new Utf8(), ['q']) }), ['b'], skinds, 1);
    const c = contextFor([new Utf8()], skinds, ['k']);
    const pred = composeDynamicFilter({ policy: boundsPushdown, partitions: parts, ctx: c, routed: false, keepNullKeys: false })!;
    const batch = batchOf({ k: vec(new Utf8(), ['a', 'q', '\uFEFFb']) });
    expect(kept(pred.selectRows(batch), 3)).toEqual([1]); // the row test is right
    expect(pred.mayContain(zoneMapOf(batch))).toBe(true); // the container test trusts the stats
  });
});

describe('row tests across threads: conjunctions and renamed columns share their parts', () => {
  // what a scan under two joins (a star query's fact scan) hands its workers: a StackedFilter of
  // both joins' predicates, one of them about a join output's name for the scan's column
  const two = batchOf({ k: vec(new Int64(), [1n, 5n, 9n, 12n, null, 40n, 3n]), j: vec(new Int64(), [7n, 7n, 8n, 100n, 7n, 9n, 8n]) });
  const ctxJ: PushdownContext = contextFor([new Int64()], kinds, ['j_right'], testConfig({ 'pushdown.rowFilter': 'always' }));
  const onK = composeDynamicFilter({ policy: inlistPushdown, partitions: build([1n, 9n, 3n, 12n]), ctx: { ...ctx, config: testConfig({ 'pushdown.rowFilter': 'always' }) }, routed: false, keepNullKeys: false })!;
  const onJ = composeDynamicFilter({ policy: boundsPushdown, partitions: build([7n, 8n]), ctx: ctxJ, routed: false, keepNullKeys: false })!;
  const registry = new Registry();

  it('a stacked filter (k IN list AND renamed j bounds) restores to the same selection', () => {
    const fk = new DynamicFilter();
    const fj = new DynamicFilter();
    fk.publish(onK);
    fj.publish(onJ);
    const stacked = new StackedFilter([fk, renamedFilter(fj, new Map([['j_right', 'j']]))]);
    const p = stacked.current()!;
    expect(kept(p.selectRows(two), 7)).toEqual([0, 2, 6]); // k in {1, 9, 3, 12} and j in [7, 8]
    const shared = p.shareRowTest!()!;
    expect(shared.kind).toBe('and');
    const restored = restoreRowTest(structuredClone(shared), { registry });
    expect(kept(restored.selectRows(two), 7)).toEqual([0, 2, 6]);
  });

  it('a conjunction with a part that cannot cross threads shares the other part (keeps more rows, never fewer)', () => {
    const opaque = { ...onJ, shareRowTest: undefined, columns: ['j_right'] };
    const fk = new DynamicFilter();
    const fj = new DynamicFilter();
    fk.publish(onK);
    fj.publish(opaque);
    const p = new StackedFilter([fk, renamedFilter(fj, new Map([['j_right', 'j']]))]).current()!;
    const restored = restoreRowTest(structuredClone(p.shareRowTest!()!), { registry });
    expect(kept(restored.selectRows(two), 7)).toEqual([0, 2, 3, 6]); // the IN list alone
  });

  it('a predicate whose filter cannot be shared shares no row test', () => {
    const opaquePolicy: PushdownPolicy = {
      name: 'opaque',
      description: 'a filter without share()',
      planPartition: (b, c) => {
        const f = boundsPushdown.planPartition(b, c)!;
        return { description: f.description, needsHashes: false, mayContain: (s) => f.mayContain(s), test: (...a) => f.test(...a) };
      },
    };
    const p = composeDynamicFilter({ policy: opaquePolicy, partitions: build([7n, 8n]), ctx, routed: false, keepNullKeys: false })!;
    expect(p.selectRows(probe([7n, 100n]))).not.toBeNull();
    expect(p.shareRowTest!()).toBeNull();
  });
});
