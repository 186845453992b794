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
 * key sorted once by (keys, t) ascending (`argsortKeys`). Each left batch is then streamed: per
 * row, a binary search over the key groups' first rows (the group starts are found once, after the
 * sort) and one inside the group on t — comparators over normalised key columns, no per-row
 * objects. An empty right input with no right outer side still streams the left (a left join
 * NULL-pads every row); an empty left input with no right outer side never reads the right one. Outer rows of the right side come after all left batches.
 */
import type { RecordBatch } from 'apache-arrow';
import { concatBatches, RowSource } from '../../core/arrow/gather.ts';
import { batchByteSize } from '../../core/arrow/size.ts';
import { Bitset } from '../../core/bitset.ts';
import { UnsupportedJoinError } from '../../core/errors.ts';
import type { JoinAlgorithm, JoinContext, JoinInputs } from '../../core/join-algorithm.ts';
import { argsortKeys } from '../../core/keys/argsort.ts';
import { makeKeyComparator } from '../../core/keys/compare.ts';
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
      let rCols: KeyColumn[] = [];
      let sorted: Int32Array = new Int32Array(0);
      // the start of each key group in `sorted`, then sorted.length: a left row's group is found by
      // a binary search over the groups' first rows (log2(groups) comparisons, not 2 x log2(rows))
      let groups: Int32Array = new Int32Array(1);
      let rightSource = new RowSource([], join.rightSchema);
      let rightMatched = new Bitset(0);
      const prepareRight = async (): Promise<void> => {
        await loadRight();
        const rb = rightBatch as RecordBatch | null;
        if (rb === null) return;
        rightSource = new RowSource([rb], join.rightSchema);
        rightMatched = new Bitset(rb.numRows);
        rCols = normalizeKeys(rb, rightNames, kinds);
        reservation.grow(rCols.reduce((n, c) => n + keyColumnBytes(c), 0) + Math.ceil(rb.numRows / 8));
        const valid = validRows(rCols, rb.numRows);
        reservation.grow(valid.byteLength * 2);
        sorted = argsortKeys(rCols, rCols.map(() => ({ descending: false, nullsFirst: false })), valid);
        groups = nk === 0 ? Int32Array.of(0, sorted.length) : keyGroups(sorted, makeKeyComparator(rCols.slice(0, nk), rCols.slice(0, nk)).equal);
        reservation.grow(groups.byteLength);
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
          const bytes = lCols.reduce((n, c) => n + keyColumnBytes(c), 0);
          reservation.grow(bytes);
          const nulls = anyNullMask(lCols);
          const keyCmp = nk === 0 ? null : makeKeyComparator(lCols.slice(0, nk), rCols.slice(0, nk)).compare;
          const tCmp = makeKeyComparator([lCols[nk]!], [rCols[nk]!]).compare;
          const ng = groups.length - 1;
          for (let i = 0; i < lb.numRows; i++) {
            if ((i & (PACE_ROWS - 1)) === PACE_ROWS - 1 && pacer.due()) await pacer.turn();
            let j = -1;
            if (nulls === null || nulls[i] === 0) {
              // the key group [groups[g], groups[g + 1]) of the sorted right rows, if any
              const g = keyCmp === null ? 0 : findGroup(sorted, groups, ng, i, keyCmp);
              if (g >= 0) j = closest(sorted, groups[g]!, groups[g + 1]!, i, tCmp, op);
            }
            if (j >= 0) {
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
 * The start of every run of equal keys in `sorted` (right rows sorted by key), then
 * `sorted.length`: runs are maximal, so consecutive groups hold different keys.
 */
function keyGroups(sorted: Int32Array, equal: (i: number, j: number) => boolean): Int32Array {
  const n = sorted.length;
  let count = n > 0 ? 1 : 0;
  for (let p = 1; p < n; p++) if (!equal(sorted[p - 1]!, sorted[p]!)) count++;
  const out = new Int32Array(count + 1);
  let g = 0;
  if (n > 0) out[g++] = 0;
  for (let p = 1; p < n; p++) if (!equal(sorted[p - 1]!, sorted[p]!)) out[g++] = p;
  out[g] = n;
  return out;
}

/** The group (index into `groups`) whose key equals left row i's under `cmp` (left vs right), or -1. */
function findGroup(sorted: Int32Array, groups: Int32Array, ng: number, i: number, cmp: (i: number, j: number) => number): number {
  let lo = 0;
  let hi = ng;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = cmp(i, sorted[groups[mid]!]!);
    if (c === 0) return mid;
    if (c > 0) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/**
 * The first position p in [from, to) of `sorted` whose right row compares > left row i
 * (`upper`) or >= it (not `upper`) under `cmp(i, j)` (left vs right, ascending); `to` if none.
 */
function lowerBound(sorted: Int32Array, from: number, to: number, i: number, cmp: (i: number, j: number) => number, upper: boolean): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = cmp(i, sorted[mid]!); // left vs right
    // right row at mid is before the bound when right < left (c > 0), or right == left for `upper`
    if (c > 0 || (upper && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The right row of the group [lo, hi) (sorted by t ascending) closest to left row i satisfying `op`, or -1. */
function closest(sorted: Int32Array, lo: number, hi: number, i: number, tCmp: (i: number, j: number) => number, op: RangeOp): number {
  switch (op) {
    case '>=': {
      // l.t >= r.t: the last row with r.t <= l.t
      const p = lowerBound(sorted, lo, hi, i, tCmp, true);
      return p > lo ? sorted[p - 1]! : -1;
    }
    case '>': {
      const p = lowerBound(sorted, lo, hi, i, tCmp, false);
      return p > lo ? sorted[p - 1]! : -1;
    }
    case '<=': {
      // l.t <= r.t: the first row with r.t >= l.t
      const p = lowerBound(sorted, lo, hi, i, tCmp, false);
      return p < hi ? sorted[p]! : -1;
    }
    case '<': {
      const p = lowerBound(sorted, lo, hi, i, tCmp, true);
      return p < hi ? sorted[p]! : -1;
    }
  }
}
