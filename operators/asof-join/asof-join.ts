/**
 * The ASOF join (`join=asof`): DuckDB's `ASOF [LEFT|RIGHT|FULL] JOIN … ON l.k = r.k AND l.t >= r.t`
 * (src/execution/operator/join/physical_asof_join.cpp, v1.5.5; docs/asof.md). The spec's equi-keys
 * (`on`, zero or more) partition both inputs, and its ONE range predicate `l.t OP r.t` picks, for
 * each left row, the single right row of its partition whose t is *closest* while satisfying OP:
 *   >= the largest r.t <= l.t;  > the largest r.t < l.t;  <= the smallest r.t >= l.t;  < the smallest r.t > l.t.
 * So a left row matches at most one right row. This is a different result from the plain range
 * join the same spec means under any other algorithm: `join=asof` is asked for explicitly and
 * `auto` never picks it.
 *
 * Ties: when several right rows of a partition share the closest t, DuckDB emits one of them (its
 * probe binary-searches the sorted partition and takes "the previous value", an arbitrary one of
 * the tied rows, since the sort is not stable); joinlab takes the tied row at the edge of a stable
 * sort (the last in input order for > / >=, the first for < / <=), one of DuckDB's possible answers.
 *
 * NULLs: a NULL (or NULL equi-key) never matches on either side (DuckDB sorts NULLS LAST and
 * ignores them, `null_sensitive`); such rows only appear NULL-padded in an outer join. `=` only:
 * `IS NOT DISTINCT FROM` keys (null-equals-null) are refused, as are a residual filter, semi /
 * anti / mark joins and NOT IN (unsupportedReason).
 *
 * Columnar plan: the right input is held (under the query's memory pool), its rows with no NULL
 * key sorted once by (keys, t) ascending (`argsortKeys`), their keys gathered into that order (so
 * a search reads one contiguous stretch, a group's t values side by side) and the starts of the
 * key groups found. Each left batch is then streamed: per row, its key group (a binary search over
 * the groups' first keys) and the closest t inside the group (a binary search) — comparators over
 * normalised key columns, no per-row objects. The common case, integer keys (ints, dates,
 * timestamps within ±2^53) and at most one equi-key, runs on exact doubles instead: a look-up
 * table from key to group when the keys are dense, the batch's rows visited group by group (a
 * counting sort) so each group's t values stay in cache, and a branch-free binary search. An
 * empty right input with no right outer side still streams the left (a left join NULL-pads every
 * row); an empty left input with no right outer side never reads the right one. Outer rows of the
 * right side come after all left batches.
 */
import type { RecordBatch } from 'apache-arrow';
import { concatBatches, RowSource } from '../../core/arrow/gather.ts';
import { batchByteSize } from '../../core/arrow/size.ts';
import { Bitset } from '../../core/bitset.ts';
import { UnsupportedJoinError } from '../../core/errors.ts';
import type { JoinAlgorithm, JoinContext, JoinInputs } from '../../core/join-algorithm.ts';
import { argsortKeys } from '../../core/keys/argsort.ts';
import { takeKeyRows } from '../../core/keys/take.ts';
import { makeKeyComparator } from '../../core/keys/compare.ts';
import { intsAsDoubles } from '../../core/keys/exact-doubles.ts';
import { anyNullMask, normalizeKeys } from '../../core/keys/normalize.ts';
import { resolveKeyKind } from '../../core/keys/resolve.ts';
import { keyColumnBytes, type KeyColumn, type KeyKind } from '../../core/keys/types.ts';
import { bump } from '../../core/metrics.ts';
import { Pacer } from '../../core/next-turn.ts';
import type { BoundJoin } from '../../core/plan.ts';
import { keepsUnmatched, outputSides, type JoinSpec, type RangeOp } from '../../core/types.ts';
import { collectScan } from '../common/collect.ts';
import { OutputAssembler, OutputPlan } from '../common/output.ts';

/** Left rows searched between two pacing checks. */
const PACE_ROWS = 4096;

/** Why an ASOF join cannot run `spec`, or null. */
export function asofUnsupportedReason(spec: JoinSpec): string | null {
  if (spec.range === undefined) return 'an ASOF join needs exactly one inequality (--range "t >= t": l.t OP r.t, OP one of < <= > >=) beside zero or more equi-keys (--on)';
  if (spec.filter !== undefined) return 'an ASOF join takes equi-keys and one range predicate only, no residual --filter';
  if (spec.nullAware) return 'a null-aware (NOT IN) anti join is not an ASOF join';
  if (outputSides(spec.type) !== 'both') return `an ASOF join is inner, left, right or full, not ${spec.type}`;
  if (spec.on.length > 0 && spec.nullEquality === 'null-equals-null') return 'ASOF equi-keys use = (NULL matches nothing); IS NOT DISTINCT FROM keys are not supported';
  return null;
}

export class AsofJoin implements JoinAlgorithm {
  readonly name = 'asof';
  readonly explicitOnly = true;
  readonly description =
    "ASOF join (DuckDB's ASOF JOIN): equi-keys (--on, zero or more) and one --range l.t OP r.t; each left row gets the ONE right row of its key group whose t is closest satisfying OP (for >=: the largest r.t <= l.t); inner/left/right/full; never chosen by auto — a different result from a range join";

  unsupportedReason(join: BoundJoin): string | null {
    return asofUnsupportedReason(join.spec);
  }

  async *execute(join: BoundJoin, inputs: JoinInputs, ctx: JoinContext): AsyncIterable<RecordBatch> {
    const started = performance.now();
    const reason = this.unsupportedReason(join);
    if (reason !== null) throw new UnsupportedJoinError(`join algorithm 'asof' cannot run this join: ${reason}`);
    const spec = join.spec;
    const range = spec.range!;
    const m = ctx.metrics;
    m.details.conditions = `${spec.on.map((k) => `l.${k.left} = r.${k.right}, `).join('')}closest l.${range.left} ${range.op} r.${range.right}`;
    const leftNames = [...spec.on.map((k) => k.left), range.left];
    const rightNames = [...spec.on.map((k) => k.right), range.right];
    const kinds: KeyKind[] = leftNames.map((l, k) =>
      resolveKeyKind(join.leftSchema.fields.find((f) => f.name === l)!.type, join.rightSchema.fields.find((f) => f.name === rightNames[k])!.type, l, rightNames[k]!),
    );
    const nk = spec.on.length;
    const reservation = ctx.pool.reservation('asof');
    const pacer = new Pacer(ctx.signal);
    const leftOuter = keepsUnmatched(spec.type, 'left');
    const rightOuter = keepsUnmatched(spec.type, 'right');
    const plan = OutputPlan.pairs(join.output, join.leftSchema, join.rightSchema, ctx.pool);
    try {
      // the right side, held whole; read lazily so an empty left with no right outer side never reads it
      let rightBatch: RecordBatch | null = null;
      let rightLoaded = false;
      const loadRight = async (): Promise<void> => {
        rightLoaded = true;
        const batches = await collectScan(inputs.right, reservation, { signal: ctx.signal });
        if (batches.length === 0) return;
        if (batches.length === 1) rightBatch = batches[0]!;
        else {
          rightBatch = concatBatches(batches, join.rightSchema);
          reservation.grow(batchByteSize(rightBatch));
          reservation.shrink(batches.reduce((n, b) => n + batchByteSize(b), 0));
        }
      };
      // the right rows' keys in sorted order (position p holds row sorted[p]): the searches read
      // them contiguously, not through `sorted` into rows scattered over the whole input
      let sCols: KeyColumn[] = [];
      let sorted: Int32Array = new Int32Array(0);
      // the start of each key group in `sorted`, then sorted.length: a left row's group is found by
      // a binary search over the groups' first rows (log2(groups) comparisons, not 2 x log2(rows))
      let groups: Int32Array = new Int32Array(1);
      // the fast path's view of them (integer keys within ±2^53, as exact doubles): t at every
      // sorted position, and the equi-key of each group's first row (empty with no equi-key);
      // null when the keys are of another kind (or more than one equi-key)
      let sT: Float64Array | null = null;
      let heads: Float64Array | null = null;
      // the keyed fast path's counting sort of a left batch by group: per-group counts
      let counts = new Int32Array(0);
      // a left batch's t and key as doubles, the sorted position each row matched (or its group
      // first), and the rows by group: sized by the largest batch, reserved while the join runs
      let scratch = { t: new Float64Array(0), k: new Float64Array(0), match: new Int32Array(0), order: new Int32Array(0) };
      // and, when the equi-keys span a range of integers not much wider than their count, the
      // group of each key in it (-1: no group): a look-up instead of a search
      let slots: Int32Array | null = null;
      let rightSource = new RowSource([], join.rightSchema);
      let rightMatched = new Bitset(0);
      const prepareRight = async (): Promise<void> => {
        await loadRight();
        const rb = rightBatch as RecordBatch | null;
        if (rb === null) return;
        rightSource = new RowSource([rb], join.rightSchema);
        rightMatched = new Bitset(rb.numRows);
        const rCols = normalizeKeys(rb, rightNames, kinds);
        const rBytes = rCols.reduce((n, c) => n + keyColumnBytes(c), 0);
        reservation.grow(rBytes + Math.ceil(rb.numRows / 8));
        const valid = validRows(rCols, rb.numRows);
        reservation.grow(valid.byteLength * 2);
        sorted = argsortKeys(rCols, rCols.map(() => ({ descending: false, nullsFirst: false })), valid);
        sCols = takeKeyRows(rCols, sorted);
        reservation.grow(sCols.reduce((n, c) => n + keyColumnBytes(c), 0));
        reservation.shrink(rBytes);
        groups = nk === 0 ? Int32Array.of(0, sorted.length) : keyGroups(sorted.length, makeKeyComparator(sCols.slice(0, nk), sCols.slice(0, nk)).equal);
        reservation.grow(groups.byteLength);
        sT = nk <= 1 ? intsAsDoubles(sCols[nk]!) : null;
        const sK = nk === 1 && sT !== null ? intsAsDoubles(sCols[0]!) : null;
        heads = nk === 0 ? new Float64Array(0) : sK === null ? null : groupHeads(sK, groups);
        if (heads === null) sT = null;
        if (heads !== null && nk === 1) {
          counts = new Int32Array(heads.length + 1);
          slots = groupSlots(heads);
        }
        reservation.grow((sT?.byteLength ?? 0) + (heads?.byteLength ?? 0) + counts.byteLength + (slots?.byteLength ?? 0));
        bump(m, 'rightRows', rb.numRows);
        bump(m, 'rightNullKeys', rb.numRows - valid.length);
      };

      const op = range.op;
      let matches = 0;
      for await (const lb of inputs.left.batches({ signal: ctx.signal })) {
        if (pacer.due()) await pacer.turn();
        if (lb.numRows === 0) continue;
        if (!rightLoaded) await prepareRight();
        bump(m, 'leftRows', lb.numRows);
        const leftSource = new RowSource([lb], join.leftSchema);
        const out = OutputAssembler.pairs(plan, ctx.config.batchSize, leftSource, rightSource);
        if (sorted.length === 0) {
          if (leftOuter) for (let i = 0; i < lb.numRows; i++) if (out.addPair(i, -1)) yield out.flush()!;
        } else {
          const lCols = normalizeKeys(lb, leftNames, kinds);
          const nulls = anyNullMask(lCols);
          // the fast path when both sides' keys are integers within ±2^53 (a NULL row's words may
          // be anything: out of range, this batch takes the comparators)
          if (scratch.t.length < lb.numRows) {
            // the largest batch so far sizes the buffers every batch reuses (fresh ones per batch
            // are garbage by the hundred megabytes over 10M rows)
            reservation.grow(16 * (lb.numRows - scratch.t.length) + 8 * (lb.numRows - scratch.match.length));
            scratch = { t: new Float64Array(lb.numRows), k: new Float64Array(lb.numRows), match: new Int32Array(lb.numRows), order: new Int32Array(lb.numRows) };
          }
          const lT = sT === null ? null : intsAsDoubles(lCols[nk]!, scratch.t);
          const lK = lT === null || nk === 0 ? null : intsAsDoubles(lCols[0]!, scratch.k);
          const fast = lT !== null && (nk === 0 || lK !== null);
          // left row i vs sorted position p
          const keyCmp = fast || nk === 0 ? null : makeKeyComparator(lCols.slice(0, nk), sCols.slice(0, nk)).compare;
          const tCmp = fast ? null : makeKeyComparator([lCols[nk]!], [sCols[nk]!]).compare;
          const match = scratch.match.subarray(0, lb.numRows);
          const order = scratch.order;
          const bytes = lCols.reduce((n, c) => n + keyColumnBytes(c), 0);
          reservation.grow(bytes);
          if (fast && lK !== null) {
            // by group: each row's group first (the heads are few and stay in cache), then the rows
            // of one group after another, so a group's t values are read from cache row after row
            // instead of from memory for every row (rows in input order jump between groups)
            for (let from = 0; from < lb.numRows; from += PACE_ROWS) {
              if (from > 0 && pacer.due()) await pacer.turn();
              findGroups(heads!, slots, lK, nulls, from, Math.min(lb.numRows, from + PACE_ROWS), match);
            }
            const grouped = orderByGroup(match, lb.numRows, counts, order);
            for (let from = 0; from < grouped; from += PACE_ROWS) {
              if (pacer.due()) await pacer.turn();
              searchGroups(order, from, Math.min(grouped, from + PACE_ROWS), groups, sT!, lT, op, match);
            }
          } else {
            for (let from = 0; from < lb.numRows; from += PACE_ROWS) {
              if (from > 0 && pacer.due()) await pacer.turn();
              const to = Math.min(lb.numRows, from + PACE_ROWS);
              if (fast) searchNumeric(heads!, groups, sT!, lK, lT, nulls, from, to, op, match);
              else searchRows(groups, keyCmp, tCmp!, nulls, from, to, op, match);
            }
          }
          for (let i = 0; i < lb.numRows; i++) {
            const p = match[i]!;
            if (p >= 0) {
              const j = sorted[p]!;
              matches++;
              if (rightOuter) rightMatched.set(j);
              if (out.addPair(i, j)) yield out.flush()!;
            } else if (leftOuter && out.addPair(i, -1)) yield out.flush()!;
          }
          reservation.shrink(bytes);
        }
        const last = out.flush();
        if (last) yield last;
      }
      if (rightOuter) {
        if (!rightLoaded) await prepareRight();
        const out = OutputAssembler.pairs(plan, ctx.config.batchSize, new RowSource([], join.leftSchema), rightSource);
        for (let j = 0; j < rightSource.numRows; j++) if (!rightMatched.get(j) && out.addPair(-1, j)) yield out.flush()!;
        const last = out.flush();
        if (last) yield last;
      }
      bump(m, 'pairs', matches);
    } finally {
      m.peakReservedBytes = Math.max(m.peakReservedBytes, reservation.peak);
      reservation.free();
      m.elapsedMs += performance.now() - started;
    }
  }
}

/** Row indices with no NULL in any of `cols`. */
function validRows(cols: readonly KeyColumn[], numRows: number): Int32Array {
  const nulls = anyNullMask(cols);
  if (nulls === null) {
    const all = new Int32Array(numRows);
    for (let i = 0; i < numRows; i++) all[i] = i;
    return all;
  }
  let n = 0;
  for (let i = 0; i < numRows; i++) n += nulls[i] === 0 ? 1 : 0;
  const out = new Int32Array(n);
  n = 0;
  for (let i = 0; i < numRows; i++) if (nulls[i] === 0) out[n++] = i;
  return out;
}

/**
 * Sorted positions of the closest right row for left rows [from, to) (-1: none, or a NULL key),
 * through the comparators (any key kinds).
 */
function searchRows(
  groups: Int32Array,
  keyCmp: ((i: number, p: number) => number) | null,
  tCmp: (i: number, p: number) => number,
  nulls: Uint8Array | null,
  from: number,
  to: number,
  op: RangeOp,
  match: Int32Array,
): void {
  const ng = groups.length - 1;
  for (let i = from; i < to; i++) {
    if (nulls !== null && nulls[i] !== 0) {
      match[i] = -1;
      continue;
    }
    // the key group [groups[g], groups[g + 1]) of the sorted right rows, if any
    const g = keyCmp === null ? 0 : findGroup(groups, ng, i, keyCmp);
    match[i] = g >= 0 ? closest(groups[g]!, groups[g + 1]!, i, tCmp, op) : -1;
  }
}

/**
 * `searchRows` over integer keys as exact doubles (`intsAsDoubles`): the same searches with the
 * comparisons inline, no comparator calls. `heads` holds each group's equi-key (empty and `lK`
 * null with no equi-key: one group); `sT` t at every sorted position, `lT` / `lK` the left rows'.
 */
function searchNumeric(
  heads: Float64Array,
  groups: Int32Array,
  sT: Float64Array,
  lK: Float64Array | null,
  lT: Float64Array,
  nulls: Uint8Array | null,
  from: number,
  to: number,
  op: RangeOp,
  match: Int32Array,
): void {
  // the bound is the first position with t > x (`upper`) or t >= x; the answer the position
  // before it (`before`: >= and >) or the bound itself (<= and <), as in `closest`
  const upper = op === '>=' || op === '<';
  const before = op === '>=' || op === '>';
  for (let i = from; i < to; i++) {
    if (nulls !== null && nulls[i] !== 0) {
      match[i] = -1;
      continue;
    }
    let lo = 0;
    let hi = sT.length;
    if (lK !== null) {
      const g = headIndex(heads, lK[i]!);
      if (g < 0) {
        match[i] = -1;
        continue;
      }
      lo = groups[g]!;
      hi = groups[g + 1]!;
    }
    const x = lT[i]!;
    const a = boundOf(sT, lo, hi, x, upper);
    match[i] = before ? (a > lo ? a - 1 : -1) : a < hi ? a : -1;
  }
}

/** The index of `k` among the ascending `heads` (binary search), or -1. */
function headIndex(heads: Float64Array, k: number): number {
  let a = 0;
  let b = heads.length;
  while (a < b) {
    const mid = (a + b) >>> 1;
    const h = heads[mid]!;
    if (h === k) return mid;
    if (h < k) a = mid + 1;
    else b = mid;
  }
  return -1;
}

/** Each left row's group in [from, to): the index of its key among `heads`, or -1 (none, or a NULL key). */
function findGroups(heads: Float64Array, slots: Int32Array | null, lK: Float64Array, nulls: Uint8Array | null, from: number, to: number, gid: Int32Array): void {
  if (slots !== null) {
    // keys are integers: the group is one look-up, key - heads[0] into the table
    const min = heads[0]!;
    const span = slots.length;
    for (let i = from; i < to; i++) {
      const d = lK[i]! - min;
      gid[i] = (nulls === null || nulls[i] === 0) && d >= 0 && d < span ? slots[d]! : -1;
    }
    return;
  }
  for (let i = from; i < to; i++) gid[i] = nulls === null || nulls[i] === 0 ? headIndex(heads, lK[i]!) : -1;
}

/**
 * The rows [0, n) that have a group (`gid` >= 0) into `order`, grouped by group in ascending
 * order (a counting sort; `counts` holds one entry per group + 1); returns how many.
 */
function orderByGroup(gid: Int32Array, n: number, counts: Int32Array, order: Int32Array): number {
  counts.fill(0);
  for (let i = 0; i < n; i++) {
    const g = gid[i]!;
    if (g >= 0) counts[g + 1]!++;
  }
  for (let g = 1; g < counts.length; g++) counts[g]! += counts[g - 1]!;
  for (let i = 0; i < n; i++) {
    const g = gid[i]!;
    if (g >= 0) order[counts[g]!++] = i;
  }
  return counts[counts.length - 1]!; // the total: the last entry is never advanced
}

/**
 * For the rows order[from..to) (each with its group in `match`, from `findGroups`), the sorted
 * position of the closest right row within the group, or -1: written over the group in `match`.
 */
function searchGroups(order: Int32Array, from: number, to: number, groups: Int32Array, sT: Float64Array, lT: Float64Array, op: RangeOp, match: Int32Array): void {
  const upper = op === '>=' || op === '<';
  const before = op === '>=' || op === '>';
  for (let o = from; o < to; o++) {
    const i = order[o]!;
    const g = match[i]!;
    const lo = groups[g]!;
    const hi = groups[g + 1]!;
    const x = lT[i]!;
    const a = boundOf(sT, lo, hi, x, upper);
    match[i] = before ? (a > lo ? a - 1 : -1) : a < hi ? a : -1;
  }
}

/**
 * The first position p in [lo, hi) with sT[p] > x (`upper`) or >= x, or hi: a binary search whose
 * steps add `half & -(test)` instead of branching on the test. The test's outcome is a coin flip
 * for random probes, and mispredicted branches cost more than the loads (measured on the 10M x
 * 100K asof suite: 2-3x on this search); the number of steps depends on hi - lo only.
 */
function boundOf(sT: Float64Array, lo: number, hi: number, x: number, upper: boolean): number {
  let base = lo;
  let len = hi - lo;
  if (len === 0) return lo;
  if (upper) {
    while (len > 1) {
      const half = len >>> 1;
      base += half & -(sT[base + half - 1]! <= x);
      len -= half;
    }
    return sT[base]! <= x ? base + 1 : base;
  }
  while (len > 1) {
    const half = len >>> 1;
    base += half & -(sT[base + half - 1]! < x);
    len -= half;
  }
  return sT[base]! < x ? base + 1 : base;
}

/** Widest key range a look-up table is built for, beyond 4 entries per group. */
const SLOTS_BASE = 65_536;

/** The group of each integer key in [heads[0], heads[last]] (-1: none), or null when the range is too wide for a table. */
function groupSlots(heads: Float64Array): Int32Array | null {
  const ng = heads.length;
  if (ng === 0) return null;
  const span = heads[ng - 1]! - heads[0]! + 1;
  if (span > SLOTS_BASE + 4 * ng) return null;
  const slots = new Int32Array(span).fill(-1);
  for (let g = 0; g < ng; g++) slots[heads[g]! - heads[0]!] = g;
  return slots;
}

/** The key of each group's first position. */
function groupHeads(keys: Float64Array, groups: Int32Array): Float64Array {
  const out = new Float64Array(groups.length - 1);
  for (let g = 0; g < out.length; g++) out[g] = keys[groups[g]!]!;
  return out;
}

/**
 * The start of every run of equal keys among `n` positions sorted by key (`equal(p, q)` on
 * positions), then `n`: runs are maximal, so consecutive groups hold different keys.
 */
function keyGroups(n: number, equal: (p: number, q: number) => boolean): Int32Array {
  let count = n > 0 ? 1 : 0;
  for (let p = 1; p < n; p++) if (!equal(p - 1, p)) count++;
  const out = new Int32Array(count + 1);
  let g = 0;
  if (n > 0) out[g++] = 0;
  for (let p = 1; p < n; p++) if (!equal(p - 1, p)) out[g++] = p;
  out[g] = n;
  return out;
}

/** The group (index into `groups`) whose key equals left row i's under `cmp` (left row vs sorted position), or -1. */
function findGroup(groups: Int32Array, ng: number, i: number, cmp: (i: number, p: number) => number): number {
  let lo = 0;
  let hi = ng;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = cmp(i, groups[mid]!);
    if (c === 0) return mid;
    if (c > 0) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/**
 * The first sorted position p in [from, to) whose right key compares > left row i (`upper`) or
 * >= it (not `upper`) under `cmp(i, p)` (left row vs sorted position, ascending); `to` if none.
 */
function lowerBound(from: number, to: number, i: number, cmp: (i: number, p: number) => number, upper: boolean): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = cmp(i, mid); // left vs right
    // right row at mid is before the bound when right < left (c > 0), or right == left for `upper`
    if (c > 0 || (upper && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The sorted position in the group [lo, hi) (sorted by t ascending) closest to left row i satisfying `op`, or -1. */
function closest(lo: number, hi: number, i: number, tCmp: (i: number, p: number) => number, op: RangeOp): number {
  switch (op) {
    case '>=': {
      // l.t >= r.t: the last position with r.t <= l.t
      const p = lowerBound(lo, hi, i, tCmp, true);
      return p > lo ? p - 1 : -1;
    }
    case '>': {
      const p = lowerBound(lo, hi, i, tCmp, false);
      return p > lo ? p - 1 : -1;
    }
    case '<=': {
      // l.t <= r.t: the first position with r.t >= l.t
      const p = lowerBound(lo, hi, i, tCmp, false);
      return p < hi ? p : -1;
    }
    case '<': {
      const p = lowerBound(lo, hi, i, tCmp, true);
      return p < hi ? p : -1;
    }
  }
}
