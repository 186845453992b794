/**
 * The sort operator: every row of a scan in the order of its sort keys (ORDER BY k1 [ASC|DESC]
 * [NULLS FIRST|LAST], …), emitted in `batchSize` batches, in memory while the input fits the
 * memory limit and as an external merge sort past it. Stable: rows with equal keys keep their
 * input order, so a sort by (a) after a sort by (b) is a sort by (a, b), and DuckDB's
 * `ORDER BY …, rowid` is the reference order in the tests.
 *
 * In memory: the input is drained under the run's pool — each batch reserved before it is kept,
 * together with what sorting its rows will cost (runs.ts); each key column is normalised once over
 * all batches (core/keys/normalize.ts, the same words the joins compare), so the order of every
 * type is the one `core/keys/order.ts` defines — DuckDB's: -0.0 = 0.0, NaN above every number,
 * NULLs first or last whatever the direction. The row order is one `argsortKeys` (a radix sort
 * over fixed-width keys, a typed-array merge sort otherwise — no comparator closure per row pair,
 * no `Array.prototype.sort`), and the output is gathered from the kept batches by index, a batch
 * at a time, under the gather's allocation guard.
 *
 * Past the limit (the pool refuses the next input batch): what is held is sorted exactly as above
 * and written as one sorted run — Arrow IPC through the SpillManager, in batches of at most
 * `batchSize` rows (runs.ts) — its memory is released and reading goes on. At the end the rows
 * still held are written as a run too (rather than merged from memory, which would take the memory
 * the merge's cursors need — DataFusion's ExternalSorter does the same before its multi-level
 * merge), and the runs are k-way merged with a loser tree, each read back a batch at a time
 * (merge.ts). Runs are in input order and ties go to the lower run, so the external sort is as
 * stable as the in-memory one. When more runs exist than the memory holds cursors for, groups of
 * consecutive runs are first merged into bigger runs (multi-pass; consecutive, so the order between
 * runs stays the input order), as DataFusion's MultiLevelMergeBuilder (sorts/multi_level_merge.rs)
 * merges as many spill files as fit, reserving per file from its largest batch, until one merge is
 * left. DuckDB sorts the same shape: sorted runs of normalised keys, merged (src/common/sort/).
 *
 * Under a signal the sort of the held rows — the keys' normalisation and the argsort, seconds for
 * tens of millions of rows — runs in steps with a turn of the event loop every `CANCEL_CHECK_MS`
 * (`RunBuilder.sortOrderPaced`, core/keys/argsort.ts `argsortKeysPaced`), so an abort ends it
 * there; without one it is the same sort in one call.
 *
 * Invariants: the pool never holds more than its limit (`peakReservedBytes` <= limit), every
 * spill file is deleted when the sort ends, fails or is cancelled (the signal, checked between
 * batches, or a consumer that stops early: `return()` on the generator), and a private spill
 * manager (when `spill` is not given) is closed, its directory removed. Metrics: `runsSpilled`
 * (sorted runs written from the input), `mergedRuns` (runs written by intermediate merges),
 * `bytesSpilled` (bytes of every spill file written), `mergeFanIn` (runs the final merge read at
 * once; 0 in memory).
 *
 * Degenerate cases: an empty input yields no batch; no sort keys is refused (a typed
 * `UsageError`), as is a key column the input does not have (`MissingColumnError`) or a type no
 * key order exists for (`UnsupportedTypeError`, from key resolution) — all before any row is read.
 * An input batch that, with its sort's memory, does not fit what the pool has even with nothing
 * held is taken a slice of rows at a time (a Parquet scan decodes up to 64K rows at once); a
 * single row that does not fit is a `MemoryLimitError` naming `sort input`, and a limit too small
 * to merge two runs into a `batchSize` output batch is one naming `sort merge` — typed, at once.
 */
import { DataType, type Dictionary, type RecordBatch, type Schema } from 'apache-arrow';
import { MemoryLimitError, UnsupportedTypeError } from '../../core/errors.ts';
import { concatBatches, gatherColumns, makeRecordBatch, RowSource } from '../../core/arrow/gather.ts';
import type { MemoryPool } from '../../core/memory/pool.ts';
import { SpillManager } from '../../core/memory/spill.ts';
import type { Scan } from '../../core/scan/scan.ts';
import { Pacer } from '../../core/next-turn.ts';
import { compactDictionaries } from './dictionaries.ts';
import { bindSort, type BoundSort, type SortKey } from './keys.ts';
import { MAX_FAN_IN, mergeRuns, outputCost, runMergeCost } from './merge.ts';
import { RunBuilder, RunWriter, writeHeldRun, type Run } from './runs.ts';

export { bindSort, formatSortKeys, parseSortKeys, type BoundSort, type SortKey } from './keys.ts';

export interface SortMetrics {
  rows: number;
  outputBatches: number;
  /** Sorted runs written from the input (0: sorted in memory). */
  runsSpilled: number;
  /** Runs written by intermediate merges (0: one merge sufficed). */
  mergedRuns: number;
  /** Bytes of every spill file written (runs and merged runs). */
  bytesSpilled: number;
  /** Runs the final merge read at once (0 in memory). */
  mergeFanIn: number;
  /** Sorted runs made on worker threads (parallel.ts; 0 single-threaded). */
  workerRuns: number;
  /** Time the workers spent making them, summed over workers. */
  workerMs: number;
  peakReservedBytes: number;
}

export interface SortOptions {
  readonly pool: MemoryPool;
  /** Rows per output batch. */
  readonly batchSize: number;
  readonly signal?: AbortSignal;
  /** Filled while the output is consumed. */
  readonly metrics?: SortMetrics;
  /** Where sorted runs go past the memory limit (default: a private manager, closed when the sort ends). */
  readonly spill?: SpillManager;
}

export function newSortMetrics(): SortMetrics {
  return { rows: 0, outputBatches: 0, runsSpilled: 0, mergedRuns: 0, bytesSpilled: 0, mergeFanIn: 0, workerRuns: 0, workerMs: 0, peakReservedBytes: 0 };
}

/** The rows of `scan` in sort-key order, `options.batchSize` rows a batch. */
export async function* sortScan(scan: Scan, keys: readonly SortKey[], options: SortOptions): AsyncGenerator<RecordBatch> {
  const bound = bindSort(scan.schema, keys, scan.source);
  const metrics = options.metrics ?? newSortMetrics();
  const { pool, signal, batchSize } = options;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`sort batchSize must be a positive integer, got ${batchSize}`);
  const schema = scan.schema;
  const held = new RunBuilder(schema, bound, pool, batchSize, pool.available);
  let spill: SpillManager | null = options.spill ?? null;
  const live = new Set<Run>();
  const ctx: SortContext = {
    schema,
    bound,
    pool,
    batchSize,
    signal,
    metrics,
    live,
    spill: () => (spill ??= new SpillManager()),
  };
  try {
    let index = 0;
    const pacer = new Pacer(signal);
    for await (const b of scan.batches({ signal })) {
      index++;
      if (b.numRows === 0) continue;
      if (pacer.due()) await pacer.turn();
      signal?.throwIfAborted();
      checkKeyTypes(b, bound, schema, scan.source, index);
      if (held.tryAdd(b)) continue;
      if (held.rows > 0) await spillHeld(held, ctx);
      if (!held.tryAdd(b)) await addInSlices(b, held, ctx);
    }
    if (signal !== undefined) await pacer.turn(); // before the in-memory sort (paced too: RunBuilder.sortOrderPaced)
    if (live.size === 0) {
      yield* emitInMemory(held, ctx);
      return;
    }
    if (held.rows > 0) await spillHeld(held, ctx);
    yield* mergeAll(ctx);
  } finally {
    held.clear();
    metrics.peakReservedBytes = Math.max(metrics.peakReservedBytes, pool.peak);
    if (spill !== null) {
      const s: SpillManager = spill;
      await Promise.allSettled([...live].map((r) => s.delete(r.file)));
      live.clear();
      if (options.spill === undefined) await s.close();
    }
  }
}

/** A batch whose key column is not of the type the scan's schema promised (a broken scan) is refused, typed. */
export function checkKeyTypes(b: RecordBatch, bound: BoundSort, schema: Schema, source: string, index: number): void {
  for (let k = 0; k < bound.indices.length; k++) {
    const want = schema.fields[bound.indices[k]!]!.type;
    const got = b.schema.fields[bound.indices[k]!]?.type;
    if (got === undefined || got.typeId !== want.typeId || (DataType.isDictionary(got) && got.dictionary.typeId !== (want as Dictionary).dictionary.typeId)) {
      throw new UnsupportedTypeError(bound.columns[k]!, String(got ?? 'no column'), `as a sort key here: batch ${index} of ${source} has it, where the scan's schema says ${String(want)}`);
    }
  }
}

/** What the steps of a sort share (the serial sort's and, for its fallbacks, the parallel one's: parallel.ts). */
export interface SortContext {
  readonly schema: Schema;
  readonly bound: BoundSort;
  readonly pool: MemoryPool;
  readonly batchSize: number;
  readonly signal: AbortSignal | undefined;
  readonly metrics: SortMetrics;
  /** Every run file not yet deleted (in input order while runs are generated). */
  readonly live: Set<Run>;
  spill(): SpillManager;
  /** Told of every run written from the input, in order (the parallel sort places them among its own). */
  onRun?: (run: Run) => void;
}

/** The held rows, sorted, as `batchSize` batches (nothing was spilled). */
async function* emitInMemory(held: RunBuilder, c: SortContext): AsyncGenerator<RecordBatch> {
  const n = held.rows;
  if (n === 0) return;
  const order = c.signal === undefined ? held.sortOrder() : await held.sortOrderPaced(new Pacer(c.signal));
  held.releaseWriteHeadroom(); // no run will be written
  // Gathering by the sorted order from many batches looks up each row's batch and reads across
  // all of them at random; from one contiguous copy per column it is a plain indexed read (the
  // sort bench: ~2 s -> ~1 s for 10M rows in 153 batches). The copy is sequential and cheap, so it
  // is made whenever the pool has room for it.
  const contiguous = c.pool.reservation('sort contiguous input');
  try {
    const one = held.batches.length > 1 && contiguous.tryGrow(held.dataBytes) ? [concatBatches(held.batches, c.schema)] : held.batches;
    const src = new RowSource(one, c.schema);
    const pacer = new Pacer(c.signal);
    for (let start = 0; start < n; start += c.batchSize) {
      if (pacer.due()) await pacer.turn();
      c.signal?.throwIfAborted();
      const count = Math.min(c.batchSize, n - start);
      const columns = gatherColumns(src, order, start, count, undefined, c.pool);
      yield counted(makeRecordBatch(c.schema, columns, count), c);
    }
  } finally {
    contiguous.free();
  }
}

export function counted(b: RecordBatch, c: SortContext): RecordBatch {
  c.metrics.rows += b.numRows;
  c.metrics.outputBatches++;
  c.metrics.peakReservedBytes = Math.max(c.metrics.peakReservedBytes, c.pool.peak);
  return b;
}

/**
 * A batch that does not fit even with nothing held (a Parquet scan decodes up to 64K rows at a
 * time, outside the pool): its rows are copied into the run a slice at a time — each slice as
 * many rows as the memory left holds, halved until one fits — spilling whenever the held rows
 * leave no room for the next slice. A single row that does not fit is a MemoryLimitError naming
 * the sort input. The batch itself is the scan's memory, as before the sort asked for it.
 */
export async function addInSlices(b: RecordBatch, held: RunBuilder, c: SortContext): Promise<void> {
  const src = new RowSource([b], c.schema);
  const perRow = held.costAlone(b) / b.numRows;
  const copy = (start: number, n: number) => {
    const rows = new Int32Array(n);
    for (let i = 0; i < n; i++) rows[i] = start + i;
    return makeRecordBatch(c.schema, gatherColumns(src, rows, 0, n, undefined, c.pool), n);
  };
  for (let start = 0; start < b.numRows; ) {
    c.signal?.throwIfAborted();
    let n = Math.max(1, Math.min(b.numRows - start, Math.floor(c.pool.available / perRow / 2)));
    for (;;) {
      let slice: RecordBatch | null = null;
      try {
        slice = copy(start, n);
      } catch (err) {
        if (!(err instanceof MemoryLimitError)) throw err; // (long strings: their bytes refused before the copy)
      }
      if (slice !== null && held.tryAdd(slice)) break;
      if (held.rows > 0) {
        await spillHeld(held, c);
        continue;
      }
      if (n === 1) throw c.pool.limitError(`sort input (one row of a ${b.numRows}-row batch)`, slice === null ? Math.ceil(perRow) : held.costAlone(slice));
      n = Math.ceil(n / 2);
    }
    start += n;
  }
}

export async function spillHeld(held: RunBuilder, c: SortContext): Promise<Run> {
  const run = await writeHeldRun(held, { spill: c.spill(), pool: c.pool, signal: c.signal });
  c.live.add(run);
  c.metrics.runsSpilled++;
  c.metrics.bytesSpilled += run.file.bytes;
  c.onRun?.(run);
  return run;
}

/**
 * Merge `runs` (by default the live runs, in input order) to the output: while they are more than one merge can read at once
 * (the memory left, `runMergeCost` per run, `outputCost` for the output; the final merge takes
 * at most half of it, see below), merge groups of consecutive runs into one run each — just
 * enough of them that the final merge can read the rest.
 */
export async function* mergeAll(c: SortContext, from: readonly Run[] = [...c.live]): AsyncGenerator<RecordBatch> {
  const { schema, pool } = c;
  let runs = [...from];
  const totalRows = runs.reduce((s, r) => s + r.rows, 0);
  for (;;) {
    const maxCost = Math.max(...runs.map((r) => runMergeCost(r, schema)));
    const rowBytes = Math.max(...runs.map((r) => r.maxRowBytes));
    const finalOut = outputCost(Math.min(c.batchSize, totalRows), rowBytes, schema);
    // the final merge leaves half the memory to its consumer (a Parquet writer's row group, the
    // table Engine.sort returns) unless that leaves it fewer than two runs
    const fitting = Math.floor((pool.available - finalOut) / maxCost);
    const finalWays = Math.min(MAX_FAN_IN, fitting < 2 ? fitting : Math.max(2, Math.floor((pool.available / 2 - finalOut) / maxCost)));
    if (runs.length <= Math.max(finalWays, 1)) {
      if (finalWays < 1) throw pool.limitError(`sort merge (a run and a ${c.batchSize}-row output batch; a smaller batchSize needs less)`, finalOut + maxCost);
      break;
    }
    // intermediate merges write batches like the runs' own
    const interRows = Math.max(...runs.map((r) => r.maxBatchRows));
    const interOut = outputCost(interRows, rowBytes, schema);
    const ways = Math.min(MAX_FAN_IN, Math.floor((pool.available - interOut) / maxCost));
    if (ways < 2) throw pool.limitError(`sort merge (2 runs of ${interRows}-row batches)`, interOut + 2 * maxCost);
    const need = runs.length - Math.max(finalWays, 1) + 1; // runs to fold into one for the final merge to read the rest
    const groups: [start: number, end: number][] = [];
    if (need <= ways) groups.push(fewestRows(runs, need));
    else for (let s = 0; s + 1 < runs.length; s += ways) groups.push([s, Math.min(s + ways, runs.length)]);
    const next: Run[] = [];
    let at = 0;
    for (const [start, end] of groups) {
      next.push(...runs.slice(at, start), await mergeToRun(runs.slice(start, end), interRows, c));
      at = end;
    }
    next.push(...runs.slice(at));
    runs = next;
  }
  c.metrics.mergeFanIn = runs.length;
  for await (const b of mergeRuns(runs, { spill: c.spill(), schema, bound: c.bound, pool, outputRows: c.batchSize, signal: c.signal })) {
    yield counted(compactDictionaries(b), c);
  }
}

/** The `count` consecutive runs with the fewest rows together (the cheapest to re-merge). */
function fewestRows(runs: readonly Run[], count: number): [number, number] {
  let best = 0;
  let bestRows = Infinity;
  let sum = 0;
  for (let i = 0; i < runs.length; i++) {
    sum += runs[i]!.rows;
    if (i >= count) sum -= runs[i - count]!.rows;
    if (i >= count - 1 && sum < bestRows) {
      bestRows = sum;
      best = i - count + 1;
    }
  }
  return [best, best + count];
}

/** Merge `group` (consecutive runs) into one run, deleting theirs once it is complete. */
async function mergeToRun(group: readonly Run[], rows: number, c: SortContext): Promise<Run> {
  const spill = c.spill();
  const writer = new RunWriter(spill, c.schema, c.bound, c.pool);
  let run: Run;
  try {
    for await (const b of mergeRuns(group, { spill, schema: c.schema, bound: c.bound, pool: c.pool, outputRows: rows, signal: c.signal })) {
      c.signal?.throwIfAborted();
      await writer.append(b);
    }
    run = await writer.finish();
  } catch (err) {
    await writer.abort();
    throw err;
  }
  c.live.add(run);
  c.metrics.mergedRuns++;
  c.metrics.bytesSpilled += run.file.bytes;
  for (const r of group) {
    c.live.delete(r);
    await spill.delete(r.file);
  }
  return run;
}
