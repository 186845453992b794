/**
 * The IEJoin (`join=iejoin`): a join on two inequality conditions `l.a OP1 r.x AND l.b OP2 r.y`
 * (each of `< <= > >=`) and no equi-key — Khayyat et al., "Lightning Fast and Space Efficient
 * Inequality Joins" (PVLDB 8(13), 2015), in the union form DuckDB's `PhysicalIEJoin` / `IEJoinUnion`
 * implements (src/execution/operator/join/physical_iejoin.cpp, v1.5.5). Which conditions it takes
 * and which joins it refuses: conditions.ts.
 *
 * Both inputs are held (under the query's memory pool) as one batch each; rows with a NULL in
 * either condition column never match (DuckDB sorts them NULLS LAST and stops before them) and are
 * only output NULL-padded by an outer join. Over the other rows of BOTH inputs together:
 *  - L1: the rows sorted on the first condition's column (`a` for a left row, `x` for a right
 *    one), ascending for `<`/`<=`, descending for `>`/`>=`. Among equal values a left row goes
 *    BEFORE the right rows for a loose `<=`/`>=` and AFTER them for a strict `<`/`>` (DuckDB's
 *    `from_left` sort column), so the right rows satisfying condition 1 for a left row at position
 *    p are exactly the right rows at positions > p.
 *  - L2 (the permutation): the rows visited in the order of the second condition's column,
 *    descending for `<`/`<=`, ascending for `>`/`>=`; among equal values a left row goes before
 *    the right rows for a strict operator and after them for a loose one (what DuckDB's `off2`
 *    pointer decides by comparing). Visiting a right row sets its L1 position in the bit array B;
 *    so when a left row is visited, B holds exactly the right rows satisfying condition 2.
 *  - Each visited left row at L1 position p then scans B after p: every set bit is a match. A
 *    second bit array over chunks of 1024 positions (DuckDB's `bloom_filter`, BLOOM_CHUNK_BITS)
 *    lets the scan skip empty chunks 1024 positions at a time.
 * Both sorts are per input (`argsortKeys` over the normalised keys) merged across the inputs with
 * a key comparator, so every key kind (numbers, decimals, timestamps, strings) sorts as DuckDB
 * compares it: NaN above every number, -0.0 = 0.0, bytes in byte order.
 *
 * A residual (conditions beyond the second and the rest of the filter) is evaluated on blocks of
 * candidate pairs; left / full joins then output the left rows with no passing pair, right / full
 * the right rows. An empty left input with no right outer side never reads the right one.
 * Degenerate costs: the scan is O(n/32) words per left row in the worst case (the paper's bound),
 * the output pairs are O(|L|·|R|) for conditions almost every pair satisfies (as for any join).
 *
 * Differences from DuckDB: DuckDB sorts each input externally and runs the union per pair of
 * sorted blocks (on threads); joinlab holds both inputs in memory, concatenated into one batch per
 * side (a copy when a scan yields several batches), and runs one union on one thread.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { concatBatches, RowSource } from '../../core/arrow/gather.ts';
import { batchByteSize } from '../../core/arrow/size.ts';
import { Bitset } from '../../core/bitset.ts';
import { UnsupportedJoinError } from '../../core/errors.ts';
import { compileFilter, type CompiledFilter } from '../../core/expr/evaluate.ts';
import type { JoinAlgorithm, JoinContext, JoinInputs } from '../../core/join-algorithm.ts';
import { argsortKeys } from '../../core/keys/argsort.ts';
import { intsAsDoubles } from '../../core/keys/exact-doubles.ts';
import { makeKeyComparator } from '../../core/keys/compare.ts';
import { anyNullMask, normalizeKeys } from '../../core/keys/normalize.ts';
import { resolveKeyKind } from '../../core/keys/resolve.ts';
import { keyColumnBytes, type KeyColumn, type KeyKind } from '../../core/keys/types.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import { bump } from '../../core/metrics.ts';
import { nextTurn, TurnClock } from '../../core/next-turn.ts';
import type { BoundJoin } from '../../core/plan.ts';
import type { Scan } from '../../core/scan/scan.ts';
import { keepsUnmatched, type RangeOp, type RangePredicate } from '../../core/types.ts';
import { collectScan } from '../common/collect.ts';
import { OutputAssembler, OutputPlan } from '../common/output.ts';
import { ieJoinConditions, ieJoinUnsupportedReason, residualExpr } from './conditions.ts';

/** Positions per chunk of the chunk index (DuckDB's BLOOM_CHUNK_BITS). */
export const BLOOM_CHUNK_BITS = 1024;
const BLOOM_SHIFT = 10;
/** Candidate pairs evaluated against the residual at once. */
const FILTER_BLOCK = 4096;

export class IEJoin implements JoinAlgorithm {
  readonly name = 'iejoin';
  readonly description =
    "IEJoin (Khayyat et al., VLDB 2015; DuckDB's PhysicalIEJoin): two inequality conditions (--range and/or --filter conjuncts l.a < r.x, any of < <= > >=), no equi-key; inner/left/right/full; sorts both inputs on the first, a bit array over that order visited in the order of the second";

  unsupportedReason(join: BoundJoin): string | null {
    return ieJoinUnsupportedReason(join.spec, { left: join.leftSchema, right: join.rightSchema });
  }

  async *execute(join: BoundJoin, inputs: JoinInputs, ctx: JoinContext): AsyncIterable<RecordBatch> {
    const started = performance.now();
    const reason = this.unsupportedReason(join);
    if (reason !== null) throw new UnsupportedJoinError(`join algorithm 'iejoin' cannot run this join: ${reason}`);
    const conds = ieJoinConditions(join.spec, { left: join.leftSchema, right: join.rightSchema });
    const [c1, c2] = conds.conditions as [RangePredicate, RangePredicate];
    const rest = residualExpr(conds);
    const filter = rest === null ? null : compileFilter(rest, join.leftSchema, join.rightSchema);
    const m = ctx.metrics;
    m.details.conditions = `l.${c1.left} ${c1.op} r.${c1.right} (L1), l.${c2.left} ${c2.op} r.${c2.right} (L2)${rest === null ? '' : ', a residual filter'}`;
    const reservation = ctx.pool.reservation('iejoin');
    // the residual's scratch counts as it grows (core/expr/scratch.ts), freed with the join
    filter?.scratch.attach(ctx.pool.reservation('iejoin residual filter scratch'));
    try {
      const left = await loadSide(inputs.left, join.leftSchema, reservation, ctx.signal);
      const rightNeeded = left !== null || keepsUnmatched(join.spec.type, 'right');
      const right = rightNeeded ? await loadSide(inputs.right, join.rightSchema, reservation, ctx.signal) : null;
      bump(m, 'leftRows', left?.numRows ?? 0);
      bump(m, 'rightRows', right?.numRows ?? 0);
      yield* run(join, left, right, c1, c2, filter, ctx, reservation);
    } finally {
      m.peakReservedBytes = Math.max(m.peakReservedBytes, reservation.peak);
      reservation.free();
      filter?.scratch.detach();
      m.elapsedMs += performance.now() - started;
    }
  }
}

/** A side's rows as one batch (null when it has none); the concatenated copy replaces the parts in the reservation. */
async function loadSide(scan: Scan, schema: Schema, reservation: Reservation, signal?: AbortSignal): Promise<RecordBatch | null> {
  const batches = await collectScan(scan, reservation, { signal });
  if (batches.length === 0) return null;
  if (batches.length === 1) return batches[0]!;
  const one = concatBatches(batches, schema);
  reservation.grow(batchByteSize(one));
  reservation.shrink(batches.reduce((n, b) => n + batchByteSize(b), 0));
  return one;
}

/** One input's two condition keys and the rows where both are non-NULL (the rows that can match). */
interface SideKeys {
  readonly k1: KeyColumn;
  readonly k2: KeyColumn;
  readonly valid: Int32Array;
}

function sideKeys(batch: RecordBatch | null, name1: string, name2: string, kinds: readonly [KeyKind, KeyKind], reservation: Reservation): SideKeys | null {
  if (batch === null) return null;
  const [k1, k2] = normalizeKeys(batch, [name1, name2], kinds) as [KeyColumn, KeyColumn];
  reservation.grow(keyColumnBytes(k1) + keyColumnBytes(k2));
  const nulls = anyNullMask([k1, k2]);
  let valid: Int32Array;
  if (nulls === null) {
    valid = new Int32Array(batch.numRows);
    for (let i = 0; i < valid.length; i++) valid[i] = i;
  } else {
    let n = 0;
    for (let i = 0; i < nulls.length; i++) n += nulls[i] === 0 ? 1 : 0;
    valid = new Int32Array(n);
    n = 0;
    for (let i = 0; i < nulls.length; i++) if (nulls[i] === 0) valid[n++] = i;
  }
  reservation.grow(valid.byteLength);
  return { k1, k2, valid };
}

const descendingL1 = (op: RangeOp): boolean => op === '>' || op === '>=';
const descendingL2 = (op: RangeOp): boolean => op === '<' || op === '<=';
const strict = (op: RangeOp): boolean => op === '<' || op === '>';

/**
 * Merges the two inputs' sorted rows (`lo`, `ro`: row indices sorted in `descending` order or
 * not, `compare` orders a left row against a right row ascending) into `out`: a left row as
 * itself, a right row j as -(j + 1). `leftFirstOnTie`: among equal keys the left rows come first.
 */
function mergeOrders(lo: Int32Array, ro: Int32Array, compare: (i: number, j: number) => number, descending: boolean, leftFirstOnTie: boolean, out: Int32Array): void {
  let a = 0;
  let b = 0;
  let p = 0;
  const nl = lo.length;
  const nr = ro.length;
  while (a < nl && b < nr) {
    const i = lo[a]!;
    const j = ro[b]!;
    let c = compare(i, j);
    if (descending) c = -c;
    if (c < 0 || (c === 0 && leftFirstOnTie)) {
      out[p++] = i;
      a++;
    } else {
      out[p++] = -j - 1;
      b++;
    }
  }
  while (a < nl) out[p++] = lo[a++]!;
  while (b < nr) out[p++] = -ro[b++]! - 1;
}

/**
 * `mergeOrders` on one key column a side: over exact doubles when both are integer columns within
 * ±2^53 (core/keys/exact-doubles.ts: no comparator call per step), else with the comparator.
 */
function mergeKeys(lo: Int32Array, ro: Int32Array, lk: KeyColumn, rk: KeyColumn, descending: boolean, leftFirstOnTie: boolean, out: Int32Array, reservation: Reservation): void {
  const bytes = 8 * (lk.length + rk.length);
  reservation.grow(bytes);
  try {
    const ld = intsAsDoubles(lk);
    const rd = ld === null ? null : intsAsDoubles(rk);
    if (ld === null || rd === null) mergeOrders(lo, ro, makeKeyComparator([lk], [rk]).compare, descending, leftFirstOnTie, out);
    else mergeDoubles(lo, ro, ld, rd, descending, leftFirstOnTie, out);
  } finally {
    reservation.shrink(bytes);
  }
}

/** `mergeOrders` with the keys as exact doubles: `ld[i]` left row i's, `rd[j]` right row j's. */
function mergeDoubles(lo: Int32Array, ro: Int32Array, ld: Float64Array, rd: Float64Array, descending: boolean, leftFirstOnTie: boolean, out: Int32Array): void {
  let a = 0;
  let b = 0;
  let p = 0;
  const nl = lo.length;
  const nr = ro.length;
  while (a < nl && b < nr) {
    const i = lo[a]!;
    const j = ro[b]!;
    const x = ld[i]!;
    const y = rd[j]!;
    // the left row goes first when it is before the right one in the order, or ties and leftFirstOnTie
    const leftFirst = x === y ? leftFirstOnTie : descending ? x > y : x < y;
    if (leftFirst) {
      out[p++] = i;
      a++;
    } else {
      out[p++] = -j - 1;
      b++;
    }
  }
  while (a < nl) out[p++] = lo[a++]!;
  while (b < nr) out[p++] = -ro[b++]! - 1;
}

/** The first set bit at or after `from` and before `limit`, else `limit`. */
function nextSet(words: Int32Array, from: number, limit: number): number {
  if (from >= limit) return limit;
  let w = from >>> 5;
  let bits = words[w]! & (-1 << (from & 31));
  const last = (limit - 1) >>> 5;
  while (bits === 0) {
    if (++w > last) return limit;
    bits = words[w]!;
  }
  const r = (w << 5) + (31 - Math.clz32(bits & -bits));
  return r < limit ? r : limit;
}

async function* run(
  join: BoundJoin,
  leftBatch: RecordBatch | null,
  rightBatch: RecordBatch | null,
  c1: RangePredicate,
  c2: RangePredicate,
  filter: CompiledFilter | null,
  ctx: JoinContext,
  reservation: Reservation,
): AsyncGenerator<RecordBatch> {
  const type = join.spec.type;
  const left = new RowSource(leftBatch === null ? [] : [leftBatch], join.leftSchema);
  const right = new RowSource(rightBatch === null ? [] : [rightBatch], join.rightSchema);
  const out = OutputAssembler.pairs(OutputPlan.pairs(join.output, join.leftSchema, join.rightSchema, ctx.pool), ctx.config.batchSize, left, right);
  const leftOuter = keepsUnmatched(type, 'left');
  const rightOuter = keepsUnmatched(type, 'right');
  reservation.grow(Math.ceil(left.numRows / 8) + Math.ceil(right.numRows / 8));
  const leftMatched = new Bitset(left.numRows);
  const rightMatched = new Bitset(right.numRows);
  const m = ctx.metrics;

  if (leftBatch !== null && rightBatch !== null) {
    const kinds = (p: RangePredicate) => resolveKeyKind(join.leftSchema.fields.find((f) => f.name === p.left)!.type, join.rightSchema.fields.find((f) => f.name === p.right)!.type, p.left, p.right);
    const kk = [kinds(c1), kinds(c2)] as const;
    const lk = sideKeys(leftBatch, c1.left, c2.left, kk, reservation)!;
    const rk = sideKeys(rightBatch, c1.right, c2.right, kk, reservation)!;
    const n = lk.valid.length + rk.valid.length;
    bump(m, 'leftNullKeys', left.numRows - lk.valid.length);
    bump(m, 'rightNullKeys', right.numRows - rk.valid.length);
    if (lk.valid.length > 0 && rk.valid.length > 0) {
      // L1: the union sorted on condition 1; positions of left rows, and the right row at each position
      const d1 = descendingL1(c1.op);
      const o1 = { descending: d1, nullsFirst: false };
      const l1 = new Int32Array(n);
      reservation.grow(l1.byteLength * 2 + 4 * (left.numRows + right.numRows));
      {
        const lo = argsortKeys([lk.k1], [o1], lk.valid);
        const ro = argsortKeys([rk.k1], [o1], rk.valid);
        mergeKeys(lo, ro, lk.k1, rk.k1, d1, !strict(c1.op), l1, reservation);
      }
      const leftPos = new Int32Array(left.numRows);
      const rightPos = new Int32Array(right.numRows);
      for (let p = 0; p < n; p++) {
        const e = l1[p]!;
        if (e >= 0) leftPos[e] = p;
        else rightPos[-e - 1] = p;
      }
      // L2: the visiting order, on condition 2
      const d2 = descendingL2(c2.op);
      const o2 = { descending: d2, nullsFirst: false };
      const l2 = new Int32Array(n);
      {
        const lo = argsortKeys([lk.k2], [o2], lk.valid);
        const ro = argsortKeys([rk.k2], [o2], rk.valid);
        mergeKeys(lo, ro, lk.k2, rk.k2, d2, strict(c2.op), l2, reservation);
      }
      // B over L1 positions, and its chunk index
      const chunks = (n + BLOOM_CHUNK_BITS - 1) >>> BLOOM_SHIFT;
      const bits = new Int32Array((n + 31) >>> 5);
      const bloom = new Int32Array((chunks + 31) >>> 5);
      reservation.grow(bits.byteLength + bloom.byteLength);

      const blockL = new Int32Array(filter === null ? 0 : FILTER_BLOCK);
      const blockR = new Int32Array(filter === null ? 0 : FILTER_BLOCK);
      const pass = new Uint8Array(filter === null ? 0 : FILTER_BLOCK);
      let pending = 0;
      let candidates = 0;
      let pairs = 0;
      const watch = ctx.signal !== undefined;
      const clock = new TurnClock();
      // settles the block of candidate pairs against the residual
      const settle = function* (): Generator<RecordBatch> {
        filter!.evaluate(leftBatch, blockL, rightBatch, blockR, pending, pass);
        for (let k = 0; k < pending; k++) {
          if (pass[k] !== 1) continue;
          const i = blockL[k]!;
          const j = blockR[k]!;
          leftMatched.set(i);
          rightMatched.set(j);
          pairs++;
          if (out.addPair(i, j)) yield out.flush()!;
        }
        pending = 0;
      };

      for (let v = 0; v < n; v++) {
        const e = l2[v]!;
        if (e < 0) {
          const p = rightPos[-e - 1]!;
          bits[p >>> 5]! |= 1 << (p & 31);
          bloom[p >>> (BLOOM_SHIFT + 5)]! |= 1 << ((p >>> BLOOM_SHIFT) & 31);
          continue;
        }
        if (watch && clock.due()) {
          await nextTurn();
          if (ctx.signal!.aborted) throw ctx.signal!.reason;
        }
        const i = e;
        let q = leftPos[i]! + 1;
        while (q < n) {
          const chunk = q >>> BLOOM_SHIFT;
          const c = nextSet(bloom, chunk, chunks);
          if (c >= chunks) break;
          if (c > chunk) q = c << BLOOM_SHIFT;
          const end = Math.min(n, (c + 1) << BLOOM_SHIFT);
          q = nextSet(bits, q, end);
          if (q >= end) continue;
          const j = -l1[q]! - 1;
          q++;
          candidates++;
          if (filter !== null) {
            blockL[pending] = i;
            blockR[pending] = j;
            if (++pending === FILTER_BLOCK) yield* settle();
          } else {
            leftMatched.set(i);
            rightMatched.set(j);
            pairs++;
            if (out.addPair(i, j)) yield out.flush()!;
          }
        }
      }
      if (pending > 0) yield* settle();
      bump(m, 'candidates', candidates);
      bump(m, 'pairs', pairs);
    }
  }
  if (leftOuter) for (let i = 0; i < left.numRows; i++) if (!leftMatched.get(i) && out.addPair(i, -1)) yield out.flush()!;
  if (rightOuter) for (let j = 0; j < right.numRows; j++) if (!rightMatched.get(j) && out.addPair(-1, j)) yield out.flush()!;
  const last = out.flush();
  if (last) yield last;
}
