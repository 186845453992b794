/**
 * The probe phase of the hash join: streams the probe input through the complete build
 * (build.ts) as the plan (plan.ts) says, then emits what only the build side can decide.
 *
 * Per probe batch: normalise + hash the keys once, walk the table in chunks of `batchSize` pairs
 * (a probe row with a million matches does not blow up one batch), apply the residual filter to
 * each chunk, record matches (a byte per probe row, a bit per build row), and gather output.
 * Partitioned, each partition's rows (a counting sort of their partition ids) probe that
 * partition's table with their own key columns only (`takeKeyRows`), and every pair found is
 * mapped back to the batch's row ids — so residual filters, match flags and output gathers all
 * work on the one original batch, and no other probe column is ever copied per partition.
 * Probe-side results (unmatched rows of an outer join, semi/anti/mark rows) are then emitted once
 * for the whole batch; build-side results (unmatched rows of an outer join, build-side
 * semi/anti/mark) after the probe input is exhausted, partition by partition.
 *
 * Output order is therefore: per probe batch, its pairs (partition by partition, each in table
 * order), then its probe-side rows; then, per partition, its build-side rows.
 *
 * Probe-side passthrough (outer joins that keep the probe side, one partition, no residual): when
 * every probe row of a batch matches at most one build row — a unique build key, h2o's q3 — the
 * batch's output is the batch itself in its own order, each row beside its one build row or
 * NULLs. The table reports pairs in probe-row order, so a batch is seen to be such as it is
 * probed (each pair's probe row above the last one's); its probe columns are then emitted as
 * zero-copy slices and only the build side is gathered (at -1 for NULL), matched and unmatched
 * rows together. The first probe row with a second match ends it for the rest of the run (the
 * build has duplicate keys): what that batch collected so far is emitted as ordinary pairs, and
 * it goes on as above.
 *
 * NOT IN (null-aware anti): with the probe side returned, a probe row survives iff the build is
 * empty, or its key is not NULL, no build key is NULL and it matched nothing. With the build side
 * returned, the same rule over the probe input — whose emptiness is judged from metadata
 * (`numRows`), because the dynamic filter may legitimately remove every probe row. With a residual
 * filter each outer row has its own inner set (the rows the filter passes): not-in.ts.
 */
import { Pacer } from '../../core/next-turn.ts';
import type { RecordBatch, Schema } from 'apache-arrow';
import { RowSource } from '../../core/arrow/gather.ts';
import { batchByteSize } from '../../core/arrow/size.ts';
import { NO_PROBE_HASHES, ProbeCursor } from '../../core/hashmap.ts';
import type { JoinContext } from '../../core/join-algorithm.ts';
import { hashKeys } from '../../core/keys/hash.ts';
import { anyNullMask, normalizeKeys } from '../../core/keys/normalize.ts';
import { TABLE_SEED } from '../../core/keys/partition.ts';
import { KeyRowsScratch, takeKeyRows } from '../../core/keys/take.ts';
import { keyColumnBytes, type KeyColumn } from '../../core/keys/types.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import { bump } from '../../core/metrics.ts';
import type { BoundJoin } from '../../core/plan.ts';
import type { DynamicFilter, Scan, ScanOptions } from '../../core/scan/scan.ts';
import type { Config } from '../../core/config/schema.ts';
import { sideRows, unmatchedPairs } from '../common/emit.ts';
import { notInSurvivors } from '../common/not-in.ts';
import { OutputPlan } from '../common/output.ts';
import { evaluatePairs, keepPassingPairs } from '../common/residual.ts';
import type { JoinRoles } from '../common/roles.ts';
import { partitionOrder, PartitionScratch, type PartitionBuild } from './build.ts';
import { FilteredNotInState, probeSurvivors } from './not-in.ts';
import type { HashJoinPlan } from './plan.ts';

/**
 * What NOT IN decides from the whole of each input, when this probe sees only a part of it (one
 * spilled partition pair of the grace hash join, grace.ts): whether the inner side is empty or
 * holds a NULL key anywhere. A partition's own build may be empty, or NULL-free, while another's
 * is not — judged from the partition alone, a probe row would be returned that NOT IN rejects.
 */
export interface NotInFacts {
  readonly buildEmpty: boolean;
  readonly buildHasNullKey: boolean;
  readonly probeEmpty: boolean;
  readonly probeHasNullKey: boolean;
}

/** How the probe side is scanned: under the join's dynamic filter, with the scan settings that use it. */
export function probeScanOptions(config: Config, filter: DynamicFilter, signal: AbortSignal | undefined): ScanOptions {
  return { filter, signal, bloomFilters: config['pushdown.parquetBloom'], pageIndex: config['scan.pageIndex'] !== 'off', lateMaterialization: config['scan.lateMaterialization'] };
}

/** One run's probe phase: everything it shares across probe batches. */
export class HashJoinProbe {
  readonly buildRowsTotal: number;
  readonly #join: BoundJoin;
  readonly #roles: JoinRoles;
  readonly #ctx: JoinContext;
  readonly #parts: readonly PartitionBuild[];
  readonly #probeKeys: readonly string[];
  readonly #buildHasNullKey: boolean;
  readonly #batchSize: number;
  readonly #outProbe: Int32Array;
  readonly #outBuild: Int32Array;
  /** Output of pairs (inner/outer joins), of the probe side's rows, of the build side's rows. */
  readonly #pairs: OutputPlan | null;
  readonly #probeSide: OutputPlan | null;
  readonly #buildSide: OutputPlan | null;
  #probeSawNullKey = false;
  /**
   * Per-batch scratch, reused across probe batches: a fresh 64K-row array per batch costs more in
   * first-touch page faults than in use (~0.6 ms per MB on this class of VM).
   */
  #probeHashes = new Uint32Array(0);
  #probeFlags = new Uint8Array(0);
  readonly #partitionScratch = new PartitionScratch();
  /** Passthrough (see the module comment): the build row of each probe row of the batch, -1 for none. */
  #buildOf = new Int32Array(0);
  /** Passthrough applies to this join (outer on the probe side, one partition, no residual) and no batch has refuted it yet. */
  #passthrough: boolean;
  /** The current batch's output was emitted whole by the passthrough (its unmatched rows too). */
  #passedThrough = false;
  /** Per partition: the buffers of its piece's key columns (reused batch after batch). */
  readonly #pieceScratch: readonly KeyRowsScratch[];
  /** NOT IN with a residual filter whose outer side is the build (not-in.ts). */
  readonly #notIn: FilteredNotInState | null;
  /** The probe's scratch arrays and current batch's normalised keys, as reserved in the pool. */
  readonly #scratch: Reservation;
  /** NOT IN's facts about the whole input, when this probe sees a part of it (grace.ts). */
  readonly #facts: NotInFacts | null;

  constructor(plan: HashJoinPlan, join: BoundJoin, parts: readonly PartitionBuild[], schemas: { readonly probe: Schema; readonly build: Schema }, ctx: JoinContext, scratch: Reservation, facts?: NotInFacts) {
    const { roles, batchSize } = plan;
    this.#join = join;
    this.#roles = roles;
    this.#ctx = ctx;
    this.#parts = parts;
    this.#probeKeys = plan.probeKeys;
    this.buildRowsTotal = parts.reduce((n, p) => n + p.rows, 0);
    this.#buildHasNullKey = parts.some((p) => p.nullKeys !== null && p.nullKeys.includes(1));
    this.#batchSize = batchSize;
    this.#outProbe = new Int32Array(batchSize);
    this.#outBuild = new Int32Array(batchSize);
    this.#pairs = roles.emitPairs || roles.keepUnmatchedProbe || roles.keepUnmatchedBuild ? OutputPlan.pairs(join.output, join.leftSchema, join.rightSchema, ctx.pool) : null;
    this.#probeSide = roles.probeRows !== null ? OutputPlan.oneSide(join.output, schemas.probe, roles.probe, ctx.pool) : null;
    this.#buildSide = roles.buildRows !== null ? OutputPlan.oneSide(join.output, schemas.build, roles.build, ctx.pool) : null;
    this.#pieceScratch = Array.from({ length: plan.partitions }, () => new KeyRowsScratch());
    this.#notIn = roles.nullAwareOuter === 'build' && join.filter ? new FilteredNotInState(join.filter, roles.build, parts) : null;
    this.#scratch = scratch;
    this.#facts = facts ?? null;
    this.#passthrough = roles.keepUnmatchedProbe && roles.emitPairs && parts.length === 1 && !join.filter;
  }

  /** The join's output: every probe batch through the tables, then the build side's rows. */
  async *run(probeScan: Scan, filter: DynamicFilter): AsyncGenerator<RecordBatch> {
    const pacer = new Pacer(this.#ctx.signal);
    for await (const batch of probeScan.batches(probeScanOptions(this.#ctx.config, filter, this.#ctx.signal))) {
      // a probe batch that matches nothing yields nothing for Engine.stream to pace on
      if (pacer.due()) await pacer.turn();
      bump(this.#ctx.metrics, 'probeRows', batch.numRows);
      yield* this.#probeBatch(batch);
    }
    yield* this.#buildSideOutput(probeScan);
  }

  /**
   * One probe batch's output (what `run` does per batch): the parallel probe (parallel.ts) runs
   * this in every worker, each over its own morsels, and the build side's rows on the main thread
   * once every worker's match bits are merged (`mergeWorker`).
   */
  probeBatch(batch: RecordBatch): Generator<RecordBatch> {
    return this.#probeBatch(batch);
  }

  /** After the probe input: the build side's rows (`probe`: the probe input's schema and row count from metadata). */
  buildSideOutput(probe: Pick<Scan, 'schema' | 'numRows'>): Generator<RecordBatch> {
    return this.#buildSideOutput(probe);
  }

  /** What one worker's probe learned that the build side's output depends on: match bits per partition, NULL probe keys seen. */
  workerState(): { readonly matched: readonly Uint32Array[]; readonly sawNullKey: boolean } {
    return { matched: this.#parts.map((p) => p.matched.words), sawNullKey: this.#probeSawNullKey };
  }

  /** Merges a worker's `workerState()` into this (the main thread's) probe. */
  mergeWorker(state: { readonly matched: readonly Uint32Array[]; readonly sawNullKey: boolean }): void {
    if (state.sawNullKey) this.#probeSawNullKey = true;
    this.#parts.forEach((p, i) => {
      const into = p.matched.words;
      const from = state.matched[i]!;
      for (let w = 0; w < into.length; w++) into[w]! |= from[w]!;
    });
  }

  /**
   * One probe batch: its keys normalised once; with one partition they probe its table directly,
   * partitioned each partition's piece probes its own (see the module comment).
   */
  *#probeBatch(batch: RecordBatch): Generator<RecordBatch> {
    const rows = batch.numRows;
    if (rows === 0) return;
    const roles = this.#roles;
    const parts = this.#parts;
    const keys = normalizeKeys(batch, this.#probeKeys, this.#join.keyKinds);
    const probeNulls = anyNullMask(keys);
    if (probeNulls !== null && probeNulls.includes(1)) this.#probeSawNullKey = true;
    const needProbeMatched = roles.keepUnmatchedProbe || roles.probeRows !== null;
    if (needProbeMatched && this.#probeFlags.length < rows) this.#probeFlags = new Uint8Array(Math.max(rows, 2 * this.#probeFlags.length));
    const probeMatched = needProbeMatched ? this.#probeFlags.subarray(0, rows).fill(0) : null;
    this.#reserveScratch(batch, keys, rows);
    const probeSource = new RowSource([batch], batch.schema);
    this.#passedThrough = false;
    if (parts.length === 1) yield* this.#probePart(parts[0]!, batch, probeSource, keys, null, probeMatched);
    else {
      const order = partitionOrder(keys, rows, parts.length, this.#partitionScratch);
      for (let p = 0; p < parts.length; p++) {
        const ids = order.rows.subarray(order.start[p]!, order.start[p + 1]!);
        if (ids.length > 0 && parts[p]!.rows > 0) yield* this.#probePart(parts[p]!, batch, probeSource, takeKeyRows(keys, ids, this.#pieceScratch[p]), ids, probeMatched);
      }
    }
    if (roles.keepUnmatchedProbe && !this.#passedThrough) {
      // build side all NULL (row id -1): any partition's source has the build schema
      yield* unmatchedPairs(this.#pairs!, roles.probe, probeSource, probeMatched!, rows, parts[0]!.source, this.#batchSize, this.#outBuild.fill(-1));
    }
    if (roles.probeRows !== null) {
      let notIn: Uint8Array | null = null;
      if (roles.nullAwareOuter === 'probe') {
        const filter = this.#join.filter;
        notIn = filter
          ? probeSurvivors(filter, roles.probe, batch, probeMatched!, probeNulls, parts)
          : notInSurvivors(probeMatched!, probeNulls, this.#facts?.buildEmpty ?? this.buildRowsTotal === 0, this.#facts?.buildHasNullKey ?? this.#buildHasNullKey);
      }
      yield* sideRows(this.#probeSide!, probeSource, roles.probeRows, probeMatched!, notIn, this.#batchSize);
    }
    // a filtered NOT IN on the build side: the whole batch's rows are inner rows of every build row
    this.#notIn?.observe(batch, probeNulls);
  }

  /**
   * Probes one partition's table with `keys` — the batch's own, or (partitioned) those of the batch
   * rows `ids` — and handles the pairs found, with probe rows as row ids of `batch`.
   */
  *#probePart(part: PartitionBuild, batch: RecordBatch, probeSource: RowSource, keys: readonly KeyColumn[], ids: Int32Array | null, probeMatched: Uint8Array | null): Generator<RecordBatch> {
    if (part.rows === 0) return;
    const roles = this.#roles;
    const filter = this.#join.filter;
    const outProbe = this.#outProbe;
    const outBuild = this.#outBuild;
    const rows = keys[0]!.length;
    const [leftSrc, rightSrc] = roles.probe === 'left' ? [probeSource, part.source] : [part.source, probeSource];
    const [leftIdx, rightIdx] = roles.probe === 'left' ? [outProbe, outBuild] : [outBuild, outProbe];
    const markBuild = roles.keepUnmatchedBuild || roles.buildRows !== null;
    let hashes = NO_PROBE_HASHES;
    if (part.table.needsProbeHashes !== false) {
      if (this.#probeHashes.length < rows) this.#probeHashes = new Uint32Array(Math.max(rows, 2 * this.#probeHashes.length));
      hashes = hashKeys(keys, TABLE_SEED, this.#probeHashes);
    }
    const input = { keys, hashes, rows };
    const cursor = new ProbeCursor();
    if (this.#passthrough && ids === null) {
      const done = yield* this.#probePassthrough(part, batch, probeSource, input, cursor, probeMatched!);
      if (done) return;
    }
    while (!cursor.done) {
      let n = part.table.probe(input, cursor, outProbe, outBuild, this.#batchSize);
      if (n === 0) continue;
      if (ids !== null) for (let k = 0; k < n; k++) outProbe[k] = ids[outProbe[k]!]!;
      if (filter) n = keepPassingPairs(evaluatePairs(filter, roles.probe, batch, outProbe, part.batch!, outBuild, n), outProbe, outBuild, n);
      bump(this.#ctx.metrics, 'pairsMatched', n);
      if (probeMatched) for (let k = 0; k < n; k++) probeMatched[outProbe[k]!] = 1;
      if (markBuild) for (let k = 0; k < n; k++) part.matched.set(outBuild[k]!);
      if (roles.emitPairs && n > 0) yield this.#pairs!.pairBatch(leftSrc, leftIdx, rightSrc, rightIdx, 0, n);
    }
  }

  /**
   * The passthrough's probe of one batch (module comment): returns true when the batch's whole
   * output was emitted in probe order; false when a probe row had a second match — the pairs
   * collected until then are emitted as ordinary pairs and `cursor` is where the caller goes on.
   */
  *#probePassthrough(part: PartitionBuild, batch: RecordBatch, probeSource: RowSource, input: { keys: readonly KeyColumn[]; hashes: Uint32Array; rows: number }, cursor: ProbeCursor, probeMatched: Uint8Array): Generator<RecordBatch, boolean> {
    const rows = input.rows;
    if (this.#buildOf.length < rows) this.#buildOf = new Int32Array(Math.max(rows, 2 * this.#buildOf.length));
    const buildOf = this.#buildOf.subarray(0, rows).fill(-1);
    const outProbe = this.#outProbe;
    const outBuild = this.#outBuild;
    const markBuild = this.#roles.keepUnmatchedBuild || this.#roles.buildRows !== null;
    let last = -1;
    while (!cursor.done) {
      const n = part.table.probe(input, cursor, outProbe, outBuild, this.#batchSize);
      bump(this.#ctx.metrics, 'pairsMatched', n);
      let k = 0;
      for (; k < n; k++) {
        const r = outProbe[k]!;
        if (r <= last) break;
        last = r;
        buildOf[r] = outBuild[k]!;
        probeMatched[r] = 1;
        if (markBuild) part.matched.set(outBuild[k]!);
      }
      if (k < n) {
        // a second match: the build has duplicate keys, so no later batch is tried either
        this.#passthrough = false;
        for (let j = k; j < n; j++) {
          probeMatched[outProbe[j]!] = 1;
          if (markBuild) part.matched.set(outBuild[j]!);
        }
        const [leftSrc, rightSrc] = this.#roles.probe === 'left' ? [probeSource, part.source] : [part.source, probeSource];
        const emit = (probeIdx: Int32Array, buildIdx: Int32Array, start: number, count: number) =>
          this.#roles.probe === 'left' ? this.#pairs!.pairBatch(leftSrc, probeIdx, rightSrc, buildIdx, start, count) : this.#pairs!.pairBatch(leftSrc, buildIdx, rightSrc, probeIdx, start, count);
        yield* this.#collectedPairs(buildOf, last + 1, emit);
        yield emit(outProbe, outBuild, k, n - k);
        return false;
      }
    }
    for (let start = 0; start < rows; start += this.#batchSize) {
      const count = Math.min(this.#batchSize, rows - start);
      yield this.#pairs!.paddedBatch(this.#roles.probe, batch, start, count, part.source, buildOf.subarray(start, start + count));
    }
    this.#passedThrough = true;
    return true;
  }

  /** The pairs a refuted passthrough had collected (probe rows below `end` with a build row), in batches. */
  *#collectedPairs(buildOf: Int32Array, end: number, emit: (probeIdx: Int32Array, buildIdx: Int32Array, start: number, count: number) => RecordBatch): Generator<RecordBatch> {
    const probeIdx = new Int32Array(this.#batchSize);
    const buildIdx = new Int32Array(this.#batchSize);
    let n = 0;
    for (let r = 0; r < end; r++) {
      if (buildOf[r]! < 0) continue;
      probeIdx[n] = r;
      buildIdx[n++] = buildOf[r]!;
      if (n === this.#batchSize) {
        yield emit(probeIdx, buildIdx, 0, n);
        n = 0;
      }
    }
    if (n > 0) yield emit(probeIdx, buildIdx, 0, n);
  }

  /** After the probe input: per partition, its unmatched build rows and its semi/anti/mark rows. */
  *#buildSideOutput(probeScan: Pick<Scan, 'schema' | 'numRows'>): Generator<RecordBatch> {
    const roles = this.#roles;
    if (!roles.keepUnmatchedBuild && roles.buildRows === null) return;
    const probeEmpty = new RowSource([], probeScan.schema);
    for (const part of this.#parts) {
      if (part.rows === 0) continue;
      const matched = part.matched.bytes();
      const asBytes = new Uint8Array(part.rows);
      for (let r = 0; r < part.rows; r++) asBytes[r] = (matched[r >> 3]! >> (r & 7)) & 1;
      if (roles.keepUnmatchedBuild) yield* unmatchedPairs(this.#pairs!, roles.build, part.source, asBytes, part.rows, probeEmpty, this.#batchSize);
      if (roles.buildRows !== null) {
        let notIn: Uint8Array | null = null;
        if (roles.nullAwareOuter === 'build') {
          notIn = this.#notIn !== null ? this.#notIn.survivors(part.index, asBytes) : notInSurvivors(asBytes, part.nullKeys, this.#facts?.probeEmpty ?? probeScan.numRows === 0, this.#facts?.probeHasNullKey ?? this.#probeSawNullKey);
        }
        yield* sideRows(this.#buildSide!, part.source, roles.buildRows, asBytes, notIn, this.#batchSize);
      }
    }
  }

  /**
   * Sizes the probe's scratch reservation to what it holds for this batch: the batch itself (the
   * scan handed it over; output gathers read it until the next one), the reusable arrays (hashes,
   * flags, pair buffers, partition order, piece keys), the batch's normalised keys, and the
   * per-batch row lists of unmatched / semi / anti output (at most a row id per probe row).
   * (`probeHashes` grows in `#probePart`, after this: it is counted at the rows it will reach.)
   */
  #reserveScratch(batch: RecordBatch, keys: readonly KeyColumn[], rows: number): void {
    let bytes = batchByteSize(batch) + Math.max(this.#probeHashes.byteLength, 4 * rows) + this.#probeFlags.byteLength + this.#outProbe.byteLength + this.#outBuild.byteLength;
    bytes += this.#partitionScratch.bytes + 4 * rows + this.#buildOf.byteLength;
    for (const p of this.#pieceScratch) bytes += p.bytes;
    for (const k of keys) bytes += keyColumnBytes(k);
    if (bytes !== this.#scratch.size) this.#scratch.resize(bytes);
  }
}
