/**
 * The grace hash join (`hash.spill=auto`): when the build side does not fit in what the memory
 * pool can give, both inputs are hash-partitioned on the join key into spill files (Arrow IPC, the
 * engine's SpillManager), and the partition pairs are joined one at a time, each by the ordinary
 * in-memory hash join (in-memory.ts). A partition whose build side still does not fit is
 * partitioned again, with the next level's seed, recursively.
 *
 * Why it is right: equal keys hash alike, so every row that can match a build row lands in that
 * row's partition — on both sides, since both sides' keys are normalised to the same words
 * (core/keys/normalize.ts) before hashing. NULL keys hash alike too: under null-equals-null they
 * meet in one partition, and otherwise they match nothing wherever they land. So inner, outer,
 * semi, anti and mark joins are each the union of the partition pairs' answers. NOT IN is not:
 * whether the inner side is empty, or holds a NULL key, is a fact about the whole input, so the
 * partition joins are given those facts (`NotInFacts`, gathered while partitioning). A NOT IN with
 * a residual filter never comes here (hash-join.ts keeps it in memory): each outer row's inner set
 * is then every inner row the filter passes, in every partition (operators/hash-join/not-in.ts).
 *
 * Seeds: each level partitions with its own seed, different from the table's (TABLE_SEED) and the
 * partitioned mode's (PARTITION_SEED) — with a shared seed every row of a partition would share the
 * hash bits that chose it, and the next level (or the partition's table) could not spread them.
 *
 * The dynamic filter: the probe scan still gets one, published once the whole build side has been
 * partitioned — from a summary that covers every partition (the build keys' per-column extremes),
 * given to the `bounds` policy. A filter from the in-memory part alone would drop the matches of
 * the spilled rows; the configured policy's own filter (a Bloom filter, a hash map) would need
 * every key in memory, which is what did not fit. Metrics say so (`details.dynamicFilter`).
 *
 * Skew: a partition that does not fit and whose rows all share one key cannot be split by any
 * seed. That is a MemoryLimitError naming the key and its row count (the sort-merge join, which
 * spills one key's rows, runs such a join). A partition that does not split at MAX_LEVELS is the
 * same error.
 *
 * Spill files: each partition's files are deleted as soon as its pair is joined; on an error or an
 * abort the writers still open are aborted, and the engine's SpillManager removes its directory
 * when the run ends, however it ends (core/engine.ts).
 *
 * The literature: DeWitt et al., "Implementation techniques for main memory database systems"
 * (SIGMOD 1984) and Kitsuregawa et al.'s GRACE; DuckDB's radix-partitioned external hash join
 * (src/execution/operator/join/physical_hash_join.cpp, `PrepareExternalFinalize`) spills
 * partitions of the build and probes them in rounds the same way.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { concatBatches } from '../../core/arrow/gather.ts';
import { batchByteSize } from '../../core/arrow/size.ts';
import type { JoinContext } from '../../core/join-algorithm.ts';
import { hashKeys } from '../../core/keys/hash.ts';
import { anyNullMask, normalizeKeys } from '../../core/keys/normalize.ts';
import { groupRowsByPartition, partitionOfHash, TABLE_SEED } from '../../core/keys/partition.ts';
import { isBytesKey, type KeyColumn } from '../../core/keys/types.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import type { SpillFile, SpillWriter } from '../../core/memory/spill.ts';
import { bump } from '../../core/metrics.ts';
import { Pacer } from '../../core/next-turn.ts';
import type { BoundJoin } from '../../core/plan.ts';
import { publishWhenComplete } from '../../core/pushdown/compose.ts';
import { PUSHDOWN } from '../../core/registry/slots.ts';
import { takeRows } from '../../core/scan/batch-shape.ts';
import { formatKeyValue, keyValueAt } from '../../core/scan/key-stats.ts';
import { DynamicFilter, type Scan } from '../../core/scan/scan.ts';
import { EMPTY_TABLE } from './build.ts';
import { BuildKeySummary } from './build-summary.ts';
import { joinInMemory } from './in-memory.ts';
import type { HashJoinPlan } from './plan.ts';
import { probeScanOptions, type NotInFacts } from './probe.ts';
import { SpilledScan } from './spilled-scan.ts';

/** Levels of repartitioning before a partition that still does not fit is reported as skew. */
export const MAX_LEVELS = 16;
/** Fan-out bounds per level (open spill files per side while partitioning). */
export const MIN_FAN_OUT = 4;
export const MAX_FAN_OUT = 128;

/** Each level's partitioning seed (distinct from TABLE_SEED and PARTITION_SEED). */
export function levelSeed(level: number): number {
  return (0x5bd1e995 + Math.imul(level + 1, 0x27d4eb2f)) >>> 0;
}

/**
 * Bytes a build side of `rows` rows and `bytes` Arrow bytes needs to be joined in memory: its
 * batches and their concatenation (build.ts copies them into one batch before releasing them),
 * and per row the normalised keys, a hash, a NULL byte, a match bit and the table (at most ~40
 * bytes a row for every built-in layout at its load factor). Over-estimating only spills earlier.
 */
export function inMemoryBytes(rows: number, bytes: number, keyBytesPerRow: number): number {
  return 2 * bytes + rows * (48 + keyBytesPerRow);
}

/** Bytes per row of the normalised key columns of `plan` (a byte-string key: its offsets and codes). */
export function keyBytesPerRow(plan: HashJoinPlan): number {
  return plan.keyKinds.reduce((n, k) => n + (k.width === 0 ? 8 : 4 * k.width), 0);
}

export interface GraceRun {
  readonly join: BoundJoin;
  readonly plan: HashJoinPlan;
  readonly ctx: JoinContext;
  readonly buildScan: Scan;
  readonly probeScan: Scan;
  /**
   * The build batches collected before the pool said no (their bytes are in `reservation`); the
   * grace join empties the array once they are written, so they can be collected as garbage.
   */
  readonly held: RecordBatch[];
  /** The rest of the build input, after `held`. */
  readonly rest: AsyncIterator<RecordBatch>;
  readonly reservation: Reservation;
  readonly scratch: Reservation;
  /** The probe scan's filter: the summary's filter is published into it. */
  readonly filter: DynamicFilter;
}

/** One side's rows of one partition, spilled (null: no rows). */
type Spilled = SpillFile | null;

export async function* graceHashJoin(g: GraceRun): AsyncGenerator<RecordBatch> {
  const { join, plan, ctx } = g;
  const m = ctx.metrics;
  if (join.spec.nullAware && join.filter) throw new Error('internal: a NOT IN with a residual filter cannot spill (hash-join.ts keeps it in memory)');
  const keyBytes = keyBytesPerRow(plan);
  const heldBytes = g.held.reduce((n, b) => n + batchByteSize(b), 0);
  const heldReserved = g.reservation.size; // the held batches but the last (collectWhileFits)
  const heldRows = g.held.reduce((n, b) => n + b.numRows, 0);
  const bytesPerRow = heldRows > 0 ? heldBytes / heldRows : 64;
  const expected = inMemoryBytes(g.buildScan.numRows, bytesPerRow * g.buildScan.numRows, keyBytes);
  const fanOut = fanOutFor(expected, budget(ctx, g.reservation), ctx.config['hash.spillPartitions']);
  const started = performance.now();
  m.details.spill = `grace hash join: ${fanOut} partitions over 1 level`;
  bump(m, 'gracePartitions', fanOut);
  m.counters.graceLevels = 1;

  // 1. The build side, into fanOut files, summarised on the way.
  const summary = new BuildKeySummary(plan.buildKeys, plan.keyKinds);
  const facts = { buildEmpty: false, buildHasNullKey: false, probeEmpty: g.probeScan.numRows === 0, probeHasNullKey: false };
  const buildOut = new PartitionWriters(ctx, g.buildScan.schema, fanOut, plan.nullEqualsNull, g.reservation);
  const probeOut = new PartitionWriters(ctx, g.probeScan.schema, fanOut, plan.nullEqualsNull, g.reservation);
  try {
    const seed = levelSeed(0);
    const pacer = new Pacer(ctx.signal);
    const partitionBuild = async (b: RecordBatch) => {
      const keys = normalizeKeys(b, plan.buildKeys, plan.keyKinds);
      const nulls = anyNullMask(keys);
      if (nulls !== null && nulls.includes(1)) facts.buildHasNullKey = true;
      summary.add(b, keys, nulls);
      await buildOut.write(b, keys, nulls, seed);
    };
    for (const b of g.held) await partitionBuild(b);
    g.held.length = 0; // on disk now (or in the writers' buffers, reserved there): no longer held
    g.reservation.shrink(Math.min(heldReserved, g.reservation.size));
    for (let r = await g.rest.next(); !r.done; r = await g.rest.next()) {
      if (pacer.due()) await pacer.turn();
      if (r.value.numRows > 0) await partitionBuild(r.value);
    }
    const builds = await buildOut.finish();
    const buildRows = builds.reduce((n, f) => n + (f?.rows ?? 0), 0);
    facts.buildEmpty = buildRows === 0; // hash.spill=always spills an empty build too
    bump(m, 'buildRowsSpilled', buildRows);

    // 2. The filter from the summary of every partition, then the probe side into its files.
    publishSummary(g, summary);
    for await (const b of g.probeScan.batches(probeScanOptions(ctx.config, g.filter, ctx.signal))) {
      if (pacer.due()) await pacer.turn();
      if (b.numRows === 0) continue;
      bump(m, 'probeRowsSpilled', b.numRows); // probeRows: counted as each partition's join reads them back
      const keys = normalizeKeys(b, plan.probeKeys, plan.keyKinds);
      const nulls = anyNullMask(keys);
      if (nulls !== null && nulls.includes(1)) facts.probeHasNullKey = true;
      g.scratch.resize(batchByteSize(b));
      await probeOut.write(b, keys, nulls, seed);
    }
    g.scratch.resize(0);
    const probes = await probeOut.finish();
    bump(m, 'partitionMs', performance.now() - started);

    // 3. The pairs, one at a time.
    for (let p = 0; p < fanOut; p++) yield* joinPair(g, facts, builds[p] ?? null, probes[p] ?? null, 1);
  } finally {
    await buildOut.abort();
    await probeOut.abort();
  }
}

/** Joins one spilled partition pair: in memory when its build fits, else partitioned again at `level`. */
async function* joinPair(g: GraceRun, facts: NotInFacts, build: Spilled, probe: Spilled, level: number): AsyncGenerator<RecordBatch> {
  const { plan, ctx } = g;
  const roles = plan.roles;
  try {
    // what an empty side leaves to output: nothing, unless the other side's unmatched rows are kept
    const probeOutlivesEmptyBuild = roles.keepUnmatchedProbe || roles.probeRows === 'anti' || roles.probeRows === 'mark';
    const buildOutlivesEmptyProbe = roles.keepUnmatchedBuild || roles.buildRows !== null;
    if (build === null && (probe === null || !probeOutlivesEmptyBuild)) return;
    if (probe === null && (build === null || !buildOutlivesEmptyProbe)) return;
    const rows = build?.rows ?? 0;
    if (build === null || inMemoryBytes(rows, build.bytes, keyBytesPerRow(plan)) <= budget(ctx, g.reservation)) {
      yield* joinPairInMemory(g, facts, build, probe);
      return;
    }
    yield* repartitionPair(g, facts, build, probe, level);
  } finally {
    if (build !== null) await ctx.spill.delete(build);
    if (probe !== null) await ctx.spill.delete(probe);
  }
}

async function* joinPairInMemory(g: GraceRun, facts: NotInFacts, build: Spilled, probe: Spilled): AsyncGenerator<RecordBatch> {
  const { plan, ctx } = g;
  const reservation = g.reservation;
  const batches: RecordBatch[] = [];
  try {
    if (build !== null) {
      for await (const b of ctx.spill.read(build)) {
        ctx.signal?.throwIfAborted();
        reservation.grow(batchByteSize(b));
        batches.push(b);
      }
    }
    bump(ctx.metrics, 'gracePairsJoined');
    const probeScan = new SpilledScan(ctx.spill, probe, g.probeScan.schema);
    yield* joinInMemory({
      join: g.join,
      plan: { ...plan, mode: 'collect-left', partitions: 1, pushdown: null },
      buildBatches: batches,
      buildScan: { schema: g.buildScan.schema, numRows: build?.rows ?? 0 },
      probeScan,
      ctx,
      reservation,
      scratch: g.scratch,
      filter: new DynamicFilter(),
      barrier: null,
      workers: null,
      serial: 'a grace hash join partition',
      mayUseWorkers: false,
      buildOn: null,
      staticProbeRows: probe?.rows ?? 0,
      notIn: facts,
    });
    ctx.metrics.details.threads = '1 (the grace hash join joins its partition pairs on the calling thread)';
  } finally {
    ctx.metrics.peakReservedBytes = Math.max(ctx.metrics.peakReservedBytes, reservation.peak + g.scratch.peak);
    reservation.shrink(reservation.size);
  }
}

/** A partition pair whose build does not fit: both sides split again with the next level's seed. */
async function* repartitionPair(g: GraceRun, facts: NotInFacts, build: SpillFile, probe: Spilled, level: number): AsyncGenerator<RecordBatch> {
  const { plan, ctx } = g;
  const fanOut = fanOutFor(inMemoryBytes(build.rows, build.bytes, keyBytesPerRow(plan)), budget(ctx, g.reservation), ctx.config['hash.spillPartitions']);
  const seed = levelSeed(level);
  const builds = await splitFile(g, build, g.buildScan.schema, plan.buildKeys, fanOut, seed);
  const probes = probe === null ? new Array<Spilled>(fanOut).fill(null) : await splitFile(g, probe, g.probeScan.schema, plan.probeKeys, fanOut, seed);
  // the parent's files are no longer needed (joinPair's delete of them again is a no-op)
  await ctx.spill.delete(build);
  if (probe !== null) await ctx.spill.delete(probe);
  const c = ctx.metrics.counters;
  bump(ctx.metrics, 'gracePartitions', fanOut);
  c.graceLevels = Math.max(c.graceLevels ?? 1, level + 1);
  ctx.metrics.details.spill = `grace hash join: ${c.gracePartitions} partitions over ${c.graceLevels} levels`;
  const whole = builds.findIndex((f) => f !== null && f.rows === build.rows);
  if (whole >= 0) {
    // nothing split: one key (then no seed ever splits it), or a run of bad luck at every level
    const key = await singleKey(g, builds[whole]!);
    if (key !== null || level + 1 >= MAX_LEVELS) {
      for (const f of [...builds, ...probes]) if (f !== null) await ctx.spill.delete(f);
      throw ctx.pool.limitError(
        key !== null
          ? `hash-join build: key ${key} has ${build.rows} build rows (${build.bytes} bytes spilled), more than memory holds, and one key cannot be partitioned (join=sort-merge spills it)`
          : `hash-join build: a partition of ${build.rows} rows did not split in ${MAX_LEVELS} levels of repartitioning`,
        inMemoryBytes(build.rows, build.bytes, keyBytesPerRow(plan)),
      );
    }
  }
  for (let p = 0; p < fanOut; p++) {
    const b = builds[p] ?? null;
    const q = probes[p] ?? null;
    builds[p] = null;
    probes[p] = null;
    yield* joinPair(g, facts, b, q, level + 1);
  }
}

/** `file`'s rows split into `fanOut` files by the hash of `keyColumns` with `seed`. */
async function splitFile(g: GraceRun, file: SpillFile, schema: Schema, keyColumns: readonly string[], fanOut: number, seed: number): Promise<Spilled[]> {
  const out = new PartitionWriters(g.ctx, schema, fanOut, g.plan.nullEqualsNull, g.reservation);
  try {
    const pacer = new Pacer(g.ctx.signal);
    for await (const b of g.ctx.spill.read(file)) {
      if (pacer.due()) await pacer.turn();
      const keys = normalizeKeys(b, keyColumns, g.plan.keyKinds);
      await out.write(b, keys, anyNullMask(keys), seed);
    }
    return await out.finish();
  } finally {
    await out.abort();
  }
}

/**
 * The key every row of `file` holds, formatted, or null when there are two. (A NULL is a value
 * here: only under null-equals-null do NULL keys share a partition.) Read only for a partition
 * that did not split; it stops at the first row that differs.
 */
async function singleKey(g: GraceRun, file: SpillFile): Promise<string | null> {
  const { plan } = g;
  let first: { values: (Int32Array | Uint8Array | null)[]; text: string } | null = null;
  for await (const b of g.ctx.spill.read(file)) {
    const keys = normalizeKeys(b, plan.buildKeys, plan.keyKinds);
    first ??= { values: keys.map((c) => (c.nulls?.[0] === 1 ? null : isBytesKey(c) ? (keyValueAt(c, 0) as Uint8Array) : c.words.slice(0, c.kind.width))), text: describeKey(plan, keys, 0) };
    for (let c = 0; c < keys.length; c++) if (!allEqual(keys[c]!, b.numRows, first.values[c]!)) return null;
  }
  return first?.text ?? null;
}

/** Whether each of the first `rows` rows of `col` is `want` (null: NULL), compared word by word or byte by byte. */
function allEqual(col: KeyColumn, rows: number, want: Int32Array | Uint8Array | null): boolean {
  for (let r = 0; r < rows; r++) {
    const isNull = col.nulls !== null && col.nulls[r] === 1;
    if (isNull !== (want === null)) return false;
    if (isNull) continue;
    if (isBytesKey(col)) {
      const e = col.codes === null ? r : col.codes[r]!;
      const from = col.offsets[e]!;
      if (col.offsets[e + 1]! - from !== want!.length) return false;
      for (let j = 0; j < want!.length; j++) if (col.bytes[from + j] !== want![j]) return false;
    } else {
      const w = col.kind.width;
      for (let j = 0; j < w; j++) if (col.words[r * w + j] !== want![j]) return false;
    }
  }
  return true;
}

function describeKey(plan: HashJoinPlan, keys: readonly KeyColumn[], row: number): string {
  return plan.buildKeys.map((name, c) => `${name} = ${keys[c]!.nulls?.[row] === 1 ? 'NULL' : formatKeyValue(keys[c]!.kind, keyValueAt(keys[c]!, row))}`).join(', ');
}

/** Publishes the summary's bounds into the probe scan's filter when the plan pushes anything down. */
function publishSummary(g: GraceRun, summary: BuildKeySummary): void {
  const { plan, ctx } = g;
  const m = ctx.metrics;
  if (plan.pushdown === null) {
    m.details.dynamicFilter = `none (unmatched ${plan.roles.probe} rows reach the output of a ${g.join.spec.type} join)`;
    return;
  }
  if (plan.policy.publishesNothing === true || !ctx.registry.has(PUSHDOWN, 'bounds')) {
    m.details.dynamicFilter = 'none';
    return;
  }
  const t = performance.now();
  const bounds = ctx.registry.resolve(PUSHDOWN, 'bounds');
  const barrier = publishWhenComplete(g.filter, { ...plan.pushdown, policy: bounds, count: 1, routed: false });
  barrier.report(0, { index: 0, rows: summary.rows, keys: summary.keys(), table: EMPTY_TABLE, seed: TABLE_SEED });
  bump(m, 'filterPlanMs', performance.now() - t);
  const published = g.filter.current();
  m.details.dynamicFilter = `${published?.description ?? 'none'} (bounds of every spilled partition: policy '${plan.policy.name}' needs the keys in memory)`;
  m.details.dynamicFilterLabel = published === null ? 'none' : (published.label ?? published.description);
}

/**
 * What the pool could give this join's build now (what it holds counts as its own), less what
 * the probe's scratch takes beside it (pair buffers and per-batch arrays: ~16 bytes a row of
 * `batchSize`).
 */
function budget(ctx: JoinContext, reservation: Reservation): number {
  return ctx.pool.available + reservation.size - 16 * ctx.config.batchSize;
}

/**
 * Partitions for one level: `configured` (`hash.spillPartitions`) when set, else a power of two in
 * [MIN_FAN_OUT, MAX_FAN_OUT] so each partition's build is expected to fill at most half the budget.
 */
export function fanOutFor(need: number, available: number, configured = 0): number {
  if (configured > 0) return configured;
  const want = available > 0 ? Math.ceil((2 * need) / available) : MAX_FAN_OUT;
  let f = MIN_FAN_OUT;
  while (f < want && f < MAX_FAN_OUT) f *= 2;
  return f;
}

/** Rows a partition's buffer gathers before it is written as one IPC batch. */
export const FLUSH_ROWS = 16_384;

/**
 * One spill writer per partition, opened on its first rows (a partition that gets none has no
 * file). `write` splits a batch by the hash of its (normalised) keys — except, under
 * null-equals-nothing, rows with a NULL key: they match nothing anywhere, so they are dealt round
 * the partitions (hashed, they would all share one partition that no seed could ever split).
 *
 * Each partition's pieces are buffered until FLUSH_ROWS rows and written as one batch: a batch
 * split 64 ways is ~1,000-row pieces, and written as they come, each partition's file would be
 * thousands of tiny IPC messages — slow to write, and read back as tiny probe batches. The
 * buffers are reserved in `buffers` until written; when the pool says no, or they pass `cap`
 * bytes, the largest is written and the split waits for a write to end.
 */
class PartitionWriters {
  readonly #writers: (SpillWriter | null)[];
  readonly #pending: RecordBatch[][];
  readonly #pendingRows: Int32Array;
  readonly #pendingBytes: Float64Array;
  /** Bytes buffered or being written (all reserved in `#buffers`). */
  #buffered = 0;
  /** Per partition, its last write; and every write not ended yet. */
  readonly #chains: (Promise<void> | undefined)[] = [];
  readonly #writing = new Set<Promise<void>>();
  #failure: { readonly error: unknown } | null = null;
  readonly #ctx: JoinContext;
  readonly #schema: Schema;
  readonly #fanOut: number;
  readonly #buffers: Reservation;
  readonly #cap: number;
  #ids = new Int32Array(0);
  #hashes = new Uint32Array(0);
  #finished = false;
  readonly #hashNulls: boolean;
  #nextForNull = 0;

  constructor(ctx: JoinContext, schema: Schema, fanOut: number, nullEqualsNull: boolean, buffers: Reservation) {
    this.#hashNulls = nullEqualsNull;
    this.#ctx = ctx;
    this.#schema = schema;
    this.#fanOut = fanOut;
    this.#writers = new Array<SpillWriter | null>(fanOut).fill(null);
    this.#pending = Array.from({ length: fanOut }, () => []);
    this.#pendingRows = new Int32Array(fanOut);
    this.#pendingBytes = new Float64Array(fanOut);
    this.#buffers = buffers;
    this.#cap = Math.max(256 * 1024, budget(ctx, buffers) / 4);
  }

  async write(batch: RecordBatch, keys: readonly KeyColumn[], nulls: Uint8Array | null, seed: number): Promise<void> {
    const n = batch.numRows;
    if (n === 0) return;
    if (this.#ids.length < n) {
      this.#ids = new Int32Array(n);
      this.#hashes = new Uint32Array(n);
    }
    const ids = this.#ids.subarray(0, n);
    const h = hashKeys(keys, seed, this.#hashes);
    for (let r = 0; r < n; r++) ids[r] = partitionOfHash(h[r]!, this.#fanOut);
    if (nulls !== null && !this.#hashNulls) {
      let next = this.#nextForNull;
      for (let r = 0; r < n; r++) {
        if (nulls[r] === 0) continue;
        ids[r] = next;
        next = next + 1 === this.#fanOut ? 0 : next + 1;
      }
      this.#nextForNull = next;
    }
    const { start, rows } = groupRowsByPartition(ids, this.#fanOut, null, n);
    for (let p = 0; p < this.#fanOut; p++) {
      const from = start[p]!;
      const to = start[p + 1]!;
      if (from === to) continue;
      const piece = to - from === n ? batch : takeRows(batch, rows.subarray(from, to));
      const bytes = batchByteSize(piece);
      let reserved = false;
      for (;;) {
        if (this.#buffered + bytes <= this.#cap && this.#buffers.tryGrow(bytes)) {
          reserved = true;
          break;
        }
        if (this.#buffered === 0) break;
        // start writing the largest buffer, then wait for a write to end (and give its bytes back)
        const largest = this.#largest();
        if (this.#pendingBytes[largest]! > 0) this.#flush(largest);
        if (this.#writing.size === 0) break;
        await Promise.race(this.#writing);
      }
      if (!reserved) {
        // nothing buffered to give back and still no room: the piece (a view of the input batch,
        // held anyway) is written on its own, unbuffered
        await this.#chains[p];
        await (this.#writers[p] ??= this.#ctx.spill.writer(this.#schema)).append(piece);
        continue;
      }
      this.#pending[p]!.push(piece);
      this.#pendingRows[p]! += piece.numRows;
      this.#pendingBytes[p]! += bytes;
      this.#buffered += bytes;
      if (this.#pendingRows[p]! >= FLUSH_ROWS) this.#flush(p);
      this.#throwIfFailed();
    }
  }

  #largest(): number {
    let best = 0;
    for (let p = 1; p < this.#fanOut; p++) if (this.#pendingBytes[p]! > this.#pendingBytes[best]!) best = p;
    return best;
  }

  /**
   * Starts writing partition `p`'s buffer as one batch, after the partition's earlier writes (one
   * chain per file keeps its batches in order; the files are written side by side, so the disk
   * works while the next input batch is split). The bytes stay reserved until the write ends.
   */
  #flush(p: number): void {
    const pieces = this.#pending[p]!;
    if (pieces.length === 0) return;
    const batch = concatBatches(pieces, pieces[0]!.schema);
    const bytes = this.#pendingBytes[p]!;
    this.#pending[p] = [];
    this.#pendingRows[p] = 0;
    this.#pendingBytes[p] = 0;
    const w = (this.#writers[p] ??= this.#ctx.spill.writer(this.#schema));
    const done: Promise<void> = (this.#chains[p] ?? Promise.resolve())
      .then(() => w.append(batch))
      .then(
        () => {
          this.#buffered -= bytes;
          this.#buffers.shrink(Math.min(bytes, this.#buffers.size));
        },
        (e: unknown) => {
          this.#failure ??= { error: e };
        },
      )
      .finally(() => this.#writing.delete(done));
    this.#chains[p] = done;
    this.#writing.add(done);
  }

  #throwIfFailed(): void {
    if (this.#failure !== null) throw this.#failure.error;
  }

  async finish(): Promise<Spilled[]> {
    for (let p = 0; p < this.#fanOut; p++) this.#flush(p);
    await Promise.all(this.#writing);
    this.#throwIfFailed();
    const files: Spilled[] = [];
    for (const w of this.#writers) files.push(w === null ? null : await w.finish());
    this.#finished = true;
    return files;
  }

  /** Aborts every writer not finished (after an error; a no-op once `finish` returned). */
  async abort(): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    await Promise.allSettled(this.#writing);
    this.#buffers.shrink(Math.min(this.#buffered, this.#buffers.size));
    this.#buffered = 0;
    for (const w of this.#writers) await w?.abort().catch(() => {});
  }
}
