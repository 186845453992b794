/**
 * The sort-merge join past its memory limit: with `memoryLimit` = 4096 bytes the buffered key
 * groups spill (one file per group, appended to as the group grows) and every answer equals the
 * unlimited run's; the spill directory is gone afterwards — after success, after an input that
 * fails mid-way, and after an abort. The inputs are declared sorted, so no sort runs and what
 * spills is the join's own state.
 */
import { readdirSync } from 'node:fs';
import * as os from 'node:os';
import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { Rng } from '../../core/random.ts';
import type { Scan, ScanSortColumn } from '../../core/scan/scan.ts';
import { toJoinSpec } from '../../core/spec.ts';
import type { JoinType } from '../../core/types.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { randomSlices, slicedScan } from './test-helpers.ts';

const SORTED: ScanSortColumn[] = [{ column: 'k', descending: false, nullsFirst: false }];

/** Sorted keys with one heavy key (7: `heavy` rows), payload x with NULLs and a string column. */
function side(rng: Rng, rows: number, heavy: number): arrow.Table {
  const keys = [...Array.from({ length: rows - heavy }, () => rng.int(0, 40)), ...Array.from({ length: heavy }, () => 7)].sort((a, b) => a - b);
  const x = keys.map(() => (rng.chance(0.1) ? null : rng.int(0, 1000)));
  return new arrow.Table({
    k: arrow.vectorFromArray(keys, new arrow.Int32()),
    x: arrow.vectorFromArray(x, new arrow.Int32()),
    s: arrow.vectorFromArray(keys.map((k, i) => `row-${k}-${i}-padding-padding`), new arrow.Utf8()),
  });
}

function spillDirs(): string[] {
  return readdirSync(os.tmpdir()).filter((f) => f.startsWith(`joinlab-spill-${process.pid}-`));
}

async function drain(engine: Engine, type: JoinType, left: Scan, right: Scan, signal?: AbortSignal): Promise<{ table: arrow.Table; counters: Record<string, number>; spillFiles: number }> {
  // two output columns: an output batch in flight is accounted at ~0.5 KB per column object
  const select = type.endsWith('mark') ? 'k,mark' : type.includes('-') ? 'k,x' : 'k,x_right';
  const s = await engine.stream(toJoinSpec({ type, on: 'k=k', filter: 'r.x < l.x', select }), left, right, { signal });
  const batches: arrow.RecordBatch[] = [];
  for await (const b of s.batches) batches.push(b); // not reserved: only the join's state counts
  const op = s.metrics.operators.join!;
  return { table: new arrow.Table(s.schema, batches), counters: op.counters, spillFiles: op.spillFiles };
}

describe('sort-merge join with memoryLimit = 4096 bytes', () => {
  const rng = new Rng(99);
  const L = side(rng, 900, 300);
  const R = side(rng, 700, 250);
  const scans = () => [slicedScan(randomSlices(L, rng), L.schema, 'left', SORTED), slicedScan(randomSlices(R, rng), R.schema, 'right', SORTED)] as const;

  const cases: [JoinType, string][] = [
    ['left', 'materializing'],
    ['right', 'materializing'],
    ['full', 'materializing'],
    ['left-semi', 'bitwise'],
    ['right-anti', 'bitwise'],
    ['left-mark', 'bitwise'],
    ['left-semi', 'materializing'],
  ];
  for (const [type, stream] of cases) {
    it(`${type} (${stream}) spills its key groups and answers as without a limit`, async () => {
      const unlimited = await Engine.create({ join: 'sort-merge', 'smj.existence': stream, batchSize: 8 });
      const limited = await Engine.create({ join: 'sort-merge', 'smj.existence': stream, batchSize: 8, memoryLimit: 4096 });
      const [l1, r1] = scans();
      const [l2, r2] = scans();
      const expected = await drain(unlimited, type, l1, r1);
      const actual = await drain(limited, type, l2, r2);
      const cmp = compareResults(actual.table, expected.table);
      expect(cmp.equal, formatComparison(cmp)).toBe(true);
      expect(expected.counters.groupsSpilled ?? 0).toBe(0);
      expect(actual.counters.groupsSpilled).toBeGreaterThan(0);
      // the heavy group went to disk in several appends to its one file
      expect(actual.counters.groupSpillAppends).toBeGreaterThan(actual.counters.groupsSpilled!);
      expect(actual.spillFiles).toBeGreaterThan(0);
      expect(spillDirs()).toEqual([]);
    });
  }

  it('inputs it sorts itself spill sorted runs under the limit, with the same answers', async () => {
    const shuffled = (t: arrow.Table) => {
      const order = Array.from({ length: t.numRows }, (_, i) => i).sort((a, b) => ((a * 7919) % 1009) - ((b * 7919) % 1009));
      return new arrow.Table({
        k: arrow.vectorFromArray(order.map((i) => t.getChild('k')!.get(i) as number), new arrow.Int32()),
        x: arrow.vectorFromArray(order.map((i) => t.getChild('x')!.get(i) as number | null), new arrow.Int32()),
        s: arrow.vectorFromArray(order.map((i) => t.getChild('s')!.get(i) as string), new arrow.Utf8()),
      });
    };
    const l = shuffled(L);
    const r = shuffled(R);
    for (const type of ['full', 'left-anti'] as JoinType[]) {
      const expected = await drain(await Engine.create({ join: 'nested-loop', batchSize: 8 }), type, slicedScan(l.batches, l.schema, 'l'), slicedScan(r.batches, r.schema, 'r'));
      const limited = await Engine.create({ join: 'sort-merge', batchSize: 8, memoryLimit: 32 * 1024 });
      const actual = await drain(limited, type, slicedScan(randomSlices(l, rng), l.schema, 'l'), slicedScan(randomSlices(r, rng), r.schema, 'r'));
      const cmp = compareResults(actual.table, expected.table);
      expect(cmp.equal, `${type}\n${formatComparison(cmp)}`).toBe(true);
      expect(actual.counters.leftSortRunsSpilled! + actual.counters.rightSortRunsSpilled!).toBeGreaterThan(2);
      expect(spillDirs()).toEqual([]);
    }
  });

  it('removes its spill files when an input fails mid-way and when the run is aborted', async () => {
    const limited = await Engine.create({ join: 'sort-merge', batchSize: 8, memoryLimit: 4096 });
    const [l, r] = scans();
    const failing: Scan = {
      ...r,
      sortedOn: SORTED,
      async *batches(options) {
        let n = 0;
        for await (const b of r.batches(options)) {
          if (++n === 4) throw new Error('disk on fire');
          yield b;
        }
      },
    };
    await expect(drain(limited, 'full', l, failing)).rejects.toThrow(/disk on fire/);
    expect(spillDirs()).toEqual([]);

    const [l2, r2] = scans();
    const ac = new AbortController();
    const s = await limited.stream(toJoinSpec({ type: 'full', on: 'k=k', filter: 'r.x < l.x', select: 'k,x_right' }), l2, r2, { signal: ac.signal });
    let seen = 0;
    await expect(
      (async () => {
        for await (const b of s.batches) {
          seen += b.numRows;
          if (s.metrics.operators.join!.spillFiles > 0 || seen > 2000) ac.abort();
        }
      })(),
    ).rejects.toThrow();
    expect(spillDirs()).toEqual([]);
  });

  it('an input declared sorted that is not fails with UnsortedInputError naming it', async () => {
    const engine = await Engine.create({ join: 'sort-merge' });
    const shuffled = new arrow.Table({ k: arrow.vectorFromArray([1, 2, 5, 3], new arrow.Int32()), x: arrow.vectorFromArray([1, 2, 3, 4], new arrow.Int32()), s: arrow.vectorFromArray(['a', 'b', 'c', 'd'], new arrow.Utf8()) });
    const [l] = scans();
    const bad = slicedScan(shuffled.batches, shuffled.schema, 'shuffled', SORTED);
    await expect(engine.join(toJoinSpec({ type: 'inner', on: 'k=k' }), l, bad)).rejects.toMatchObject({ name: 'UnsortedInputError', message: expect.stringMatching(/memory:shuffled is declared sorted but is not: row 3 sorts before row 2/) });
  });
});
