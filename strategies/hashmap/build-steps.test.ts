/**
 * Every layout's build in steps (core/hashmap.ts `buildSteps`, `buildTablePaced`): past several
 * `BUILD_STEP_ROWS` slices — duplicates whose chains cross slices, NULL rows, a second key column
 * for the hashed tables — the table built in steps with a turn between every two, and the one
 * `build` makes, find exactly the build rows a map of the keys says (ascending within a probe row);
 * a turn that throws (an aborted signal) ends the build there.
 */
import { describe, expect, it } from 'vitest';
import { BUILD_STEP_ROWS, buildTablePaced, type BuildInput, type HashMapLayout, type ProbeInput } from '../../core/hashmap.ts';
import { hashKeys } from '../../core/keys/hash.ts';
import { TABLE_SEED } from '../../core/keys/partition.ts';
import type { FixedKeyColumn, KeyColumn } from '../../core/keys/types.ts';
import { arrayLayout } from './array.ts';
import { autoLayout } from './auto.ts';
import { chainedLayout } from './chained.ts';
import { linearLayout } from './linear.ts';
import { rankLayout } from './rank.ts';
import { swissLayout } from './swiss.ts';
import { int64Keys, probeAll } from './test-helpers.ts';

const n = 3 * BUILD_STEP_ROWS + 77;
const distinct = 50_000; // every key on ~4 rows, spread over every slice

/** Row i's key words (low word only; 0 high word), NULL every 97th row. */
const keyOf = (i: number, salt: number) => ((i * 7919 + salt) % distinct) * 3;
const isNull = (i: number) => i % 97 === 5;

function column(rows: number, lo: (i: number) => number, nullAt: (i: number) => boolean): KeyColumn {
  const c = int64Keys(rows, lo) as FixedKeyColumn;
  const nulls = Uint8Array.from({ length: rows }, (_, i) => (nullAt(i) ? 1 : 0));
  return { ...c, nulls };
}

/** Pairs as one flat array (deep equality over ~200K tuples is slow). */
const flat = (pairs: readonly [number, number][]) => Int32Array.from(pairs.flat());
const firstDiff = (a: Int32Array, b: Int32Array) => (a.length !== b.length ? -2 : a.findIndex((x, i) => x !== b[i]));

function inputs(columns: 1 | 2): { build: BuildInput; probe: ProbeInput; want: Int32Array } {
  const buildKeys = [column(n, (i) => keyOf(i, 0), isNull)];
  if (columns === 2) buildKeys.push(column(n, (i) => (keyOf(i, 0) / 3) % 7, () => false));
  const build: BuildInput = { keys: buildKeys, hashes: hashKeys(buildKeys, TABLE_SEED), rows: n, nullEqualsNull: false };
  // probe values: every key once (so every build row is found), then misses (3k + 1 is never a key)
  const probeRows = distinct + 1000;
  const pv = (j: number) => (j < distinct ? 3 * j : 3 * j + 1);
  const probeKeys = [column(probeRows, pv, (j) => j % 50 === 7)];
  if (columns === 2) probeKeys.push(column(probeRows, (j) => (pv(j) / 3) % 7, () => false));
  const probe: ProbeInput = { keys: probeKeys, hashes: hashKeys(probeKeys, TABLE_SEED), rows: probeRows };
  // the expected pairs from a map of the build keys
  const rowsOf = new Map<string, number[]>();
  const key = (cols: readonly KeyColumn[], r: number) => cols.map((c) => (c as FixedKeyColumn).words[2 * r]).join(',');
  for (let r = 0; r < n; r++) {
    if (buildKeys.some((c) => c.nulls?.[r] === 1)) continue;
    const k = key(buildKeys, r);
    rowsOf.set(k, [...(rowsOf.get(k) ?? []), r]);
  }
  const want: [number, number][] = [];
  for (let j = 0; j < probeRows; j++) {
    if (probeKeys.some((c) => c.nulls?.[j] === 1)) continue;
    for (const r of rowsOf.get(key(probeKeys, j)) ?? []) want.push([j, r]);
  }
  return { build, probe, want: flat(want) };
}

const LAYOUTS: readonly [HashMapLayout, 1 | 2][] = [
  [arrayLayout, 1],
  [rankLayout, 1],
  [linearLayout, 1],
  [chainedLayout, 1],
  [chainedLayout, 2],
  [swissLayout, 1],
  [swissLayout, 2],
  [autoLayout, 1],
  [autoLayout, 2],
];

describe('hash tables built in steps', () => {
  for (const [layout, columns] of LAYOUTS) {
    it(`${layout.name}, ${columns} key column(s): the same matches built in one call or in steps`, async () => {
      const { build, probe, want } = inputs(columns);
      expect(want.length).toBeGreaterThan(2 * n * 0.9);
      const whole = layout.build(build);
      expect(firstDiff(flat(probeAll(whole, probe, 4096)), want), 'built in one call').toBe(-1);
      let turns = 0;
      const paced = await buildTablePaced(layout, build, { due: () => true, turn: async () => void turns++ });
      expect(turns, 'a turn between steps').toBeGreaterThan(3);
      expect(paced.inserted).toBe(whole.inserted);
      expect(firstDiff(flat(probeAll(paced, probe, 4096)), want), 'built in steps').toBe(-1);
    });
  }

  it('a turn that throws ends the build there', async () => {
    const { build } = inputs(1);
    let turns = 0;
    const pacer = {
      due: () => true,
      turn: async () => {
        if (++turns === 3) throw new Error('aborted');
      },
    };
    await expect(buildTablePaced(swissLayout, build, pacer)).rejects.toThrow('aborted');
    expect(turns).toBe(3);
  });
});
