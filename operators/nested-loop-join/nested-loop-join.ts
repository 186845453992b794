/**
 * The nested-loop join: the oracle every other algorithm is fuzzed against.
 *
 * It is deliberately the most literal reading of the semantics: both inputs are collected, every
 * (left row, right row) pair is tested — keys column by column with explicit NULL rules, then the
 * range predicate, then the residual filter — and the join type decides what is emitted. Work is
 * still batch-wise: comparators are built once per (left batch, right batch) pair and candidate
 * pairs are evaluated against the residual filter in blocks.
 *
 * NULL rules: under `null-equals-nothing` a NULL in any key column never matches; under
 * `null-equals-null` two NULLs in the same key column are equal. A range predicate with a NULL
 * operand is false. Null-aware anti (`outer NOT IN (SELECT inner.k … WHERE range AND filter)`) is
 * evaluated per outer row o over S(o) = the inner rows passing the range predicate and the
 * filter: o is kept iff S(o) is empty, or o's key is not NULL, no key in S(o) is NULL and none
 * equals o's key.
 *
 * Cancellation: with an AbortSignal the pair loop gives the event loop a turn every ~20 ms (at a
 * left row or after a block of candidate pairs; core/next-turn.ts) and checks the signal, so a timer's abort (a query
 * timeout) or an interrupt stops a long loop — a cross product, an OR of join conditions — instead
 * of waiting for its end.
 */
import type { RecordBatch } from 'apache-arrow';
import { RowSource } from '../../core/arrow/gather.ts';
import { Bitset } from '../../core/bitset.ts';
import type { JoinAlgorithm, JoinContext, JoinInputs } from '../../core/join-algorithm.ts';
import { makeKeyComparator } from '../../core/keys/compare.ts';
import { normalizeKeys } from '../../core/keys/normalize.ts';
import { keyColumnBytes, type KeyColumn, type KeyComparator } from '../../core/keys/types.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import { bump } from '../../core/metrics.ts';
import type { BoundJoin } from '../../core/plan.ts';
import { keepsUnmatched, outputSides, isMarkJoin, isSemiJoin, type RangeOp, type Side } from '../../core/types.ts';
import { collectScan } from '../common/collect.ts';
import { CANCEL_CHECK_MS, nextTurn, TurnClock } from '../../core/next-turn.ts';
import { OutputAssembler, OutputPlan } from '../common/output.ts';

/** Candidate pairs evaluated against the residual filter at once. */
const FILTER_BLOCK = 4096;

/** Per key column: a comparator and both sides' NULL masks, for one (left, right) batch pair. */
interface ColumnTest {
  readonly cmp: KeyComparator;
  readonly leftNulls: Uint8Array | null;
  readonly rightNulls: Uint8Array | null;
}

function columnTests(left: readonly KeyColumn[], right: readonly KeyColumn[]): ColumnTest[] {
  return left.map((l, c) => ({ cmp: makeKeyComparator([l], [right[c]!]), leftNulls: l.nulls, rightNulls: right[c]!.nulls }));
}

function keysEqual(tests: readonly ColumnTest[], i: number, j: number, nullEqualsNull: boolean): boolean {
  for (let c = 0; c < tests.length; c++) {
    const t = tests[c]!;
    const ln = t.leftNulls !== null && t.leftNulls[i] === 1;
    const rn = t.rightNulls !== null && t.rightNulls[j] === 1;
    if (ln || rn) {
      if (nullEqualsNull && ln && rn) continue;
      return false;
    }
    if (!t.cmp.equal(i, j)) return false;
  }
  return true;
}

function rangeHolds(t: ColumnTest, op: RangeOp, i: number, j: number): boolean {
  if ((t.leftNulls !== null && t.leftNulls[i] === 1) || (t.rightNulls !== null && t.rightNulls[j] === 1)) return false;
  const c = t.cmp.compare(i, j);
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

/** Per-side facts gathered while testing pairs. */
class SideState {
  readonly matched: Bitset;
  /** Null-aware anti only: the outer row saw a filter-passing inner row / one with a NULL key. */
  readonly nonEmpty: Bitset;
  readonly sawNull: Bitset;
  constructor(readonly rows: number) {
    this.matched = new Bitset(rows);
    this.nonEmpty = new Bitset(rows);
    this.sawNull = new Bitset(rows);
  }
}

export class NestedLoopJoin implements JoinAlgorithm {
  readonly name = 'nested-loop';
  readonly description = 'tests every (left, right) pair; the simple oracle all other algorithms are checked against';

  unsupportedReason(): string | null {
    return null; // every join type, keys, range, filter and null-aware anti
  }

  async *execute(join: BoundJoin, inputs: JoinInputs, ctx: JoinContext): AsyncIterable<RecordBatch> {
    const started = performance.now();
    const reservation = ctx.pool.reservation('nested-loop-join');
    try {
      const leftBatches = await collectScan(inputs.left, reservation, { signal: ctx.signal });
      const rightBatches = await collectScan(inputs.right, reservation, { signal: ctx.signal });
      bump(ctx.metrics, 'leftRows', sum(leftBatches));
      bump(ctx.metrics, 'rightRows', sum(rightBatches));
      yield* this.#join(join, leftBatches, rightBatches, ctx, reservation);
    } finally {
      ctx.metrics.peakReservedBytes = Math.max(ctx.metrics.peakReservedBytes, reservation.peak);
      reservation.free();
      ctx.metrics.elapsedMs += performance.now() - started;
    }
  }

  async *#join(join: BoundJoin, leftBatches: RecordBatch[], rightBatches: RecordBatch[], ctx: JoinContext, reservation: Reservation): AsyncGenerator<RecordBatch> {
    const { spec } = join;
    const left = new RowSource(leftBatches, join.leftSchema);
    const right = new RowSource(rightBatches, join.rightSchema);
    // three bitsets per side (matched, non-empty inner set, saw a NULL)
    reservation.grow(3 * (Math.ceil(left.numRows / 8) + Math.ceil(right.numRows / 8)));
    const leftState = new SideState(left.numRows);
    const rightState = new SideState(right.numRows);
    const sides = outputSides(spec.type);
    const batchSize = ctx.config.batchSize;
    const out =
      sides === 'both'
        ? OutputAssembler.pairs(OutputPlan.pairs(join.output, join.leftSchema, join.rightSchema, ctx.pool), batchSize, left, right)
        : OutputAssembler.oneSide(
            OutputPlan.oneSide(join.output, sides === 'left' ? join.leftSchema : join.rightSchema, sides, ctx.pool),
            batchSize,
            sides === 'left' ? left : right,
            isMarkJoin(spec.type),
          );
    const emitPairs = sides === 'both';
    const nullEqualsNull = spec.nullEquality === 'null-equals-null';
    const nullAware = spec.nullAware;
    const outer: Side = sides === 'right' ? 'right' : 'left';

    const leftKeys = leftBatches.map((b) => normalizeKeys(b, join.leftKeys, join.keyKinds));
    const rightKeys = rightBatches.map((b) => normalizeKeys(b, join.rightKeys, join.keyKinds));
    const range = spec.range;
    const leftRange = range ? leftBatches.map((b) => normalizeKeys(b, [range.left], [join.rangeKind!])) : null;
    const rightRange = range ? rightBatches.map((b) => normalizeKeys(b, [range.right], [join.rangeKind!])) : null;
    for (const perBatch of [leftKeys, rightKeys, leftRange ?? [], rightRange ?? []]) {
      for (const cols of perBatch) for (const c of cols) reservation.grow(keyColumnBytes(c));
    }

    const blockL = new Int32Array(FILTER_BLOCK);
    const blockR = new Int32Array(FILTER_BLOCK);
    let pairsTested = 0;

    // with a signal: a turn of the event loop every ~20 ms (per left row and per block of candidate pairs)
    const watch = ctx.signal !== undefined;
    const clock = new TurnClock(CANCEL_CHECK_MS);
    const turn = async (): Promise<void> => {
      await nextTurn();
      if (ctx.signal?.aborted) throw ctx.signal.reason;
    };
    let leftBase = 0;
    for (let lb = 0; lb < leftBatches.length; lb++) {
      const lBatch = leftBatches[lb]!;
      let rightBase = 0;
      for (let rb = 0; rb < rightBatches.length; rb++) {
        if (ctx.signal?.aborted) throw ctx.signal.reason;
        const rBatch = rightBatches[rb]!;
        const keyTests = columnTests(leftKeys[lb]!, rightKeys[rb]!);
        const rangeTest = range ? columnTests(leftRange![lb]!, rightRange![rb]!)[0]! : null;
        let n = 0;

        // Tests the block of candidate pairs against the filter and records the outcomes.
        const settle = function* (): Generator<RecordBatch> {
          const pass = join.filter ? join.filter.evaluate(lBatch, blockL, rBatch, blockR, n) : null;
          for (let k = 0; k < n; k++) {
            if (pass !== null && pass[k] !== 1) continue;
            const i = blockL[k]!;
            const j = blockR[k]!;
            if (nullAware) {
              // The filter decides membership in S(o); the inner key decides NULL / equality.
              const outerIsLeft = outer === 'left';
              const state = outerIsLeft ? leftState : rightState;
              const g = outerIsLeft ? leftBase + i : rightBase + j;
              const innerNulls = outerIsLeft ? keyTests[0]!.rightNulls : keyTests[0]!.leftNulls;
              state.nonEmpty.set(g);
              if (innerNulls !== null && innerNulls[outerIsLeft ? j : i] === 1) state.sawNull.set(g);
              else if (keysEqual(keyTests, i, j, false)) state.matched.set(g);
              continue;
            }
            leftState.matched.set(leftBase + i);
            rightState.matched.set(rightBase + j);
            if (emitPairs && out.addPair(leftBase + i, rightBase + j)) yield out.flush()!;
          }
          n = 0;
        };

        for (let i = 0; i < lBatch.numRows; i++) {
          if (watch && clock.due()) await turn();
          for (let j = 0; j < rBatch.numRows; j++) {
            pairsTested++;
            // NOT IN: the keys decide NULL / equality in settle(); the range, like the filter,
            // decides membership in S(o)
            if (!nullAware && !keysEqual(keyTests, i, j, nullEqualsNull)) continue;
            if (rangeTest && !rangeHolds(rangeTest, range!.op, i, j)) continue;
            blockL[n] = i;
            blockR[n] = j;
            if (++n === FILTER_BLOCK) {
              yield* settle();
              if (watch && clock.due()) await turn();
            }
          }
        }
        if (n > 0) yield* settle();
        rightBase += rBatch.numRows;
      }
      leftBase += lBatch.numRows;
    }
    bump(ctx.metrics, 'pairsTested', pairsTested);

    if (emitPairs) {
      if (keepsUnmatched(spec.type, 'left')) {
        for (let i = 0; i < left.numRows; i++) if (!leftState.matched.get(i) && out.addPair(i, -1)) yield out.flush()!;
      }
      if (keepsUnmatched(spec.type, 'right')) {
        for (let j = 0; j < right.numRows; j++) if (!rightState.matched.get(j) && out.addPair(-1, j)) yield out.flush()!;
      }
    } else {
      const state = sides === 'left' ? leftState : rightState;
      const keys = sides === 'left' ? leftKeys : rightKeys;
      const keep = nullAware ? nullAwareKeep(state, keys) : null;
      const mark = isMarkJoin(spec.type);
      const semi = isSemiJoin(spec.type);
      for (let r = 0; r < state.rows; r++) {
        const matched = state.matched.get(r);
        let emit: boolean;
        if (mark) emit = true;
        else if (keep) emit = keep.get(r);
        else emit = semi ? matched : !matched;
        if (emit && out.addRow(r, matched)) yield out.flush()!;
      }
    }
    const last = out.flush();
    if (last) yield last;
  }
}

/** The NOT IN decision per outer row (see the module comment). */
function nullAwareKeep(state: SideState, keys: readonly (readonly KeyColumn[])[]): Bitset {
  const keep = new Bitset(state.rows);
  let base = 0;
  for (const cols of keys) {
    const nulls = cols[0]!.nulls;
    const len = cols[0]!.length;
    for (let r = 0; r < len; r++) {
      const g = base + r;
      if (!state.nonEmpty.get(g)) keep.set(g);
      else if (!(nulls !== null && nulls[r] === 1) && !state.sawNull.get(g) && !state.matched.get(g)) keep.set(g);
    }
    base += len;
  }
  return keep;
}

function sum(batches: readonly RecordBatch[]): number {
  let n = 0;
  for (const b of batches) n += b.numRows;
  return n;
}
