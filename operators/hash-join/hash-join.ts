/**
 * The hash join (`join=hash`): build a hash table over one input, publish a dynamic filter for
 * the other, then stream the other input through the table.
 *
 * - `hash.build` = left | right | auto (auto: the side with fewer rows by metadata, left on a
 *   tie); the other side is the probe and is the one the dynamic filter is pushed into.
 * - `hash.mode` = collect-left (one build shared by every probe batch) | partitioned (both sides
 *   hash-partitioned on the key into `hash.partitions` independent builds; each probe batch is
 *   split and each piece probes its own partition's table).
 * - The filter is composed from every partition's filter only once *all* partitions are built
 *   (a filter from some partitions would drop rows that belong to the others), and only when
 *   unmatched probe rows cannot reach the output (see roles.ts).
 *
 * Per probe batch: normalise + hash the keys once, walk the table in chunks of `batchSize` pairs
 * (a probe row with a million matches does not blow up one batch), apply the residual filter to
 * each chunk, record matches (a byte per probe row, a bit per build row), and gather output.
 * Build-side results (unmatched rows of an outer join, build-side semi/anti/mark) are emitted
 * after the probe input is exhausted.
 *
 * NOT IN (null-aware anti): with the probe side returned, a probe row survives iff the build is
 * empty, or its key is not NULL, no build key is NULL and it matched nothing. With the build side
 * returned, the same rule over the probe input — whose emptiness is judged from metadata
 * (`numRows`), because the dynamic filter may legitimately remove every probe row. With a residual
 * filter each outer row has its own inner set (the rows the filter passes): not-in.ts.
 */
import type { RecordBatch } from 'apache-arrow';
import { RowSource } from '../../core/arrow/gather.ts';
import { batchByteSize } from '../../core/arrow/size.ts';
import { NO_PROBE_HASHES, ProbeCursor } from '../../core/hashmap.ts';
import type { JoinAlgorithm, JoinContext, JoinInputs } from '../../core/join-algorithm.ts';
import { hashKeys } from '../../core/keys/hash.ts';
import { anyNullMask, normalizeKeys } from '../../core/keys/normalize.ts';
import { KeyRowsScratch, takeKeyRows } from '../../core/keys/take.ts';
import { TABLE_SEED } from '../../core/keys/partition.ts';
import { keyColumnBytes, type KeyColumn } from '../../core/keys/types.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import { bump } from '../../core/metrics.ts';
import type { BoundJoin } from '../../core/plan.ts';
import { HASHMAP, PUSHDOWN } from '../../core/registry/slots.ts';
import type { Side } from '../../core/types.ts';
import { publishWhenComplete } from '../../core/pushdown/compose.ts';
import { collectScan } from '../common/collect.ts';
import { OutputPlan } from '../common/output.ts';
import { rowsWhere } from '../../core/selection.ts';
import { DynamicFilter, type Scan } from '../../core/scan/scan.ts';
import { buildPartitions, partitionOrder, PartitionScratch, type PartitionBuild } from './build.ts';
import { FilteredNotInState, probeSurvivors } from './not-in.ts';
import { joinRoles, type JoinRoles } from '../common/roles.ts';

/** Everything one run of the join shares across probe batches. */
interface RunState {
  readonly join: BoundJoin;
  readonly roles: JoinRoles;
  readonly ctx: JoinContext;
  readonly parts: readonly PartitionBuild[];
  readonly probeKeys: readonly string[];
  readonly buildRowsTotal: number;
  readonly buildHasNullKey: boolean;
  readonly batchSize: number;
  readonly outProbe: Int32Array;
  readonly outBuild: Int32Array;
  /** Output of pairs (inner/outer joins), of the probe side's rows, of the build side's rows. */
  readonly pairs: OutputPlan | null;
  readonly probeSide: OutputPlan | null;
  readonly buildSide: OutputPlan | null;
  probeSawNullKey: boolean;
  /**
   * Per-batch scratch, reused across probe batches: a fresh 64K-row array per batch costs more in
   * first-touch page faults than in use (~0.6 ms per MB on this class of VM).
   */
  probeHashes: Uint32Array;
  probeFlags: Uint8Array;
  readonly partitionScratch: PartitionScratch;
  /** Per partition: the buffers of its piece's key columns (reused batch after batch). */
  readonly pieceScratch: readonly KeyRowsScratch[];
  /** NOT IN with a residual filter whose outer side is the build (not-in.ts). */
  readonly notIn: FilteredNotInState | null;
  /** The probe's scratch arrays and current batch's normalised keys, as reserved in the pool. */
  readonly scratch: Reservation;
}

export class HashJoin implements JoinAlgorithm {
  readonly name = 'hash';
  readonly description = 'hash join: build a hash table on one side, publish a dynamic filter, stream the other side';

  unsupportedReason(join: BoundJoin): string | null {
    if (join.spec.on.length === 0) return 'it needs at least one equi-key (--on); use --algorithm nested-loop for a pure range predicate';
    if (join.spec.range) return 'a range predicate beside equi-keys is not supported; express it as --filter';
    return null;
  }

  async *execute(join: BoundJoin, inputs: JoinInputs, ctx: JoinContext): AsyncIterable<RecordBatch> {
    const started = performance.now();
    const { config } = ctx;
    const build: Side = config['hash.build'] === 'auto' ? (inputs.right.numRows < inputs.left.numRows ? 'right' : 'left') : config['hash.build'];
    const roles = joinRoles(join.spec, build);
    const buildScan = inputs[build];
    const probeScan = inputs[roles.probe];
    const partitions = config['hash.mode'] === 'partitioned' ? config['hash.partitions'] : 1;
    const reservation = ctx.pool.reservation('hash-join build');
    const scratch = ctx.pool.reservation('hash-join probe scratch');
    let parts: PartitionBuild[] | null = null;
    const m = ctx.metrics;
    m.details.build = build;
    m.details.mode = config['hash.mode'];
    try {
      const layout = ctx.registry.resolve(HASHMAP, config.hashmap);
      const policy = ctx.registry.resolve(PUSHDOWN, config.pushdown);
      const buildKeys = build === 'left' ? join.leftKeys : join.rightKeys;
      const probeKeys = build === 'left' ? join.rightKeys : join.leftKeys;
      // The dynamic filter is published by a barrier that every partition reports to as its table
      // completes: only the last report publishes (a filter of some partitions drops rows).
      const filter = new DynamicFilter();
      const barrier = roles.canPushDown
        ? publishWhenComplete(filter, {
            policy,
            count: partitions,
            ctx: {
              config,
              keyKinds: join.keyKinds,
              probeTypes: probeKeys.map((k) => probeScan.schema.fields.find((f) => f.name === k)!.type),
              probeColumns: probeKeys,
            },
            routed: partitions > 1,
            keepNullKeys: roles.keepProbeNullKeys,
          })
        : null;
      const buildStarted = performance.now();
      parts = await buildPartitions(await collectScan(buildScan, reservation, { signal: ctx.signal }), {
        schema: buildScan.schema,
        keyColumns: buildKeys,
        kinds: join.keyKinds,
        partitions,
        layout,
        nullEqualsNull: join.spec.nullEquality === 'null-equals-null',
        reservation,
        onBuilt: (p) => {
          if (barrier === null) return;
          const t = performance.now();
          barrier.report(p.index, { index: p.index, rows: p.rows, keys: p.keys, table: p.table, seed: TABLE_SEED, hashes: p.hashes });
          bump(m, 'filterPlanMs', performance.now() - t);
        },
        onFailed: (index) => barrier?.report(index, 'failed'),
        signal: ctx.signal,
      });
      const state: RunState = {
        join,
        roles,
        ctx,
        parts,
        probeKeys,
        buildRowsTotal: parts.reduce((n, p) => n + p.rows, 0),
        buildHasNullKey: parts.some((p) => p.nullKeys !== null && p.nullKeys.includes(1)),
        batchSize: config.batchSize,
        outProbe: new Int32Array(config.batchSize),
        outBuild: new Int32Array(config.batchSize),
        pairs: roles.emitPairs || roles.keepUnmatchedProbe || roles.keepUnmatchedBuild ? OutputPlan.pairs(join.output, join.leftSchema, join.rightSchema, ctx.pool) : null,
        probeSide: roles.probeRows !== null ? OutputPlan.oneSide(join.output, probeScan.schema, roles.probe, ctx.pool) : null,
        buildSide: roles.buildRows !== null ? OutputPlan.oneSide(join.output, buildScan.schema, build, ctx.pool) : null,
        probeSawNullKey: false,
        probeHashes: new Uint32Array(0),
        probeFlags: new Uint8Array(0),
        partitionScratch: new PartitionScratch(),
        pieceScratch: Array.from({ length: partitions }, () => new KeyRowsScratch()),
        notIn: roles.nullAwareOuter === 'build' && join.filter ? new FilteredNotInState(join.filter, build, parts) : null,
        scratch,
      };
      bump(m, 'buildRows', state.buildRowsTotal);
      bump(m, 'partitions', partitions);
      bump(m, 'hashTableBytes', parts.reduce((n, p) => n + p.table.memoryBytes, 0));
      bump(m, 'buildMs', performance.now() - buildStarted);
      m.details.hashmap = [...new Set(parts.filter((p) => p.rows > 0).map((p) => p.table.layout))].join(',') || 'empty';
      m.peakReservedBytes = Math.max(m.peakReservedBytes, reservation.size);
      m.details.dynamicFilter = roles.canPushDown
        ? (filter.current()?.description ?? 'none')
        : `none (unmatched ${roles.probe} rows reach the output of a ${join.spec.type} join)`;

      for await (const batch of probeScan.batches({ filter, signal: ctx.signal })) {
        bump(m, 'probeRows', batch.numRows);
        yield* this.#probeBatch(state, batch);
      }
      yield* this.#buildSideOutput(state, probeScan);
      const published = filter.current();
      if (published?.rowTestSummary) m.details.rowFilter = published.rowTestSummary();
    } finally {
      // nothing probes the tables any more (the probe input is exhausted or abandoned)
      for (const p of parts ?? []) p.table.release?.();
      m.peakReservedBytes = Math.max(m.peakReservedBytes, reservation.peak + scratch.peak);
      reservation.free();
      scratch.free();
      m.elapsedMs += performance.now() - started;
    }
  }

  /**
   * One probe batch: its keys normalised once; with one partition they probe its table directly.
   * Partitioned, each partition's rows (a counting sort of their partition ids) probe that
   * partition's table with their own key columns only (`takeKeyRows`), and every pair found is
   * mapped back to the batch's row ids — so residual filters, match flags and output gathers all
   * work on the one original batch, and no other probe column is ever copied per partition.
   * Probe-side results (unmatched rows of an outer join, semi/anti/mark rows) are then emitted once
   * for the whole batch.
   */
  *#probeBatch(s: RunState, batch: RecordBatch): Generator<RecordBatch> {
    const rows = batch.numRows;
    if (rows === 0) return;
    const { roles, join, outProbe, outBuild } = s;
    const keys = normalizeKeys(batch, s.probeKeys, s.join.keyKinds);
    const probeNulls = anyNullMask(keys);
    if (probeNulls !== null && probeNulls.includes(1)) s.probeSawNullKey = true;
    const needProbeMatched = roles.keepUnmatchedProbe || roles.probeRows !== null;
    if (needProbeMatched && s.probeFlags.length < rows) s.probeFlags = new Uint8Array(Math.max(rows, 2 * s.probeFlags.length));
    const probeMatched = needProbeMatched ? s.probeFlags.subarray(0, rows).fill(0) : null;
    reserveScratch(s, batch, keys, rows);
    const probeSource = new RowSource([batch], batch.schema);
    if (s.parts.length === 1) yield* this.#probePart(s, s.parts[0]!, batch, probeSource, keys, null, probeMatched);
    else {
      const order = partitionOrder(keys, rows, s.parts.length, s.partitionScratch);
      for (let p = 0; p < s.parts.length; p++) {
        const ids = order.rows.subarray(order.start[p]!, order.start[p + 1]!);
        if (ids.length > 0 && s.parts[p]!.rows > 0) yield* this.#probePart(s, s.parts[p]!, batch, probeSource, takeKeyRows(keys, ids, s.pieceScratch[p]), ids, probeMatched);
      }
    }
    if (roles.keepUnmatchedProbe) {
      // build side all NULL (row id -1): any partition's source has the build schema
      const buildSource = s.parts[0]!.source;
      const [leftSrc, rightSrc, leftIdx, rightIdx] = roles.probe === 'left' ? [probeSource, buildSource, outProbe, outBuild] : [buildSource, probeSource, outBuild, outProbe];
      const unmatched = rowsWhere(probeMatched!, rows, 0);
      outBuild.fill(-1);
      for (let start = 0; start < unmatched.length; start += s.batchSize) {
        const n = Math.min(s.batchSize, unmatched.length - start);
        outProbe.set(unmatched.subarray(start, start + n));
        yield s.pairs!.pairBatch(leftSrc, leftIdx, rightSrc, rightIdx, 0, n);
      }
    }
    if (roles.probeRows !== null) {
      let notIn: Uint8Array | null = null;
      if (roles.nullAwareOuter === 'probe') {
        notIn = join.filter
          ? probeSurvivors(join.filter, roles.probe, batch, probeMatched!, probeNulls, s.parts)
          : notInSurvivors(probeMatched!, probeNulls, s.buildRowsTotal === 0, s.buildHasNullKey);
      }
      yield* this.#rowOutput(s, s.probeSide!, probeSource, roles.probeRows, probeMatched!, notIn);
    }
    // a filtered NOT IN on the build side: the whole batch's rows are inner rows of every build row
    s.notIn?.observe(batch, probeNulls);
  }

  /**
   * Probes one partition's table with `keys` — the batch's own, or (partitioned) those of the batch
   * rows `ids` — and handles the pairs found, with probe rows as row ids of `batch`.
   */
  *#probePart(
    s: RunState,
    part: PartitionBuild,
    batch: RecordBatch,
    probeSource: RowSource,
    keys: readonly KeyColumn[],
    ids: Int32Array | null,
    probeMatched: Uint8Array | null,
  ): Generator<RecordBatch> {
    if (part.rows === 0) return;
    const { roles, join, outProbe, outBuild } = s;
    const rows = keys[0]!.length;
    const [leftSrc, rightSrc] = roles.probe === 'left' ? [probeSource, part.source] : [part.source, probeSource];
    const [leftIdx, rightIdx] = roles.probe === 'left' ? [outProbe, outBuild] : [outBuild, outProbe];
    const markBuild = roles.keepUnmatchedBuild || roles.buildRows !== null;
    let hashes = NO_PROBE_HASHES;
    if (part.table.needsProbeHashes !== false) {
      if (s.probeHashes.length < rows) s.probeHashes = new Uint32Array(Math.max(rows, 2 * s.probeHashes.length));
      hashes = hashKeys(keys, TABLE_SEED, s.probeHashes);
    }
    const input = { keys, hashes, rows };
    const cursor = new ProbeCursor();
    while (!cursor.done) {
      let n = part.table.probe(input, cursor, outProbe, outBuild, s.batchSize);
      if (n === 0) continue;
      if (ids !== null) for (let k = 0; k < n; k++) outProbe[k] = ids[outProbe[k]!]!;
      if (join.filter) n = this.#applyFilter(s, batch, part, n);
      bump(s.ctx.metrics, 'pairsMatched', n);
      if (probeMatched) for (let k = 0; k < n; k++) probeMatched[outProbe[k]!] = 1;
      if (markBuild) for (let k = 0; k < n; k++) part.matched.set(outBuild[k]!);
      if (roles.emitPairs && n > 0) yield s.pairs!.pairBatch(leftSrc, leftIdx, rightSrc, rightIdx, 0, n);
    }
  }

  /** Keeps the first `n` pairs that pass the residual filter (compacted in place); returns the count. */
  #applyFilter(s: RunState, probe: RecordBatch, part: PartitionBuild, n: number): number {
    const { outProbe, outBuild } = s;
    const pass =
      s.roles.probe === 'left'
        ? s.join.filter!.evaluate(probe, outProbe, part.batch!, outBuild, n)
        : s.join.filter!.evaluate(part.batch!, outBuild, probe, outProbe, n);
    let w = 0;
    for (let k = 0; k < n; k++) {
      if (pass[k] === 1) {
        outProbe[w] = outProbe[k]!;
        outBuild[w++] = outBuild[k]!;
      }
    }
    return w;
  }

  /**
   * semi / anti / mark rows of one source; `notIn` (null-aware anti) replaces the anti rule.
   * `matched` and `notIn` hold 0/1 per row, so the rows kept are compacted without a branch on
   * the data (an anti join's output is most of the probe: 9.5M of 10M rows in the benchmark).
   */
  *#rowOutput(s: RunState, plan: OutputPlan, src: RowSource, kind: 'semi' | 'anti' | 'mark', matched: Uint8Array, notIn: Uint8Array | null): Generator<RecordBatch> {
    const rows = src.numRows;
    const idx = new Int32Array(Math.min(s.batchSize, Math.max(1, rows)));
    if (kind === 'mark') {
      // every row, with its match flag
      for (let start = 0; start < rows; start += idx.length) {
        const n = Math.min(idx.length, rows - start);
        for (let k = 0; k < n; k++) idx[k] = start + k;
        yield plan.sideBatch(src, idx, 0, n, matched.subarray(start, start + n));
      }
      return;
    }
    // semi keeps matched rows, NOT IN its survivors, anti the unmatched (1 - matched)
    const keep = kind === 'semi' ? matched : notIn;
    const flip = keep === null ? 1 : 0;
    const flags = keep ?? matched;
    let n = 0;
    for (let r = 0; r < rows; r++) {
      idx[n] = r;
      n += flags[r]! ^ flip;
      if (n === idx.length) {
        yield plan.sideBatch(src, idx, 0, n, null);
        n = 0;
      }
    }
    if (n > 0) yield plan.sideBatch(src, idx, 0, n, null);
  }

  *#buildSideOutput(s: RunState, probeScan: Scan): Generator<RecordBatch> {
    const { roles, join } = s;
    if (!roles.keepUnmatchedBuild && roles.buildRows === null) return;
    const probeEmpty = new RowSource([], probeScan.schema);
    for (const part of s.parts) {
      if (part.rows === 0) continue;
      const matched = part.matched.bytes();
      const asBytes = new Uint8Array(part.rows);
      for (let r = 0; r < part.rows; r++) asBytes[r] = (matched[r >> 3]! >> (r & 7)) & 1;
      if (roles.keepUnmatchedBuild) {
        const unmatched = rowsWhere(asBytes, part.rows, 0);
        const none = new Int32Array(Math.min(s.batchSize, unmatched.length)).fill(-1);
        for (let start = 0; start < unmatched.length; start += s.batchSize) {
          const n = Math.min(s.batchSize, unmatched.length - start);
          const ids = unmatched.subarray(start, start + n);
          yield roles.build === 'left' ? s.pairs!.pairBatch(part.source, ids, probeEmpty, none, 0, n) : s.pairs!.pairBatch(probeEmpty, none, part.source, ids, 0, n);
        }
      }
      if (roles.buildRows !== null) {
        let notIn: Uint8Array | null = null;
        if (roles.nullAwareOuter === 'build') {
          notIn = s.notIn !== null ? s.notIn.survivors(part.index, asBytes) : notInSurvivors(asBytes, part.nullKeys, probeScan.numRows === 0, s.probeSawNullKey);
        }
        yield* this.#rowOutput(s, s.buildSide!, part.source, roles.buildRows, asBytes, notIn);
      }
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
function reserveScratch(s: RunState, batch: RecordBatch, keys: readonly KeyColumn[], rows: number): void {
  let bytes = batchByteSize(batch) + Math.max(s.probeHashes.byteLength, 4 * rows) + s.probeFlags.byteLength + s.outProbe.byteLength + s.outBuild.byteLength;
  bytes += s.partitionScratch.bytes + 4 * rows;
  for (const p of s.pieceScratch) bytes += p.bytes;
  for (const k of keys) bytes += keyColumnBytes(k);
  if (bytes !== s.scratch.size) s.scratch.resize(bytes);
}

/**
 * NOT IN survivors among the outer rows: all of them when the inner input is empty; otherwise
 * those with a non-NULL key that matched nothing, and none at all if the inner input has a NULL.
 */
function notInSurvivors(matched: Uint8Array, outerNulls: Uint8Array | null, innerEmpty: boolean, innerHasNull: boolean): Uint8Array {
  const keep = new Uint8Array(matched.length);
  if (innerEmpty) return keep.fill(1);
  if (innerHasNull) return keep;
  for (let r = 0; r < matched.length; r++) keep[r] = matched[r] === 0 && !(outerNulls !== null && outerNulls[r] === 1) ? 1 : 0;
  return keep;
}
