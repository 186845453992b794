/**
 * Named tests for the hash join's correctness rules — each one was a real bug in a mature engine:
 * NOT IN with NULLs on either side, NULL-equals-NULL through the pushed filter, partitioned
 * publication and routing, and KeyRangeBitmap container pruning end to end.
 */
import { Int64, makeData, makeVector, Table, vectorFromArray, Int32 } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { rebatch } from '../../adapters/datagen/random-tables.ts';
import { int64Data, int64Values, tableOf } from '../../adapters/datagen/keys.ts';
import type { BuildInput, HashMapLayout } from '../../core/hashmap.ts';
import { normalizeKeys } from '../../core/keys/normalize.ts';
import { partitionIds } from '../../core/keys/partition.ts';
import { keyKindOf } from '../../core/keys/resolve.ts';
import type { FixedKeyColumn } from '../../core/keys/types.ts';
import { MemoryPool } from '../../core/memory/pool.ts';
import { HASHMAP } from '../../core/registry/slots.ts';
import { MemoryLimitError } from '../../core/errors.ts';
import { buildPartitions } from './build.ts';

/** A built-in layout, through the registry (operators reach strategies only by name). */
async function layout(name: string): Promise<HashMapLayout> {
  return (await Engine.create()).registry.resolve(HASHMAP, name);
}

/** The kind of an Int32 key (widened to BIGINT: two words per row). */
const BIGINT = keyKindOf(new Int32(), 'k');

/** Whether the build input holds the (2-word, low word) key `v`. */
function hasKey(input: BuildInput, v: number): boolean {
  const w = (input.keys[0] as FixedKeyColumn).words;
  for (let r = 0; r < input.rows; r++) if (w[2 * r] === v) return true;
  return false;
}

const ints = (xs: (number | null)[]) => vectorFromArray(xs, new Int32());
const table = (k: (number | null)[], batch = 2) => rebatch(new Table({ k: ints(k), tag: ints(k.map((_, i) => i)) }), batch);
const tags = (t: Table) => [...t.getChild('tag')!.toArray()].map(Number).sort((a, b) => a - b);

async function run(config: Record<string, unknown>, spec: Parameters<Engine['join']>[0], left: Table, right: Table) {
  return (await Engine.create({ join: 'hash', ...config })).join(spec, left, right);
}

const BUILDS = ['left', 'right'] as const;
const POLICIES = ['none', 'bounds', 'inlist', 'map', 'auto'] as const;

describe('NOT IN (null-aware anti join)', () => {
  for (const build of BUILDS) {
    for (const pushdown of POLICIES) {
      it(`a NULL on the inner side empties the result (build=${build}, pushdown=${pushdown})`, async () => {
        const { table: t } = await run({ 'hash.build': build, pushdown }, { type: 'left-anti', on: 'k=k', nullAware: true }, table([1, 2, 3]), table([2, null, 9]));
        expect(t.numRows).toBe(0);
      });
      it(`outer NULLs never qualify when the inner side is non-empty (build=${build}, pushdown=${pushdown})`, async () => {
        const { table: t } = await run({ 'hash.build': build, pushdown }, { type: 'left-anti', on: 'k=k', nullAware: true }, table([1, null, 3, 4]), table([3, 7]));
        expect(tags(t)).toEqual([0, 3]); // keys 1 and 4; the NULL row is not returned
      });
      it(`an empty inner side keeps every outer row, NULLs included (build=${build}, pushdown=${pushdown})`, async () => {
        const { table: t } = await run({ 'hash.build': build, pushdown }, { type: 'left-anti', on: 'k=k', nullAware: true }, table([1, null]), table([]));
        expect(tags(t)).toEqual([0, 1]);
      });
    }
  }
  it('a NULL inner row removed by nothing but pushdown still empties the result (probe = inner side)', async () => {
    // build = left (outer), probe = right (inner): the pushed filter must keep the probe NULL.
    for (const pushdown of POLICIES) {
      const { table: t, metrics } = await run({ 'hash.build': 'left', pushdown }, { type: 'left-anti', on: 'k=k', nullAware: true }, table([1, 2]), table([50, 60, null, 70], 1));
      expect(t.numRows, pushdown).toBe(0);
      expect(metrics.scans.right.rowsAfterFilter, pushdown).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('NULL = NULL through the pushed filter', () => {
  for (const pushdown of POLICIES) {
    it(`probe rows with NULL keys reach the join (pushdown=${pushdown})`, async () => {
      const { table: t } = await run({ 'hash.build': 'right', pushdown }, { type: 'inner', on: 'k=k', nullEqualsNull: true }, table([null, 1, 5, null], 1), table([null, 5]));
      expect(tags(t)).toEqual([0, 2, 3]);
    });
  }
});

describe('partitioned mode', () => {
  it('routes each probe row to its own partition filter and prunes nothing that matches', async () => {
    const probe = table(Array.from({ length: 400 }, (_, i) => i), 10);
    const build = table([3, 77, 150, 151, 399, 1000]);
    for (const partitions of [1, 2, 3, 8]) {
      for (const pushdown of POLICIES) {
        const { table: t, metrics } = await run({ 'hash.mode': 'partitioned', 'hash.partitions': partitions, pushdown, 'hash.build': 'right' }, { type: 'left-semi', on: 'k=k' }, probe, build);
        expect(tags(t), `${partitions} ${pushdown}`).toEqual([3, 77, 150, 151, 399]);
        if (pushdown !== 'none') expect(metrics.scans.left.rowsAfterFilter).toBeLessThan(400);
      }
    }
  });
  it('partitions build as concurrent tasks; a failed one reports "failed" (its rows kept), the rest report their tables, the error surfaces', async () => {
    const build = table(Array.from({ length: 64 }, (_, i) => i), 7);
    // the partition of key 13 cannot be indexed by this layout; the others can
    const bad = new Int32Array(1);
    partitionIds(normalizeKeys(table([13]).batches[0]!, ['k'], [BIGINT]), 4, bad);
    const swissLayout = await layout('swiss');
    const picky = {
      ...swissLayout,
      unsupportedReason: (input: BuildInput) => (hasKey(input, 13) ? 'refuses the partition holding 13' : null),
    };
    const built: number[] = [];
    const failed: number[] = [];
    const fourWays = (layout: HashMapLayout, more: Partial<Parameters<typeof buildPartitions>[1]>) =>
      buildPartitions(build.batches, {
        schema: build.schema,
        keyColumns: ['k'],
        kinds: [BIGINT],
        partitions: 4,
        layout,
        nullEqualsNull: false,
        reservation: new MemoryPool(Infinity).reservation('test'),
        ...more,
      });
    await expect(fourWays(picky, { onBuilt: (p) => built.push(p.index), onFailed: (i) => failed.push(i) })).rejects.toThrow(/refuses the partition holding 13/);
    expect(failed).toEqual([bad[0]]);
    expect(built.sort()).toEqual([0, 1, 2, 3].filter((p) => p !== bad[0]));
    // a cancelled build: every task reports failed
    const abort = new AbortController();
    abort.abort(new Error('stop'));
    const cancelled: number[] = [];
    await expect(fourWays(swissLayout, { onFailed: (i) => cancelled.push(i), signal: abort.signal })).rejects.toThrow('stop');
    expect(cancelled.sort()).toEqual([0, 1, 2, 3]);
  });

  it('an empty partition publishes false for its rows', async () => {
    const { metrics } = await run({ 'hash.mode': 'partitioned', 'hash.partitions': 8, pushdown: 'inlist', 'hash.build': 'right' }, { type: 'inner', on: 'k=k' }, table(Array.from({ length: 100 }, (_, i) => i), 100), table([42]));
    expect(metrics.scans.left.rowsAfterFilter).toBe(1);
  });
});

describe('memory limit', () => {
  it('a range-addressed table over the limit fails before it is allocated', async () => {
    // two keys 2^29 apart: a 128 MB rank directory (array refuses the span)
    const wide = table([0, 2 ** 29], 2);
    const neverBuilt = { ...(await layout('rank')), build: () => Promise.reject(new Error('allocated')) as never };
    const build = buildPartitions(wide.batches, {
      schema: wide.schema,
      keyColumns: ['k'],
      kinds: [BIGINT],
      partitions: 1,
      layout: neverBuilt,
      nullEqualsNull: false,
      reservation: new MemoryPool(64 << 20).reservation('hash-join build'),
    });
    await expect(build).rejects.toThrow(MemoryLimitError);
    await expect(run({ hashmap: 'rank', memoryLimit: '64MB', 'hash.build': 'right' }, { type: 'inner', on: 'k=k' }, table([1, 2]), wide)).rejects.toThrow(/memory limit exceeded: hash-join build/);
    // within the limit the same join runs, and the reservation ends at the table's real size
    const { table: out, metrics } = await run({ hashmap: 'rank', memoryLimit: '1GB', 'hash.build': 'right' }, { type: 'inner', on: 'k=k' }, table([0, 2 ** 29, 7]), wide);
    expect(tags(out)).toEqual([0, 1]);
    expect(metrics.operators.join!.details.hashmap).toBe('rank');
  });
});

describe('KeyRangeBitmap end to end', () => {
  it('keys k % 10000 < 200 over 0..2M: of 2000 probe containers 1000 keys wide, about 200 are read', async () => {
    const probeRows = 2_000_000;
    const probe = tableOf({ k: int64Data(int64Values(probeRows, (i) => i)) }, 1000);
    const buildKeys: number[] = [];
    for (let k = 0; k < probeRows; k++) if (k % 10000 < 200) buildKeys.push(k);
    const build = new Table({ k: makeVector(makeData({ type: new Int64(), length: buildKeys.length, nullCount: 0, data: int64Values(buildKeys.length, (i) => buildKeys[i]!) })) });
    const { table: t, metrics } = await run({ pushdown: 'map', 'hash.build': 'right' }, { type: 'inner', on: 'k=k' }, probe, build);
    expect(t.numRows).toBe(buildKeys.length); // nothing that matches was dropped
    const s = metrics.scans.left;
    expect(s.containersTotal).toBe(2000);
    expect(s.containersTotal - s.containersPruned).toBeLessThanOrEqual(220);
    expect(s.containersTotal - s.containersPruned).toBeGreaterThanOrEqual(200);
    expect(metrics.operators.join.details.dynamicFilter).toMatch(/BITMAP|bitmap/);
  });
  it('contiguous keys 0..5000 build no bitmap', async () => {
    const build = tableOf({ k: int64Data(int64Values(5001, (i) => i)) }, 5001);
    const probe = tableOf({ k: int64Data(int64Values(20000, (i) => i)) }, 1000);
    const { metrics } = await run({ pushdown: 'map', 'hash.build': 'right' }, { type: 'inner', on: 'k=k' }, probe, build);
    expect(metrics.operators.join.details.dynamicFilter).not.toMatch(/BITMAP|bitmap/);
    expect(metrics.scans.left.containersPruned).toBe(14); // bounds still prune [6000, 20000)
  });
});

describe('the build partitions report their Arrow bytes (BuildPartition.bytes)', () => {
  it("spark's creation-side threshold sees the build batch's bytes: a filter at them, none one byte under", async () => {
    const build = tableOf({ k: int64Data(int64Values(1000, (i) => i * 2)) }, 1000); // 8000 bytes of BIGINT
    const probe = tableOf({ k: int64Data(int64Values(4000, (i) => i)) }, 1000);
    const at = await run({ pushdown: 'spark', 'hash.build': 'right', 'pushdown.spark.creationSideThreshold': 8000 }, { type: 'inner', on: 'k=k' }, probe, build);
    expect(at.table.numRows).toBe(1000);
    expect(at.metrics.operators.join!.details.dynamicFilter).toMatch(/spark: Bloom filter, 8000 <= 8000 creation-side bytes;/);
    const under = await run({ pushdown: 'spark', 'hash.build': 'right', 'pushdown.spark.creationSideThreshold': 7999 }, { type: 'inner', on: 'k=k' }, probe, build);
    expect(under.table.numRows).toBe(1000);
    expect(under.metrics.operators.join!.details.dynamicFilter).not.toMatch(/Bloom/);
  });
});
