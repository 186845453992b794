/**
 * NOT IN (null-aware anti join) with a residual filter, in the hash join.
 *
 * `o.k NOT IN (SELECT i.k FROM inner i WHERE filter(o, i))`: each outer row o has its OWN inner set
 * S(o) = the inner rows for which the filter is TRUE, and SQL's three-valued `NOT IN` over S(o):
 *   - o.k is NOT NULL: o survives iff no row of S(o) has o's key (the hash probe + filter decides
 *     that: "matched") and no row of S(o) has a NULL key (then the answer is unknown, not true);
 *   - o.k is NULL: o survives iff S(o) is empty.
 * So besides the probe, two facts are needed: does some NULL-key inner row pass the filter with o
 * (for unmatched outer rows with a key), and does ANY inner row pass it (for NULL outer keys). Both
 * are found by evaluating the filter over blocks of candidate pairs, vectorised like every other
 * filter evaluation (`PairEvaluator`, ../common/residual.ts); the work is the outer rows times the
 * inner rows that could matter — the NULL keys — which is quadratic only in the NULL part of the
 * data. (Without a filter S(o) is the whole
 * inner side and the join uses the inner side's emptiness and NULL-ness instead:
 * ../common/not-in.ts.)
 *
 * Soundness needs every inner row: a probe-side dynamic filter would drop inner rows whose key
 * matches nothing but which may still make S(o) non-empty, so roles.ts pushes nothing down here.
 *
 * Two drivers, by which side is the outer one:
 *   - outer = probe: per probe batch, against the (complete) build partitions — `probeSurvivors`;
 *   - outer = build: per probe batch, updating per-build-row state — `FilteredNotInState.observe` —
 *     and deciding each build row once the probe input is exhausted (`survivors`).
 */
import type { RecordBatch } from 'apache-arrow';
import type { CompiledFilter } from '../../core/expr/evaluate.ts';
import type { Side } from '../../core/types.ts';
import { rowsWhere } from '../../core/selection.ts';
import { PairEvaluator } from '../common/residual.ts';
import type { PartitionBuild } from './build.ts';

/** A partition's rows: all, those with a NULL key, those with a key — computed once per partition. */
interface PartitionRows {
  readonly all: Int32Array;
  readonly nullKey: Int32Array;
  readonly withKey: Int32Array;
}
const rowsOfPartition = new WeakMap<PartitionBuild, PartitionRows>();
function rowsOf(part: PartitionBuild): PartitionRows {
  let r = rowsOfPartition.get(part);
  if (r === undefined) {
    r = { all: rowsWhere(null, part.rows, 0), nullKey: rowsWhere(part.nullKeys, part.rows, 1), withKey: rowsWhere(part.nullKeys, part.rows, 0) };
    rowsOfPartition.set(part, r);
  }
  return r;
}

/**
 * Outer = probe: the NOT IN survivors (1 = returned) among the rows of one probe batch, given which
 * of them matched (equal key and filter TRUE) and which have a NULL key.
 */
export function probeSurvivors(
  filter: CompiledFilter,
  probeSide: Side,
  batch: RecordBatch,
  matched: Uint8Array,
  probeNulls: Uint8Array | null,
  parts: readonly PartitionBuild[],
): Uint8Array {
  const n = batch.numRows;
  const ev = new PairEvaluator(filter, probeSide);
  const excluded = new Uint8Array(n); // matched, or S(o) holds a NULL key / is non-empty
  for (let r = 0; r < n; r++) excluded[r] = matched[r]!;
  const withKey = rowsWhere(probeNulls, n, 0);
  const nullKey = rowsWhere(probeNulls, n, 1);
  const skip = (r: number) => excluded[r] === 1;
  const exclude = (r: number) => {
    excluded[r] = 1;
  };
  for (const part of parts) {
    if (part.rows === 0) continue;
    const rows = rowsOf(part);
    // unmatched rows with a key: excluded if a NULL-key build row passes the filter with them
    if (rows.nullKey.length > 0 && withKey.length > 0) ev.cross(batch, withKey, part.batch!, rows.nullKey, skip, exclude);
    // NULL keys: excluded if ANY build row passes the filter with them
    if (nullKey.length > 0) ev.cross(batch, nullKey, part.batch!, rows.all, skip, exclude);
  }
  const keep = new Uint8Array(n);
  for (let r = 0; r < n; r++) keep[r] = 1 - excluded[r]!;
  return keep;
}

/** Outer = build: per build row, what the probe rows seen so far said about S(o). */
export class FilteredNotInState {
  /** Per partition: a NULL-key build row passed the filter with a key row (sawNull), or any probe row passed with a NULL-key build row (nonEmpty). */
  readonly #excluded: Uint8Array[];
  readonly #ev: PairEvaluator;

  constructor(
    filter: CompiledFilter,
    buildSide: Side,
    readonly parts: readonly PartitionBuild[],
  ) {
    this.#excluded = parts.map((p) => new Uint8Array(p.rows));
    this.#ev = new PairEvaluator(filter, buildSide);
  }

  /** One probe batch (all of it, whatever partition its rows were routed to). */
  observe(batch: RecordBatch, probeNulls: Uint8Array | null): void {
    const n = batch.numRows;
    if (n === 0) return;
    const nullProbe = rowsWhere(probeNulls, n, 1);
    const everyProbe = rowsWhere(null, n, 0);
    this.parts.forEach((part, p) => {
      if (part.rows === 0) return;
      const ex = this.#excluded[p]!;
      const skip = (r: number) => ex[r] === 1;
      const exclude = (r: number) => {
        ex[r] = 1;
      };
      const rows = rowsOf(part);
      // build rows with a key (and no match yet): a NULL-key probe row passing the filter makes the answer unknown
      if (nullProbe.length > 0) this.#ev.cross(part.batch!, rows.withKey, batch, nullProbe, (r) => ex[r] === 1 || part.matched.get(r), exclude);
      // NULL-key build rows: any probe row passing the filter makes S(o) non-empty
      if (rows.nullKey.length > 0) this.#ev.cross(part.batch!, rows.nullKey, batch, everyProbe, skip, exclude);
    });
  }

  /** The survivors (1 = returned) of partition `p` once the probe input is exhausted. */
  survivors(p: number, matched: Uint8Array): Uint8Array {
    const part = this.parts[p]!;
    const ex = this.#excluded[p]!;
    const keep = new Uint8Array(part.rows);
    for (let r = 0; r < part.rows; r++) {
      const isNull = part.nullKeys !== null && part.nullKeys[r] !== 0;
      keep[r] = ex[r] === 1 || (!isNull && matched[r] === 1) ? 0 : 1;
    }
    return keep;
  }
}
