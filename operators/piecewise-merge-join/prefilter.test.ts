/**
 * The piecewise merge join's prefilter against a brute-force match (issue 12, "Tests"): 14 key
 * type pairs x the 4 range operators x a normal / all-NULL / empty buffered side.
 *
 * The buffered side is built the way the operator builds it — `SortedBufferedSide.load` over a scan
 * of random slices, with the plan `planPiecewise` makes for `l.k OP r.k` (the left input buffered,
 * the predicate `b OP s`) — and every streamed batch goes through `BatchMatcher`. The brute force
 * is the definition: streamed row i is matchable iff its key is not NULL and some non-NULL buffered
 * key b has `b OP s`, decided twice, independently — once on the JS values the batches are built
 * from, under an explicit reference order per logical type (DuckDB's: -0.0 = 0.0, NaN above +Inf
 * and equal to NaN, ints widened, decimals at a common scale, timestamps at the finer unit,
 * strings as UTF-8 bytes, false < true), once with the sort comparator over the normalised keys
 * (the semantics of the nested-loop oracle's `rangeHolds`). The same references check
 * `extremeRow` (the non-NULL streamed row with the largest key for `<` / `<=`, the smallest for
 * `>` / `>=`, the first on ties), the per-row first-match predicate over every sorted buffered
 * position (a suffix, as the search assumes), the sorted order of the buffered side, and which of
 * match.ts's two paths ran (`numeric`: both sides exact doubles; the comparator otherwise) — both
 * paths are seen for the float, timestamp and 64-bit integer pairs, whose data decides. An
 * all-NULL or empty buffered side has no keys to compare (`keys === null`, `nonNull === 0`), so
 * the operator never builds a matcher (the constructor refuses one).
 *
 * End to end: float keys -0.0 / +0.0 (with and without NaN, so both paths) through `Engine` with
 * `join: 'piecewise'` against `join: 'nested-loop'` for inner / left / right / full x every
 * operator x prefilter on / off — DataFusion's
 * `join_right_less_than_signed_zero_prefilter_agrees_with_scan` — the right / full join over an
 * all-NULL or empty buffered side (which once lost or misread its unmatched streamed rows), and
 * every key type pair x operator x buffered shape, through the ten join types in turn.
 */
import * as arrow from 'apache-arrow';
import type { DataType, Vector } from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { Engine } from '../../composition.ts';
import { parseConfig } from '../../core/config/schema.ts';
import type { CoreEngine } from '../../core/engine.ts';
import { normalizeKeys } from '../../core/keys/normalize.ts';
import { ASC_NULLS_LAST, makeSortComparator } from '../../core/keys/order.ts';
import type { KeyKind } from '../../core/keys/types.ts';
import { MemoryPool } from '../../core/memory/pool.ts';
import { bindJoin } from '../../core/plan.ts';
import { Rng } from '../../core/random.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { JOIN_TYPES, RANGE_OPS, type JoinType, type RangeOp } from '../../core/types.ts';
import { slicedScan } from '../sort-merge-join/test-helpers.ts';
import { SortedBufferedSide } from './buffered-side.ts';
import { BatchMatcher, sortedKeys } from './match.ts';
import { planPiecewise, type PiecewisePlan } from './plan.ts';

// ------------------------------------------------------------------------------------------------
// Reference orders and key type pairs
// ------------------------------------------------------------------------------------------------

type Value = number | bigint | boolean | string | Uint8Array;
type Order = (a: Value, b: Value) => number;

const num: Order = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const float: Order = (a, b) => {
  const x = a as number;
  const y = b as number;
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1;
  if (Number.isNaN(y)) return -1;
  return x < y ? -1 : x > y ? 1 : 0; // -0 == 0
};
const bool: Order = (a, b) => Number(a) - Number(b);
/** UTF-8 byte order (not JS's UTF-16 order: they differ above U+FFFF and for U+E000..). */
const utf8: Order = (a, b) => Buffer.compare(Buffer.from(a as string, 'utf8'), Buffer.from(b as string, 'utf8'));
const bytes: Order = (a, b) => Buffer.compare(a as Uint8Array, b as Uint8Array);

const TWO_53 = 2n ** 53n;
/** The exact-double form `orderedNumbers` gives a 64-bit integer key: [-2^53, 2^53). */
const exactInt = (v: Value) => BigInt(v as number | bigint) >= -TWO_53 && BigInt(v as number | bigint) < TWO_53;
const finite = (v: Value) => Number.isFinite(v as number);
const always = () => true;

interface KeyCase {
  readonly name: string;
  /** The buffered (left) and streamed (right) Arrow types. */
  readonly left: DataType;
  readonly right: DataType;
  /** `tame`: no value that forces the comparator path (NaN, infinities, ints past 2^53). */
  readonly genL: (rng: Rng, tame: boolean) => Value;
  readonly genR: (rng: Rng, tame: boolean) => Value;
  /** The value in the common order (default: itself): widened, rescaled. */
  readonly asL?: (v: Value) => Value;
  readonly asR?: (v: Value) => Value;
  readonly order: Order;
  /** The common kind's order. */
  readonly kind: KeyKind['order'];
  /** Whether a common-order value is an exact double (the numeric path); absent: never. */
  readonly exact?: (v: Value) => boolean;
  readonly vecL?: (values: readonly (Value | null)[]) => Vector;
  readonly vecR?: (values: readonly (Value | null)[]) => Vector;
}

function validity(values: readonly unknown[]): { nullBitmap: Uint8Array | null; nullCount: number } {
  const bm = new Uint8Array((values.length + 7) >> 3);
  let nullCount = 0;
  values.forEach((v, i) => {
    if (v === null) nullCount++;
    else bm[i >> 3]! |= 1 << (i & 7);
  });
  return { nullBitmap: nullCount ? bm : null, nullCount };
}
function fixedVector(type: DataType, data: ArrayBufferView, values: readonly unknown[]): Vector {
  return arrow.makeVector(arrow.makeData({ type, length: values.length, data, ...validity(values) } as never));
}
const big64 = (type: DataType) => (values: readonly (Value | null)[]) => fixedVector(type, BigInt64Array.from(values, (v) => BigInt.asIntN(64, (v ?? 0n) as bigint)), values);
const int32s = (type: DataType) => (values: readonly (Value | null)[]) => fixedVector(type, Int32Array.from(values, (v) => (v ?? 0) as number), values);
const decimals = (type: DataType) => (values: readonly (Value | null)[]) => {
  const words = new Uint32Array(values.length * 4);
  values.forEach((v, i) => {
    let u = BigInt.asUintN(128, (v ?? 0n) as bigint);
    for (let k = 0; k < 4; k++) {
      words[i * 4 + k] = Number(u & 0xffffffffn);
      u >>= 32n;
    }
  });
  return fixedVector(type, words, values);
};
function built(type: DataType, values: readonly (Value | null)[]): Vector {
  const b = arrow.makeBuilder({ type, nullValues: [null, undefined] });
  for (const v of values) b.append(v as never);
  return b.finish().toVector();
}

const F64_WILD = [NaN, -0, 0, Infinity, -Infinity, 1, -1, 0.5, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, -Number.MIN_VALUE];
const F32_WILD = [NaN, -0, 0, Infinity, -Infinity, 1, -1, 0.5, Math.fround(3.4e38), Math.fround(-3.4e38), Math.fround(1e-45), Math.fround(-1e-45)];
const tameFloats = (pool: number[]) => pool.filter((v) => Number.isFinite(v));
const F64_TAME = tameFloats(F64_WILD);
const F32_TAME = tameFloats(F32_WILD);
const genFloat = (wild: number[], tame: number[]) => (r: Rng, t: boolean) => (r.chance(0.7) ? r.pick(t ? tame : wild) : r.int(-3, 3) / 2);
const genInt32 = (r: Rng) => (r.chance(0.15) ? r.pick([-(2 ** 31), 2 ** 31 - 1]) : r.int(-4, 4));
const I64_WILD = [-(2n ** 63n), -TWO_53 - 1n, -TWO_53, -1n, 0n, 1n, TWO_53 - 1n, TWO_53, TWO_53 + 1n, 2n ** 63n - 1n];
const I64_TAME = I64_WILD.filter(exactInt);
const U64_WILD = [0n, 1n, 2n, TWO_53 - 1n, TWO_53, 2n ** 63n - 1n, 2n ** 63n, 2n ** 63n + 1n, 2n ** 64n - 1n];
const U64_TAME = U64_WILD.filter(exactInt);
const genBig = (wild: bigint[], tame: bigint[], lo: number) => (r: Rng, t: boolean) => (r.chance(0.5) ? r.pick(t ? tame : wild) : BigInt(r.int(lo, 3)));
const STRINGS = ['', 'a', 'ab', 'abc', 'abd', 'b', 'ba', 'A', 'é', 'éa', 'e', '日本', 'a\u0000', 'a\u0000b', 'zz', '\u{1F600}', '\uE000'];
const genString = (r: Rng) => (r.chance(0.7) ? r.pick(STRINGS) : Array.from({ length: r.int(0, 3) }, () => r.pick(['a', 'b', 'é', '\u0000'])).join(''));
const genBytes = (r: Rng) => Uint8Array.from({ length: r.int(0, 3) }, () => r.pick([0, 1, 127, 128, 255]));
const D18 = 10n ** 18n - 1n;
const D12 = 10n ** 12n - 1n;

const CASES: readonly KeyCase[] = [
  { name: 'int32', left: new arrow.Int32(), right: new arrow.Int32(), genL: genInt32, genR: genInt32, order: num, kind: 'int', exact: always },
  {
    name: 'int64 vs int32 (widened)',
    left: new arrow.Int64(),
    right: new arrow.Int32(),
    genL: (r) => (r.chance(0.2) ? r.pick([-(2n ** 40n), -(2n ** 31n) - 1n, 2n ** 31n, 2n ** 40n]) : BigInt(r.int(-4, 4))),
    genR: genInt32,
    asR: (v) => BigInt(v as number),
    order: num,
    kind: 'int',
    exact: always,
    vecL: big64(new arrow.Int64()),
  },
  { name: 'float64 ±0 NaN ±inf', left: new arrow.Float64(), right: new arrow.Float64(), genL: genFloat(F64_WILD, F64_TAME), genR: genFloat(F64_WILD, F64_TAME), order: float, kind: 'float', exact: finite },
  { name: 'float32 ±0 NaN ±inf', left: new arrow.Float32(), right: new arrow.Float32(), genL: genFloat(F32_WILD, F32_TAME), genR: genFloat(F32_WILD, F32_TAME), order: float, kind: 'float', exact: finite },
  { name: 'utf8 vs large-utf8', left: new arrow.Utf8(), right: new arrow.LargeUtf8(), genL: genString, genR: genString, order: utf8, kind: 'bytes' },
  { name: 'binary', left: new arrow.Binary(), right: new arrow.Binary(), genL: genBytes, genR: genBytes, order: bytes, kind: 'bytes' },
  {
    name: 'dictionary<int32, utf8>',
    left: new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32()),
    right: new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32()),
    genL: genString,
    genR: genString,
    order: utf8,
    kind: 'bytes',
  },
  {
    name: 'decimal(18,2) vs decimal(12,4)',
    left: new arrow.Decimal(2, 18, 128),
    right: new arrow.Decimal(4, 12, 128),
    genL: (r) => (r.chance(0.15) ? r.pick([-D18, D18]) : BigInt(r.int(-6, 6)) * 50n),
    genR: (r) => (r.chance(0.15) ? r.pick([-D12, D12]) : BigInt(r.int(-6, 6)) * 5000n + r.pick([0n, 0n, 1n, -1n])),
    asL: (v) => (v as bigint) * 100n, // scale 2 -> 4
    order: num,
    kind: 'decimal',
    vecL: decimals(new arrow.Decimal(2, 18, 128)),
    vecR: decimals(new arrow.Decimal(4, 12, 128)),
  },
  {
    name: 'date32',
    left: new arrow.DateDay(),
    right: new arrow.DateDay(),
    genL: genInt32,
    genR: genInt32,
    order: num,
    kind: 'int',
    exact: always,
    vecL: int32s(new arrow.DateDay()),
    vecR: int32s(new arrow.DateDay()),
  },
  {
    name: 'timestamp(ms) vs timestamp(us)',
    left: new arrow.TimestampMillisecond(),
    right: new arrow.TimestampMicrosecond(),
    genL: (r, t) => (r.chance(0.15) ? r.pick(t ? [-(10n ** 12n), 10n ** 12n] : [-(10n ** 12n), 10n ** 13n]) : BigInt(r.int(-4, 4))),
    genR: (r, t) => (r.chance(0.15) ? r.pick(t ? [-(10n ** 15n), 10n ** 15n] : [-(10n ** 15n), 10n ** 16n]) : BigInt(r.int(-4, 4)) * 1000n + r.pick([0n, 0n, 1n, -1n])),
    asL: (v) => (v as bigint) * 1000n, // ms -> us
    order: num,
    kind: 'int',
    exact: exactInt,
    vecL: big64(new arrow.TimestampMillisecond()),
    vecR: big64(new arrow.TimestampMicrosecond()),
  },
  { name: 'boolean', left: new arrow.Bool(), right: new arrow.Bool(), genL: (r) => r.chance(0.5), genR: (r) => r.chance(0.5), order: bool, kind: 'bool', exact: always },
  {
    name: 'int64 past 2^53',
    left: new arrow.Int64(),
    right: new arrow.Int64(),
    genL: genBig(I64_WILD, I64_TAME, -3),
    genR: genBig(I64_WILD, I64_TAME, -3),
    order: num,
    kind: 'int',
    exact: exactInt,
    vecL: big64(new arrow.Int64()),
    vecR: big64(new arrow.Int64()),
  },
  {
    name: 'uint64 near 2^63',
    left: new arrow.Uint64(),
    right: new arrow.Uint64(),
    genL: genBig(U64_WILD, U64_TAME, 0),
    genR: genBig(U64_WILD, U64_TAME, 0),
    order: num,
    kind: 'uint',
    exact: exactInt,
    vecL: big64(new arrow.Uint64()),
    vecR: big64(new arrow.Uint64()),
  },
  {
    name: 'uint64 vs int64 (HUGEINT)',
    left: new arrow.Uint64(),
    right: new arrow.Int64(),
    genL: genBig(U64_WILD, U64_TAME, 0),
    genR: genBig(I64_WILD, I64_TAME, -3),
    order: num,
    kind: 'int', // 3 words: never exact doubles
    vecL: big64(new arrow.Uint64()),
    vecR: big64(new arrow.Int64()),
  },
];

// ------------------------------------------------------------------------------------------------
// Inputs
// ------------------------------------------------------------------------------------------------

/** A one-batch table `k` (the key) and `id` (the row number). */
function keyBatch(type: DataType, values: readonly (Value | null)[], vec?: (v: readonly (Value | null)[]) => Vector): arrow.RecordBatch {
  const k = vec ? vec(values) : built(type, values);
  const id = arrow.vectorFromArray(values.map((_, i) => i), new arrow.Int32());
  return new arrow.Table({ k, id }).batches[0]!;
}

/** `batch` cut at random points (1..maxLen rows), with empty slices between some. */
function cut(batch: arrow.RecordBatch, rng: Rng, maxLen: number): arrow.RecordBatch[] {
  const out: arrow.RecordBatch[] = [];
  for (let at = 0; at < batch.numRows; ) {
    if (rng.chance(0.1)) out.push(batch.slice(at, at));
    const n = Math.min(batch.numRows - at, rng.int(1, maxLen));
    out.push(batch.slice(at, at + n));
    at += n;
  }
  return out;
}

function holds(op: RangeOp, c: number): boolean {
  switch (op) {
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
  }
}

const show = (v: Value | null): string =>
  v === null ? 'NULL' : v instanceof Uint8Array ? `0x${Buffer.from(v).toString('hex')}` : typeof v === 'number' && Object.is(v, -0) ? '-0' : typeof v === 'string' ? JSON.stringify(v) : String(v);

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create({ join: 'piecewise' });
});

function planFor(c: KeyCase, op: RangeOp, left: arrow.Schema, right: arrow.Schema): PiecewisePlan {
  const join = bindJoin(toJoinSpec({ type: 'inner', range: `k ${op} k` }), left, right);
  return planPiecewise(join, parseConfig({ join: 'piecewise' }), engine.registry);
}

async function loadBuffered(batches: readonly arrow.RecordBatch[], schema: arrow.Schema, plan: PiecewisePlan): Promise<SortedBufferedSide> {
  return SortedBufferedSide.load(slicedScan(batches, schema, 'buffered'), schema, plan, new MemoryPool().reservation('piecewise merge join buffered side'));
}

// ------------------------------------------------------------------------------------------------
// Prefilter, extreme row and predicate vs brute force
// ------------------------------------------------------------------------------------------------

interface Paths {
  numeric: number;
  comparator: number;
}

/** Checks one buffered side and its streamed batches; returns problems (empty when all agree). */
async function checkNormal(c: KeyCase, op: RangeOp, rng: Rng, paths: Paths, scratch: Float64Array): Promise<string[]> {
  const tame = rng.chance(0.4);
  const nB = rng.chance(0.15) ? rng.int(64, 130) : rng.int(1, 20); // >= 64 rows: the radix sort
  const bVals = Array.from({ length: nB }, () => (rng.chance(0.2) ? null : c.genL(rng, tame)));
  if (bVals.every((v): boolean => v === null)) bVals[rng.int(0, nB - 1)] = c.genL(rng, tame);
  const nS = rng.int(0, 30);
  const sVals = Array.from({ length: nS }, () => (rng.chance(0.2) ? null : c.genR(rng, tame)));
  const asL = c.asL ?? ((v: Value) => v);
  const asR = c.asR ?? ((v: Value) => v);
  const label = `${c.name} b ${op} s, buffered [${bVals.map(show).join(', ')}]`;
  const problems: string[] = [];

  const bBatch = keyBatch(c.left, bVals, c.vecL);
  const sBatch = keyBatch(c.right, sVals, c.vecR);
  const plan = planFor(c, op, bBatch.schema, sBatch.schema);
  if (plan.buffered !== 'left' || plan.op !== op || plan.descending !== (op === '<' || op === '<=') || plan.kind.order !== c.kind) {
    return [`${label}: plan ${JSON.stringify({ buffered: plan.buffered, op: plan.op, descending: plan.descending, kind: plan.kind })}`];
  }
  const buffered = await loadBuffered(cut(bBatch, rng, 6), bBatch.schema, plan);
  // the prefilter runs against the unsorted side until a batch needs the sort (buffered-side.ts):
  // keep that target to check it against the same brute force
  if (buffered.sorted) return [`${label}: the buffered side was sorted on load`];
  const unsorted = buffered.nonNull > 0 ? buffered.target() : null;
  buffered.sort();

  // the sorted side: non-NULL keys in the plan's direction (stable), then the NULL keys in input order
  const nonNull = bVals.filter((v) => v !== null).length;
  const sortedLength = nonNull > 0 ? buffered.sortedTarget().keys.key.length : 0;
  if (buffered.rows !== nB || buffered.nonNull !== nonNull || sortedLength !== nonNull || buffered.sorted !== nonNull > 0) {
    return [`${label}: rows ${buffered.rows} nonNull ${buffered.nonNull} keys ${sortedLength} sorted ${buffered.sorted}`];
  }
  const order = Array.from(buffered.order);
  const dir = plan.descending ? -1 : 1;
  for (let p = 0; p < nB; p++) {
    const r = order[p]!;
    if ((bVals[r] === null) !== p >= nonNull) problems.push(`${label}: position ${p} holds row ${r} = ${show(bVals[r]!)}`);
    else if (p > 0 && p < nonNull) {
      const q = order[p - 1]!;
      const cmp = dir * c.order(asL(bVals[q]!), asL(bVals[r]!));
      if (cmp > 0 || (cmp === 0 && q > r)) problems.push(`${label}: positions ${p - 1}, ${p} out of order (rows ${q}, ${r})`);
    } else if (p > nonNull && order[p - 1]! > r) problems.push(`${label}: NULL rows out of input order at ${p}`);
  }
  const sortedL = order.slice(0, nonNull).map((r) => asL(bVals[r]!));
  const bKey = normalizeKeys(bBatch, ['k'], [plan.kind])[0]!; // every buffered row, unsorted

  for (const batch of cut(sBatch, rng, 8)) {
    const n = batch.numRows;
    const base = batch.numRows === 0 ? 0 : (batch.getChild('id')!.get(0) as number);
    const vals = sVals.slice(base, base + n);
    const where = `${label}; streamed [${vals.map(show).join(', ')}]`;
    const sKey = normalizeKeys(batch, ['k'], [plan.kind])[0]!;
    const matcher = new BatchMatcher(buffered.sortedTarget(), sKey, plan.op, rng.chance(0.5) ? { nums: () => scratch } : undefined);

    const exact = c.exact;
    const wantNumeric = exact !== undefined && sortedL.every(exact) && vals.every((v) => v === null || exact(asR(v)));
    if (matcher.numeric !== wantNumeric) problems.push(`${where}: numeric ${matcher.numeric}, want ${wantNumeric}`);
    paths[matcher.numeric ? 'numeric' : 'comparator']++;

    // matchable: against the values, and against the sort comparator over the normalised keys
    const byValue = vals.map((s): number => (s !== null && bVals.some((b) => b !== null && holds(op, c.order(asL(b), asR(s)))) ? 1 : 0));
    const cmp = makeSortComparator([bKey], [sKey], [ASC_NULLS_LAST]);
    const byComparator = vals.map((s, i) => {
      if (sKey.nulls?.[i] === 1) return 0;
      for (let j = 0; j < nB; j++) if (bKey.nulls?.[j] !== 1 && holds(op, cmp.compare(j, i))) return 1;
      return 0;
    });
    if (byValue.join() !== byComparator.join()) problems.push(`${where}: the two brute forces disagree: ${byValue.join('')} vs ${byComparator.join('')}`);
    const mask = new Uint8Array(n + 1).fill(7);
    const count = matcher.matchable(mask);
    const got = Array.from(mask.subarray(0, n));
    if (got.join() !== byValue.join()) problems.push(`${where}: matchable ${got.join('')}, want ${byValue.join('')}`);
    if (count !== byValue.reduce((a, b) => a + b, 0)) problems.push(`${where}: matchable counted ${count}`);
    if (mask[n] !== 7) problems.push(`${where}: matchable wrote past the batch`);
    const before = new Uint8Array(n);
    new BatchMatcher(unsorted!, sKey, plan.op).matchable(before);
    if (Array.from(before).join() !== byValue.join()) problems.push(`${where}: matchable before the sort ${Array.from(before).join('')}, want ${byValue.join('')}`);

    // extremeRow: the largest key for < <=, the smallest for > >=, the first on ties
    const wantMax = op === '<' || op === '<=';
    let best = -1;
    vals.forEach((s, i) => {
      if (s === null) return;
      const d = best < 0 ? 0 : c.order(asR(s), asR(vals[best]!));
      if (best < 0 || (wantMax ? d > 0 : d < 0)) best = i;
    });
    const extreme = matcher.extremeRow();
    if (extreme !== best) problems.push(`${where}: extremeRow ${extreme}, want ${best}`);

    // the first-match predicate at every sorted position: b OP s, a suffix of the positions
    const p = matcher.predicate;
    vals.forEach((s, i) => {
      if (s === null) return;
      p.row = i;
      const want = sortedL.map((b) => holds(op, c.order(b, asR(s))));
      const have = sortedL.map((_, j) => p.matches(j));
      if (have.join() !== want.join()) problems.push(`${where}: row ${i} predicate ${have.map(Number).join('')}, want ${want.map(Number).join('')}`);
      const first = want.indexOf(true);
      if (first >= 0 && want.slice(first).includes(false)) problems.push(`${where}: row ${i} matches are not a suffix of the sorted side`);
      if ((first >= 0) !== (byValue[i] === 1)) problems.push(`${where}: row ${i} matchable disagrees with its matches`);
    });
  }
  return problems;
}

describe('BatchMatcher.matchable (the prefilter) vs brute force', () => {
  const SEEDS = 14;

  for (const c of CASES) {
    it(`${c.name}: every operator, normal buffered sides`, async () => {
      const paths: Paths = { numeric: 0, comparator: 0 };
      const scratch = new Float64Array(64).fill(Number.NaN); // reused across batches, stale contents
      for (const op of RANGE_OPS) {
        for (let seed = 1; seed <= SEEDS; seed++) {
          const rng = new Rng(seed * 7919 + RANGE_OPS.indexOf(op) * 104729 + c.name.length);
          const problems = await checkNormal(c, op, rng, paths, scratch);
          expect(problems.slice(0, 5), `seed ${seed}`).toEqual([]);
        }
      }
      // both of match.ts's paths where the data decides, only one where the type does
      if (c.exact === undefined) expect(paths.numeric).toBe(0);
      else if (c.exact === always) expect(paths.comparator).toBe(0);
      else expect(Math.min(paths.numeric, paths.comparator), JSON.stringify(paths)).toBeGreaterThan(0);
    });
  }

  for (const c of CASES) {
    it(`${c.name}: every operator, all-NULL and empty buffered sides match nothing and build no matcher`, async () => {
      const rng = new Rng(c.name.length * 31 + 5);
      for (const op of RANGE_OPS) {
        const sVals = Array.from({ length: 12 }, () => (rng.chance(0.2) ? null : c.genR(rng, false)));
        const sBatch = keyBatch(c.right, sVals, c.vecR);
        const nulls = Array.from({ length: rng.int(1, 12) }, () => null);
        const allNull = keyBatch(c.left, nulls, c.vecL);
        const empty = keyBatch(c.left, [], c.vecL);
        const plan = planFor(c, op, allNull.schema, sBatch.schema);
        const sKey = normalizeKeys(sBatch, ['k'], [plan.kind])[0]!;
        const shapes: [string, arrow.RecordBatch, arrow.RecordBatch[]][] = [
          ['all-NULL', allNull, cut(allNull, rng, 4)],
          ['empty (no batches)', empty, []],
          ['empty (empty batches)', empty, [empty, empty.slice(0, 0)]],
        ];
        for (const [shape, whole, batches] of shapes) {
          const buffered = await loadBuffered(batches, whole.schema, plan);
          expect(buffered.extremeKey(), `${shape} ${op}`).toBeNull();
          expect(() => buffered.target()).toThrow(RangeError);
          expect(buffered.nonNull).toBe(0);
          expect(buffered.rows).toBe(whole.numRows);
          expect(Array.from(buffered.order).sort((a, b) => a - b)).toEqual(Array.from({ length: whole.numRows }, (_, i) => i));
          // the brute force: no non-NULL buffered key, so no streamed row matches
          const bKey = normalizeKeys(whole, ['k'], [plan.kind])[0]!;
          const cmp = makeSortComparator([bKey], [sKey], [ASC_NULLS_LAST]);
          let matches = 0;
          for (let i = 0; i < sBatch.numRows; i++) for (let j = 0; j < whole.numRows; j++) if (bKey.nulls?.[j] !== 1 && sKey.nulls?.[i] !== 1 && holds(op, cmp.compare(j, i))) matches++;
          expect(matches).toBe(0);
        }
        // the operator never builds a matcher without a non-NULL buffered key, and cannot
        expect(() => new BatchMatcher({ keys: sortedKeys(normalizeKeys(empty, ['k'], [plan.kind])[0]!), extreme: -1, first: 0 }, sKey, op)).toThrow(RangeError);
      }
    });
  }

  it('takes the numeric path for exact doubles and the comparator otherwise', async () => {
    const matcherFor = async (c: KeyCase, b: (Value | null)[], s: (Value | null)[], op: RangeOp = '<') => {
      const bBatch = keyBatch(c.left, b, c.vecL);
      const sBatch = keyBatch(c.right, s, c.vecR);
      const plan = planFor(c, op, bBatch.schema, sBatch.schema);
      const buffered = await loadBuffered([bBatch], bBatch.schema, plan);
      return new BatchMatcher(buffered.sortedTarget(), normalizeKeys(sBatch, ['k'], [plan.kind])[0]!, op);
    };
    const byName = (name: string) => CASES.find((c) => c.name.startsWith(name))!;
    expect((await matcherFor(byName('int32'), [3, null, -1], [0, null, 5])).numeric).toBe(true);
    expect((await matcherFor(byName('int64 vs'), [3n, 2n ** 40n], [0, 2 ** 31 - 1])).numeric).toBe(true);
    expect((await matcherFor(byName('date32'), [3, -(2 ** 31)], [0])).numeric).toBe(true);
    expect((await matcherFor(byName('boolean'), [true, false], [false, null])).numeric).toBe(true);
    expect((await matcherFor(byName('timestamp'), [3n, 10n ** 12n], [1n])).numeric).toBe(true);
    expect((await matcherFor(byName('float32'), [-0, 0.5], [0, -1])).numeric).toBe(true);
    expect((await matcherFor(byName('float64'), [-0, 1.5, null], [0, 2])).numeric).toBe(true);
    // a NaN or an infinity on either side: the comparator
    expect((await matcherFor(byName('float64'), [NaN, 1], [0, 2])).numeric).toBe(false);
    expect((await matcherFor(byName('float64'), [0, 1], [0, -Infinity])).numeric).toBe(false);
    expect((await matcherFor(byName('float64'), [Infinity, 1], [0])).numeric).toBe(false);
    // past 2^53, 3-word ints, decimals, bytes: the comparator
    expect((await matcherFor(byName('int64 past'), [TWO_53 - 1n, -TWO_53], [0n])).numeric).toBe(true);
    expect((await matcherFor(byName('int64 past'), [TWO_53, 0n], [0n])).numeric).toBe(false);
    expect((await matcherFor(byName('int64 past'), [0n], [-TWO_53 - 1n])).numeric).toBe(false);
    expect((await matcherFor(byName('uint64 near'), [2n ** 63n, 1n], [1n])).numeric).toBe(false);
    expect((await matcherFor(byName('uint64 vs'), [1n], [1n])).numeric).toBe(false);
    expect((await matcherFor(byName('timestamp'), [10n ** 13n], [1n])).numeric).toBe(false);
    expect((await matcherFor(byName('decimal'), [1n], [1n])).numeric).toBe(false);
    expect((await matcherFor(byName('utf8'), ['a'], ['b'])).numeric).toBe(false);
    expect((await matcherFor(byName('binary'), [Uint8Array.of(1)], [Uint8Array.of(2)])).numeric).toBe(false);
    expect((await matcherFor(byName('dictionary'), ['a'], ['b'])).numeric).toBe(false);
  });

  it('treats -0.0 as 0.0 and NaN as above every number in both paths', async () => {
    const f64 = CASES.find((c) => c.name.startsWith('float64'))!;
    const mask = new Uint8Array(8);
    const run = async (b: (number | null)[], s: (number | null)[], op: RangeOp) => {
      const bBatch = keyBatch(f64.left, b);
      const sBatch = keyBatch(f64.right, s);
      const plan = planFor(f64, op, bBatch.schema, sBatch.schema);
      const buffered = await loadBuffered([bBatch], bBatch.schema, plan);
      const m = new BatchMatcher(buffered.sortedTarget(), normalizeKeys(sBatch, ['k'], [plan.kind])[0]!, op);
      m.matchable(mask);
      return [m.numeric, Array.from(mask.subarray(0, s.length)).join('')];
    };
    // numeric: the buffered -0.0 is not below a streamed +0.0, and +0.0 not above -0.0
    expect(await run([-0, 5], [0, -0, 1, null], '<')).toEqual([true, '0010']);
    expect(await run([-0, 5], [0, -0, 1, null], '<=')).toEqual([true, '1110']);
    expect(await run([0, -5], [-0, 0, -1, null], '>')).toEqual([true, '0010']);
    expect(await run([0, -5], [-0, 0, -1, null], '>=')).toEqual([true, '1110']);
    // the comparator (a NaN in the buffered side): the same answers, and NaN above +Inf
    expect(await run([-0, NaN], [0, -0, 1, null], '<')).toEqual([false, '0010']);
    expect(await run([0, NaN, -5], [-0, Infinity, NaN, null], '>')).toEqual([false, '1100']);
    expect(await run([NaN], [Infinity, NaN], '<=')).toEqual([false, '01']);
    expect(await run([NaN], [Infinity, NaN], '>=')).toEqual([false, '11']);
    expect(await run([Infinity], [NaN, Infinity], '<')).toEqual([false, '10']);
  });
});

// ------------------------------------------------------------------------------------------------
// End to end: piecewise vs nested-loop through the Engine
// ------------------------------------------------------------------------------------------------

const engines = new Map<string, Promise<CoreEngine>>();
/** The engine with `overrides`, created once per distinct configuration. */
function engineWith(overrides: Record<string, unknown>): Promise<CoreEngine> {
  const key = JSON.stringify(overrides);
  let e = engines.get(key);
  if (e === undefined) engines.set(key, (e = engine.with(overrides)));
  return e;
}

async function expectSameJoin(
  spec: { type: JoinType; range: string },
  left: arrow.Table,
  right: arrow.Table,
  config: Record<string, unknown>,
  label: string,
  rng: Rng,
): Promise<arrow.Table> {
  const scanOf = (t: arrow.Table, name: string) => {
    const whole = t.batches.length === 1 ? t.batches[0]! : new arrow.Table(t.schema, t.batches).batches[0]!;
    return slicedScan(whole.numRows === 0 ? [] : cut(whole, rng, 3), t.schema, name);
  };
  const pw = await engineWith({ join: 'piecewise', ...config });
  const nl = await engineWith({ join: 'nested-loop', batchSize: config.batchSize ?? 8192 });
  const got = (await pw.join(toJoinSpec(spec), scanOf(left, 'left'), scanOf(right, 'right'))).table;
  const want = (await nl.join(toJoinSpec(spec), left, right)).table;
  const cmp = compareResults(got, want);
  expect(cmp.equal, `${label}\n${formatComparison(cmp)}`).toBe(true);
  return got;
}

describe('the prefilter end to end: piecewise agrees with the nested-loop join', () => {
  const floats = (values: (number | null)[]) => arrow.vectorFromArray(values, new arrow.Float64());
  const zeros = (left: (number | null)[], right: (number | null)[]) => [
    new arrow.Table({ k: floats(left), l: arrow.vectorFromArray(left.map((_, i) => i), new arrow.Int32()) }),
    new arrow.Table({ k: floats(right), r: arrow.vectorFromArray(right.map((_, i) => i), new arrow.Int32()) }),
  ] as const;

  it('right join l.k < r.k on signed zeros: the prefilter agrees with the scan (DataFusion)', async () => {
    const rng = new Rng(2);
    // every left key is -0.0 and every right key +0.0: nothing is below, every right row unmatched
    const [left, right] = zeros([-0, -0, -0], [0, 0]);
    for (const prefilter of [true, false]) {
      const got = await expectSameJoin({ type: 'right', range: 'l.k < r.k' }, left, right, { 'pwmj.prefilter': prefilter }, `prefilter ${prefilter}`, rng);
      expect(got.numRows).toBe(2);
      expect([...got.getChild('l')!]).toEqual([null, null]);
    }
  });

  it('right / full join over an all-NULL or empty buffered side emits every streamed row once, whatever the batch size', async () => {
    // the short-circuit (nothing compared) must still flush each streamed batch's partial output:
    // it once kept it across batches, so rows were lost (batch size above the rows) or read from
    // the next batch (batch size 3 over batches of 2 and 3 rows: right rows 2, 3, 2)
    const i32 = (v: (number | null)[]) => arrow.vectorFromArray(v, new arrow.Int32());
    const right = new arrow.Table({ k: i32([1, 2, null, 4, 5]), r: i32([0, 1, 2, 3, 4]) }).batches[0]!;
    const lefts = { 'all-NULL': new arrow.Table({ k: i32([null, null]), l: i32([0, 1]) }), empty: new arrow.Table({ k: i32([]), l: i32([]) }) };
    for (const [shape, left] of Object.entries(lefts)) {
      for (const type of ['right', 'full'] as const) {
        for (const batchSize of [1, 3, 8192]) {
          for (const prefilter of [true, false]) {
            const e = await engineWith({ join: 'piecewise', batchSize, 'pwmj.prefilter': prefilter });
            const scan = slicedScan([right.slice(0, 2), right.slice(2, 5)], right.schema, 'right');
            const t = (await e.join(toJoinSpec({ type, range: 'l.k < r.k' }), left, scan)).table;
            const pairs = [...t.getChild('l')!].map((l, i) => `${String(l)}:${String(t.getChild('r')!.get(i))}`).sort();
            const want = ['null:0', 'null:1', 'null:2', 'null:3', 'null:4', ...(type === 'full' ? [...left.getChild('l')!].map((l) => `${String(l)}:null`) : [])].sort();
            expect(pairs, `${type} join, ${shape} buffered side, batchSize ${batchSize}, prefilter ${prefilter}`).toEqual(want);
          }
        }
      }
    }
  });

  it('signed zeros (with and without NaN) for inner / left / right / full x every operator x prefilter x search x batch size', async () => {
    const rng = new Rng(3);
    const sets: [string, (number | null)[], (number | null)[]][] = [
      ['zeros', [-0, 0, -0, null, 1], [0, -0, null, -1, 0.5]],
      ['zeros and NaN', [-0, NaN, 0, null, -Infinity], [NaN, 0, -0, Infinity, null]],
      ['one -0 vs one +0', [-0], [0]],
      ['one +0 vs one -0', [0], [-0]],
    ];
    for (const [name, l, r] of sets) {
      const [left, right] = zeros(l, r);
      for (const type of ['inner', 'left', 'right', 'full'] as const) {
        for (const op of RANGE_OPS) {
          for (const prefilter of [true, false]) {
            const config = { 'pwmj.prefilter': prefilter, 'pwmj.search': rng.pick(['binary', 'linear']), batchSize: rng.pick([1, 2, 3, 8192]) };
            await expectSameJoin({ type, range: `l.k ${op} r.k` }, left, right, config, `${name}: ${type} l.k ${op} r.k ${JSON.stringify(config)}`, rng);
          }
        }
      }
    }
  });

  it('every key type pair x operator x normal / all-NULL / empty buffered side, through the join types in turn', async () => {
    const rng = new Rng(4);
    let joins = 0;
    for (const c of CASES) {
      for (const op of RANGE_OPS) {
        for (const shape of ['normal', 'all-NULL', 'empty'] as const) {
          const tame = rng.chance(0.4);
          const nL = shape === 'empty' ? 0 : rng.int(1, 10);
          const lVals = Array.from({ length: nL }, () => (shape === 'all-NULL' || rng.chance(0.2) ? null : c.genL(rng, tame)));
          const rVals = Array.from({ length: rng.int(0, 10) }, () => (rng.chance(0.2) ? null : c.genR(rng, tame)));
          const left = new arrow.Table([keyBatch(c.left, lVals, c.vecL)]);
          const right = new arrow.Table([keyBatch(c.right, rVals, c.vecR)]);
          // the one-side joins buffer the side they return: every type puts each side in both roles
          const type = JOIN_TYPES[joins++ % JOIN_TYPES.length]!;
          const config = { 'pwmj.prefilter': rng.chance(0.7), batchSize: rng.pick([1, 3, 8192]), 'pwmj.partitions': rng.int(1, 3) };
          const label = `${c.name} ${type} l.k ${op} r.k (${shape}) left [${lVals.map(show).join(', ')}] right [${rVals.map(show).join(', ')}] ${JSON.stringify(config)}`;
          await expectSameJoin({ type, range: `l.k ${op} r.k` }, left, right, config, label, rng);
        }
      }
    }
  });
});
