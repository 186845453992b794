/**
 * Differential tests of every layout (chained, array, rank, linear, swiss, auto) against a naive nested comparison of
 * the JS values: random keys of every shape, NULLs under both NULL rules, duplicates and skew,
 * probed with tiny capacities so every resumption point of the cursor is exercised.
 */
import { Bool, Dictionary, Float64, Int16, Int32, Int64, Uint64, Uint8, Utf8 } from 'apache-arrow';
import type { DataType } from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HashMapLayout, JoinHashTable } from '../../core/hashmap.ts';
import { ARRAY_MAX_SPAN, arrayLayout } from './array.ts';
import { AUTO_MIN_DENSITY, AUTO_RANK_BYTES_PER_ROW, AUTO_SMALL_SPAN, autoLayout, chooseLayout } from './auto.ts';
import { chainedLayout } from './chained.ts';
import { linearLayout } from './linear.ts';
import { RANK_MAX_SPAN, rankLayout } from './rank.ts';
import { swissLayout } from './swiss.ts';
import { oraclePairs, probeAll, rowEquals, sides } from './test-helpers.ts';
import type { Row, Val } from './test-helpers.ts';

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;

interface Case {
  readonly name: string;
  readonly build: readonly DataType[];
  readonly probe: readonly DataType[];
  /** One arbitrary per key column (non-NULL values). */
  readonly values: readonly fc.Arbitrary<Val>[];
  /** Whether the array layout can index this key type at all. */
  readonly arrayType: boolean;
  /** Whether the linear layout indexes this key (one fixed-width column of 1 or 2 words). */
  readonly linearType: boolean;
}

const smallInt = fc.integer({ min: -20, max: 20 });
const big = (xs: bigint[], lo: bigint, hi: bigint) => fc.oneof(fc.constantFrom(...xs), fc.bigInt({ min: lo, max: hi }));
const str = fc.oneof(fc.constantFrom('', 'a', 'b', 'ab', 'é', 'a\u0000', 'longer string value'), fc.string({ maxLength: 4 }));
const dictType = () => new Dictionary(new Utf8(), new Int32());

const CASES: readonly Case[] = [
  { name: 'int32', build: [new Int32()], probe: [new Int32()], values: [smallInt], arrayType: true, linearType: true },
  {
    name: 'int64 with negatives and extremes',
    build: [new Int64()],
    probe: [new Int64()],
    values: [big([I64_MIN, I64_MAX, I64_MIN + 1n, I64_MAX - 1n, -1n, 0n, 1n, 2n ** 53n, -(2n ** 53n) - 1n, 2n ** 32n], -5n, 5n)],
    arrayType: true,
    linearType: true,
  },
  {
    name: 'int64 clustered near the extremes and word boundaries',
    build: [new Int64()],
    probe: [new Int64()],
    values: [
      fc.oneof(
        fc.bigInt({ min: I64_MAX - 6n, max: I64_MAX }),
        fc.bigInt({ min: I64_MIN, max: I64_MIN + 6n }),
        fc.bigInt({ min: 2n ** 32n - 4n, max: 2n ** 32n + 4n }),
        fc.bigInt({ min: -4n, max: 4n }),
      ),
    ],
    arrayType: true,
    linearType: true,
  },
  {
    name: 'uint64 with extremes',
    build: [new Uint64()],
    probe: [new Uint64()],
    values: [big([0n, 1n, U64_MAX, U64_MAX - 1n, 2n ** 63n, 2n ** 63n - 1n, 2n ** 32n, 2n ** 32n - 1n], U64_MAX - 5n, U64_MAX)],
    arrayType: true,
    linearType: true,
  },
  { name: 'int16 build x int64 probe (widened)', build: [new Int16()], probe: [new Int64()], values: [smallInt], arrayType: true, linearType: true },
  { name: 'int32 + utf8', build: [new Int32(), new Utf8()], probe: [new Int32(), new Utf8()], values: [fc.integer({ min: -3, max: 3 }), str], arrayType: false, linearType: false },
  { name: 'utf8', build: [new Utf8()], probe: [new Utf8()], values: [str], arrayType: false, linearType: false },
  { name: 'dictionary utf8', build: [dictType()], probe: [dictType()], values: [str], arrayType: false, linearType: false },
  { name: 'dictionary utf8 build x utf8 probe', build: [dictType()], probe: [new Utf8()], values: [str], arrayType: false, linearType: false },
  {
    name: 'float64 with -0.0 / NaN',
    build: [new Float64()],
    probe: [new Float64()],
    values: [fc.oneof(fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1.5, -1.5, 2 ** 60, Number.MIN_VALUE), fc.integer({ min: -3, max: 3 }))],
    arrayType: false,
    linearType: true,
  },
  { name: 'bool', build: [new Bool()], probe: [new Bool()], values: [fc.boolean()], arrayType: true, linearType: true },
  {
    name: 'int64 build x uint64 probe (HUGEINT, 3 words)',
    build: [new Int64()],
    probe: [new Uint64()],
    values: [big([0n, 1n, 2n ** 63n - 1n, 2n ** 32n, 2n ** 32n - 1n], 0n, 5n)],
    arrayType: false,
    linearType: false,
  },
  { name: 'uint8 build x int32 probe (widened)', build: [new Uint8()], probe: [new Int32()], values: [fc.integer({ min: 0, max: 255 })], arrayType: true, linearType: true },
];

const LAYOUTS: readonly HashMapLayout[] = [chainedLayout, arrayLayout, rankLayout, linearLayout, swissLayout, autoLayout];

/** Rows with NULLs, duplicates and skew: most rows come from a small pool whose first row is hot. */
function scenario(values: readonly fc.Arbitrary<Val>[]) {
  const row: fc.Arbitrary<Row> = fc.tuple(...values.map((v) => fc.option(v, { freq: 5, nil: null })));
  return fc.array(row, { minLength: 1, maxLength: 6 }).chain((pool) => {
    const pick = fc.oneof({ arbitrary: fc.constant(pool[0]!), weight: 3 }, { arbitrary: fc.constantFrom(...pool), weight: 4 }, { arbitrary: row, weight: 2 });
    return fc.record({
      build: fc.array(pick, { maxLength: 40 }),
      probe: fc.array(pick, { maxLength: 40 }),
      nullEqualsNull: fc.boolean(),
      capacity: fc.constantFrom(1, 3, 8, 1024),
    });
  });
}

/**
 * Independent re-statement of when the array layout (maxSpan ARRAY_MAX_SPAN) or the rank layout
 * (RANK_MAX_SPAN) must refuse (BigInt is fine in a test).
 */
function expectedArrayRefusal(c: Case, build: readonly Row[], nullEqualsNull: boolean, maxSpan = ARRAY_MAX_SPAN): boolean {
  if (c.build.length !== 1 || !c.arrayType) return true;
  const vals = build.map((r) => r[0]!);
  if (nullEqualsNull && vals.some((v) => v === null)) return true;
  return span(vals) > BigInt(maxSpan);
}

function span(vals: readonly Val[]): bigint {
  const xs = vals.filter((v) => v !== null).map((v) => (typeof v === 'boolean' ? BigInt(v ? 1 : 0) : BigInt(v as never)));
  if (xs.length === 0) return 0n;
  let lo = xs[0]!;
  let hi = xs[0]!;
  for (const x of xs) {
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  return hi - lo + 1n;
}

/** Every typed array in a table's shared state (depth-first, in property order). */
function typedArraysIn(x: unknown): ArrayBufferView[] {
  if (ArrayBuffer.isView(x)) return [x];
  if (x === null || typeof x !== 'object') return [];
  return Object.values(x).flatMap(typedArraysIn);
}

function containsOracle(build: readonly Row[], probe: readonly Row[], nullEqualsNull: boolean): number[] {
  return probe.map((p) => (build.some((b) => rowEquals(p, b, nullEqualsNull)) ? 1 : 0));
}

function checkContains(table: JoinHashTable, input: ReturnType<typeof sides>['probe'], expected: number[]): void {
  const all = new Uint8Array(input.rows).fill(9);
  table.contains(input, all, null);
  expect(Array.from(all)).toEqual(expected);
  // a row list: only listed rows are written
  const listed = Int32Array.from(expected.map((_, i) => i).filter((i) => i % 3 !== 1));
  const some = new Uint8Array(input.rows).fill(9);
  table.contains(input, some, listed);
  expect(Array.from(some)).toEqual(expected.map((e, i) => (i % 3 !== 1 ? e : 9)));
}

describe('hash-map layouts: differential against a nested comparison', () => {
  for (const c of CASES) {
    it(c.name, () => {
      fc.assert(
        fc.property(scenario(c.values), ({ build, probe, nullEqualsNull, capacity }) => {
          const s = sides(c.build, c.probe, build, probe, nullEqualsNull);
          const expected = oraclePairs(build, probe, nullEqualsNull);
          const member = containsOracle(build, probe, nullEqualsNull);
          const inserted = nullEqualsNull ? build.length : build.filter((r) => r.every((v) => v !== null)).length;
          for (const layout of LAYOUTS) {
            const reason = layout.unsupportedReason(s.build);
            if (layout === arrayLayout) expect(reason !== null, `array refusal: ${reason}`).toBe(expectedArrayRefusal(c, build, nullEqualsNull));
            else if (layout === rankLayout) expect(reason !== null, `rank refusal: ${reason}`).toBe(expectedArrayRefusal(c, build, nullEqualsNull, RANK_MAX_SPAN));
            else if (layout === linearLayout) expect(reason !== null, `linear refusal: ${reason}`).toBe(!c.linearType);
            else expect(reason).toBeNull();
            if (reason !== null) continue;
            const table = layout.build(s.build);
            expect(table.inserted).toBe(inserted);
            expect(probeAll(table, s.probe, capacity)).toEqual(expected);
            checkContains(table, s.probe, member);
            // built for worker threads: every array already in shared memory (share() copies
            // nothing), and the table a worker restores from a structured clone answers the same
            const sharedTable = layout.build({ ...s.build, shared: true });
            const state = sharedTable.share!();
            const views = typedArraysIn(state.state);
            expect(views.length, layout.name).toBeGreaterThan(0);
            for (const v of views) expect(v.buffer instanceof SharedArrayBuffer, `${layout.name}: ${v.constructor.name}`).toBe(true);
            const again = typedArraysIn(sharedTable.share!().state);
            expect(again.every((v, i) => v.buffer === views[i]!.buffer), `${layout.name}: share() copied`).toBe(true);
            const restored = layout.restore!(structuredClone(state), { keys: s.build.keys, rows: s.build.rows, nullEqualsNull });
            expect(probeAll(restored, s.probe, capacity)).toEqual(expected);
            checkContains(restored, s.probe, member);
          }
          // auto's decision: DataFusion's rule for array, then rank while its directory is small, else swiss
          const arrayOk = !expectedArrayRefusal(c, build, nullEqualsNull);
          const rankOk = !expectedArrayRefusal(c, build, nullEqualsNull, RANK_MAX_SPAN);
          const sp = rankOk ? Number(span(build.map((r) => r[0]!))) : 0;
          const rows = build.filter((r) => r[0] !== null).length;
          const wantArray = arrayOk && (sp <= AUTO_SMALL_SPAN || rows / sp > AUTO_MIN_DENSITY);
          const wantRank = !wantArray && rankOk && 8 * Math.ceil(sp / 32) <= AUTO_RANK_BYTES_PER_ROW * rows;
          expect(chooseLayout(s.build)).toBe(wantArray ? 'array' : wantRank ? 'rank' : 'swiss');
          expect(autoLayout.build(s.build).layout).toBe(chooseLayout(s.build));
        }),
        { seed: 0x5eed + c.name.length, numRuns: 150 },
      );
    });
  }

  it('probes a probe batch split across several calls and batches', () => {
    // the same table probed by two batches with one cursor reset in between
    const build: Row[] = [[1], [2], [1], [null], [3], [1]];
    const p1: Row[] = [[1], [null], [4]];
    const p2: Row[] = [[3], [1], [2]];
    for (const layout of LAYOUTS) {
      for (const nen of [false, true]) {
        const a = sides([new Int32()], [new Int32()], build, p1, nen);
        if (layout.unsupportedReason(a.build) !== null) continue;
        const b = sides([new Int32()], [new Int32()], build, p2, nen);
        const table = layout.build(a.build);
        expect(probeAll(table, a.probe, 2)).toEqual(oraclePairs(build, p1, nen));
        expect(probeAll(table, b.probe, 2)).toEqual(oraclePairs(build, p2, nen));
      }
    }
  });
});
