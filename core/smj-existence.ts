/**
 * What a sort-merge join existence stream is (slot `smj.existence`, config key `smj.existence`):
 * the part of a sort-merge semi / anti / mark join that decides, for the outer rows of one key
 * group, which of them have a matching inner row.
 *
 * The merge (operators/sort-merge-join/) finds the key groups: a run of outer rows and a run of
 * inner rows with one equal join key. Without a residual filter the answer is the same for every
 * outer row of the group (the inner group is not empty), so a stream may say it needs no inner rows
 * at all (`buffersInnerGroup(false)` = false) and the merge marks the group whole. With a filter,
 * each outer row needs its own answer: the merge buffers the inner group (spilling it when the pool
 * refuses) and hands it to `match` a chunk at a time, ORing into one bitset per outer batch.
 *
 * The two built-ins (strategies/smj-existence/) are the two designs DataFusion has had (its
 * `bitwise_stream.rs` against the `materializing` stream): `bitwise` evaluates the filter for an
 * inner row against the whole outer group and ORs the result into the bitset a word at a time,
 * stopping the group as soon as a popcount says every outer row matched; `materializing` builds
 * the (outer, inner) pairs, filters them and de-duplicates them into the same bitset, as an inner
 * join would — the baseline, and the same answers.
 *
 * Contract: bit r of `matched` is outer row r of the outer batch. `match` only ever sets bits
 * (ORs): a bit set by an earlier chunk stays set. A filter that is NULL for a pair is no match.
 * `match` returns true when every outer row in [outerStart, outerEnd) is matched, so the merge can
 * stop feeding (and reading back) the rest of the inner group; returning false is always allowed.
 */
import type { RecordBatch } from 'apache-arrow';
import type { Bitset } from './bitset.ts';
import type { CompiledFilter } from './expr/evaluate.ts';
import type { Strategy } from './registry/registry.ts';
import type { Side } from './types.ts';

/** Work a stream did, for the operator's metrics. */
export interface ExistenceStats {
  /** (outer, inner) pairs the filter was evaluated on. */
  pairsEvaluated: number;
  /** Pairs written out as row-id pairs before being reduced to bits. */
  pairsMaterialized: number;
}

export interface ExistenceOptions {
  /** The residual filter (over left/right rows, as written), or null. */
  readonly filter: CompiledFilter | null;
  /** The join side the outer (returned) rows come from. */
  readonly outerSide: Side;
  /** Pairs per chunk for a stream that materializes pairs (the join's batchSize). */
  readonly batchSize: number;
}

/** One open stream: reused for every key group of one join. */
export interface ExistenceProbe {
  readonly stats: ExistenceStats;
  /**
   * Outer rows [outerStart, outerEnd) of `outer` and inner rows [innerStart, innerEnd) of `inner`
   * share one join key. Sets bit r of `matched` for each outer row r with a match among them;
   * returns true when every outer row of the range is matched.
   */
  match(outer: RecordBatch, outerStart: number, outerEnd: number, inner: RecordBatch, innerStart: number, innerEnd: number, matched: Bitset): boolean;
}

export interface SmjExistenceStream extends Strategy {
  /** Whether the merge must keep the inner key group's rows for `match` (false: no filter needed). */
  buffersInnerGroup(hasFilter: boolean): boolean;
  open(options: ExistenceOptions): ExistenceProbe;
}
