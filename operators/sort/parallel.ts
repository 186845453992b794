/**
 * The sort on worker threads (a `WorkerPool`, config `threads` > 1): sorted runs made in parallel,
 * one per morsel of the input (worker task `sort.run`, sort-task.ts), then k-way merged on the
 * calling thread by the same loser tree that merges spilled runs (merge.ts) — the sort-merge
 * join's parallel phase, and the shape DuckDB (thread-local sorted runs, then a merge:
 * src/common/sort/) and DataFusion (a `SortExec` per partition under a `SortPreservingMergeExec`)
 * give a parallel sort.
 *
 * Run phase. The calling thread reads the input and cuts it into morsels of consecutive rows
 * (`morselRows`: about four per worker, so a worker that finishes early takes another, and few
 * enough that the merge's fan-in stays small); each morsel is copied once into buffers of its own
 * (one contiguous batch: a concatenation when it spans batches) that move to the worker. At most
 * two morsels per worker are in flight. Each reply is one sorted run, kept in memory in its
 * morsel's place: runs are numbered in input order, whatever order the workers finish in.
 *
 * Merge phase. Once every run is in, the runs are merged into `batchSize` batches; a tie goes to
 * the lower run, and runs are in input order, so the result is exactly the single-threaded sort's
 * (stable: DuckDB's `ORDER BY …, rowid`), row for row — not just an equally valid order.
 *
 * Memory (the query's one pool, shared with the workers: `MemoryPool.share`): a morsel's whole
 * cost — its copy, its keys and argsort scratch by the single-threaded sort's estimates, and its
 * sorted output — is reserved here before it is submitted; when the run comes back, the
 * reservation is cut to the run's bytes and stays with the run until the merge reads its batches
 * (each batch's bytes then move into the merge's accounting) or the run is spilled. A morsel is
 * scan memory until it is copied, as any batch a scan hands out is until its consumer reserves it.
 *
 * When the pool refuses — a morsel's reservation, a run's, or the merge's plan (which must fit
 * half of what is left, as the external sort's final merge leaves half to its consumer; or more
 * runs than `MAX_FAN_IN`) — the sort degrades, once, to the external sort: every run held is
 * written to a spill file as it is (it is sorted already), every run that arrives afterwards too,
 * and the runs are merged by the external sort's multi-pass merge (sort.ts `mergeAll`), still in
 * input order. A morsel that cannot be reserved even then waits for the morsels in flight; with
 * none left it is sorted here by the single-threaded sort's own code, a slice at a time if need
 * be (`addInSlices`), so a limit too small even for that is the same typed MemoryLimitError
 * (`sort input`, `sort merge`) the single-threaded sort raises. No row is lost, and the limit is
 * never exceeded by what is reserved.
 *
 * Errors and cancellation: an error in a worker comes back as the same typed error
 * (core/parallel/errors.ts) and stops the sort once the morsels in flight have settled; an abort
 * (the caller's signal, or `close()`) stops submitting, lets the in-flight morsels finish (each a
 * few milliseconds), closes the session, frees every reservation and deletes every spill file.
 * `close()` is the owner's duty even when the output was never read (the sort-merge join starts
 * both of its sorts before reading either).
 *
 * Degenerate cases: an empty input yields no batch (and submits nothing); one morsel is one run,
 * re-batched by the merge; a morsel's input in shared memory (`shareTable`) crosses without a copy.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { concatBatches } from '../../core/arrow/gather.ts';
import { heldBatchBytes } from '../../core/arrow/size.ts';
import { CancelledError } from '../../core/errors.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import { SpillManager } from '../../core/memory/spill.ts';
import { buffersOf, decodeBatch, encodeBatches, encodeSchema, type BatchWire } from '../../core/parallel/wire.ts';
import type { PoolSession, WorkerPool } from '../../core/parallel/worker-pool.ts';
import type { Scan } from '../../core/scan/scan.ts';
import { compactDictionaries } from './dictionaries.ts';
import { bindSort, keyBytesEstimate, sortScratchPerRow, type BoundSort, type SortKey } from './keys.ts';
import { MAX_FAN_IN, mergePlanBytes, mergeRuns } from './merge.ts';
import { batchObjectBytes, isMemoryRun, runBatchRows, RunBuilder, runShapeOf, RunWriter, type AnyRun, type MemoryRun, type Run } from './runs.ts';
import { addInSlices, checkKeyTypes, counted, mergeAll, newSortMetrics, spillHeld, type SortContext, type SortMetrics, type SortOptions } from './sort.ts';
import { SORT_TASK, type SortTaskInit, type SortTaskInput, type SortTaskReply } from './sort-task.ts';

export interface ParallelSortOptions extends SortOptions {
  readonly workers: WorkerPool;
}

/** Most rows a morsel has, whatever the input's size (a morsel in flight is reserved whole). */
const MAX_MORSEL_ROWS = 1 << 20;
/** Morsels per worker the input is cut into (by its row count from metadata). */
const MORSELS_PER_WORKER = 4;

/** Rows per morsel for an input of `numRows` rows (metadata) sorted on `workers` workers. */
export function morselRows(numRows: number, workers: number): number {
  if (!(numRows > 0)) return 65_536;
  return Math.max(1, Math.min(MAX_MORSEL_ROWS, Math.ceil(numRows / (MORSELS_PER_WORKER * Math.max(1, workers)))));
}

/** A morsel copied and ready to submit, with what it costs. */
interface Prepared {
  readonly morsel: number;
  /** The scan's batches it was cut from (the local fallback sorts these). */
  readonly chunk: readonly RecordBatch[];
  readonly input: SortTaskInput;
  readonly transfer: readonly ArrayBuffer[];
  readonly cost: number;
}

type Settled = { readonly morsel: number; readonly ok: true; readonly value: SortTaskReply } | { readonly morsel: number; readonly ok: false; readonly error: unknown };

/** One sort of `scan` by `keys` on the workers (see the module doc). `start()`, read `batches()`, always `close()`. */
export class ParallelSort {
  readonly metrics: SortMetrics;
  readonly #scan: Scan;
  readonly #keys: readonly SortKey[];
  readonly #o: ParallelSortOptions;
  readonly #bound: BoundSort;
  readonly #schema: Schema;
  readonly #abort = new AbortController();
  readonly #signal: AbortSignal;
  readonly #ctx: SortContext;
  #spill: SpillManager | null;
  /** The runs of each morsel, by morsel number (one memory or file run, or the local fallback's file runs). */
  #slots: AnyRun[][] = [];
  /** Each morsel's reservation: while in flight its whole cost, then its run's bytes. */
  readonly #reservations = new Map<number, Reservation>();
  #mode: 'memory' | 'spill' = 'memory';
  #phase: Promise<void> | null = null;
  #closed: Promise<void> | null = null;
  readonly #morselRows: number;
  readonly #budget: number;
  #morsels = 0;
  #workerMs = 0;

  /** `label` names the sort in `describe()` (the join's side). */
  constructor(
    scan: Scan,
    keys: readonly SortKey[],
    options: ParallelSortOptions,
    readonly label = 'sort',
  ) {
    if (!Number.isInteger(options.batchSize) || options.batchSize < 1) throw new RangeError(`sort batchSize must be a positive integer, got ${options.batchSize}`);
    this.#scan = scan;
    this.#keys = keys;
    this.#o = options;
    this.#bound = bindSort(scan.schema, keys, scan.source);
    this.#schema = scan.schema;
    this.metrics = options.metrics ?? newSortMetrics();
    this.#signal = options.signal === undefined ? this.#abort.signal : AbortSignal.any([options.signal, this.#abort.signal]);
    this.#spill = options.spill ?? null;
    const live = new Set<Run>();
    this.#ctx = {
      schema: this.#schema,
      bound: this.#bound,
      pool: options.pool,
      batchSize: options.batchSize,
      signal: this.#signal,
      metrics: this.metrics,
      live,
      spill: () => (this.#spill ??= new SpillManager()),
    };
    this.#morselRows = morselRows(scan.numRows, options.workers.size);
    this.#budget = options.pool.available;
  }

  /** Starts the run phase (idempotent): the input is read and sorted on the workers from now on. */
  start(): void {
    if (this.#phase !== null) return;
    this.#phase = this.#runPhase();
    this.#phase.catch(() => {}); // awaited by batches(); a sort closed unread drops its error
  }

  /** What ran where, for a join's `details` (e.g. `left: 8 runs on 2 workers, merged in memory`). */
  describe(): string {
    const how = this.#mode === 'spill' ? `spilled past the memory limit (${this.metrics.runsSpilled} runs written), merged from disk` : 'merged in memory';
    return `${this.label}: ${this.metrics.workerRuns} runs on ${this.#o.workers.size} workers, ${how}`;
  }

  /** The sorted rows, `batchSize` a batch; closes the sort when done (or abandoned). */
  async *batches(): AsyncGenerator<RecordBatch> {
    this.start();
    try {
      await this.#phase;
      this.#check();
      const runs = this.#slots.flat();
      if (runs.length === 0) return;
      const { pool, batchSize } = this.#o;
      if (this.#mode === 'memory' && (runs.length > MAX_FAN_IN || mergePlanBytes(runs, batchSize, this.#schema) > pool.available / 2)) await this.#degrade();
      if (this.#mode === 'spill') {
        yield* mergeAll(this.#ctx, this.#slots.flat() as Run[]);
        return;
      }
      this.metrics.mergeFanIn = runs.length;
      const spill = this.#ctx.spill();
      for await (const b of mergeRuns(runs, { spill, schema: this.#schema, bound: this.#bound, pool, outputRows: batchSize, signal: this.#signal })) {
        yield counted(compactDictionaries(b), this.#ctx);
      }
    } finally {
      await this.close();
    }
  }

  /** Stops the sort wherever it is, frees what it holds and deletes its spill files (idempotent). */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      if (!this.#abort.signal.aborted) this.#abort.abort(new CancelledError('sort closed'));
      await this.#phase?.catch(() => {});
      for (const r of this.#reservations.values()) r.free();
      this.#reservations.clear();
      this.#slots = [];
      this.metrics.peakReservedBytes = Math.max(this.metrics.peakReservedBytes, this.#o.pool.peak);
      this.metrics.workerMs += this.#workerMs;
      const spill = this.#spill;
      if (spill !== null) {
        const live = this.#ctx.live;
        await Promise.allSettled([...live].map((r) => spill.delete(r.file)));
        live.clear();
        if (this.#o.spill === undefined) await spill.close();
      }
    })();
    return this.#closed;
  }

  /**
   * Throws once the sort is cancelled: the caller's reason when it gave an error of its own, else
   * a CancelledError (an `abort()` without a reason, or `close()`).
   */
  #check(): void {
    const signal = this.#signal;
    if (!signal.aborted) return;
    const reason: unknown = signal.reason;
    throw reason instanceof Error && reason.name !== 'AbortError' ? reason : new CancelledError(`sort of ${this.#scan.source} cancelled`);
  }

  // --- run phase --------------------------------------------------------------------------------

  async #runPhase(): Promise<void> {
    const { workers, pool } = this.#o;
    const signal = this.#signal;
    const init: SortTaskInit = { schema: encodeSchema(this.#schema), keys: this.#keys, source: this.#scan.source, pool: pool.share() };
    const opening = workers.open(SORT_TASK, init);
    opening.catch(() => {}); // awaited before the first submit; a failure before it must not go unhandled
    let session: PoolSession | null = null;
    const inflight = new Map<number, Promise<Settled>>();
    const limit = 2 * workers.size;
    const reader = new ChunkReader(this.#scan, this.#bound, this.#morselRows, signal);
    let failure: { error: unknown } | null = null;
    let ready: Prepared | null = null;
    try {
      for (;;) {
        while (failure === null && inflight.size < limit) {
          this.#check();
          if (ready === null) {
            const chunk = await reader.next();
            if (chunk === null) break;
            ready = this.#prepare(chunk);
          }
          const res = this.#reservations.get(ready.morsel)!;
          let granted = res.tryGrow(ready.cost);
          if (!granted && this.#mode === 'memory') {
            await this.#degrade();
            granted = res.tryGrow(ready.cost);
          }
          if (!granted) {
            if (inflight.size > 0) break; // what is in flight frees memory as it arrives (spilled)
            // nothing in flight, nothing held: this morsel is sorted here, as the serial sort would
            this.#slots[ready.morsel] = await this.#sortLocally(ready.chunk);
            ready = null;
            continue;
          }
          session ??= await opening;
          const morsel = ready.morsel;
          inflight.set(
            morsel,
            session.submit(ready.input, ready.transfer).then(
              (value) => ({ morsel, ok: true, value: value as SortTaskReply }) as const,
              (error: unknown) => ({ morsel, ok: false, error }) as const,
            ),
          );
          ready = null;
        }
        if (inflight.size === 0) break;
        const done = await Promise.race(inflight.values());
        inflight.delete(done.morsel);
        if (!done.ok) failure ??= { error: done.error };
        else if (failure === null && !signal.aborted) await this.#arrived(done.value);
        if (failure !== null && inflight.size === 0) throw failure.error;
      }
      if (failure !== null) throw failure.error;
      this.#check();
    } finally {
      // let every worker finish the morsel it is on (their replies are dropped with their reservations)
      await Promise.allSettled(inflight.values());
      await reader.close();
      await opening.then((s) => s.close()).catch(() => {});
    }
  }

  /** `chunk` as one compact batch for a worker, its morsel number and what it will cost. */
  #prepare(chunk: readonly RecordBatch[]): Prepared {
    const morsel = this.#morsels++;
    this.#reservations.set(morsel, this.#o.pool.reservation(`sort morsel ${morsel} (${this.#scan.source})`));
    const one = chunk.length === 1 ? chunk[0]! : concatBatches(chunk, this.#schema);
    // one batch of the scan's: copied; a concatenation is ours already, moved (none of the scan's buffers)
    const { wires, transfer } = chunk.length === 1 ? encodeBatches([one], 'copy') : encodeBatches([one], 'transfer', buffersOf(chunk));
    const wire: BatchWire = wires[0]!;
    // the compact batch the worker will have (the wire's views, before they move)
    const view = decodeBatch(wire, this.#schema);
    const n = view.numRows;
    const bytes = heldBatchBytes(view);
    const keyBytes = keyBytesEstimate(view, this.#bound);
    const workBytes = keyBytes + n * sortScratchPerRow(this.#bound);
    const fixed = batchObjectBytes(this.#schema);
    const rowBytes = Math.max(1, Math.ceil((bytes - fixed) / n));
    const runRows = runBatchRows(this.#o.batchSize, this.#budget, rowBytes, Math.ceil(keyBytes / n), fixed);
    // the copy, its keys and scratch, and the sorted output (batches of runRows rows)
    const cost = bytes + workBytes + n * rowBytes + fixed * Math.ceil(n / runRows);
    return { morsel, chunk, input: { morsel, batch: wire, runRows, workBytes }, transfer, cost };
  }

  /** A sorted run came back: kept in memory under its morsel's reservation, or spilled. */
  async #arrived(r: SortTaskReply): Promise<void> {
    const res = this.#reservations.get(r.morsel)!;
    const batches: (RecordBatch | null)[] = r.batches.map((w) => decodeBatch(w, this.#schema));
    const held = (batches as RecordBatch[]).reduce((s, b) => s + heldBatchBytes(b), 0);
    this.metrics.workerRuns++;
    this.#workerMs += r.ms;
    let fits = held <= res.size || res.tryGrow(held - res.size);
    if (!fits && this.#mode === 'memory') {
      await this.#degrade();
      fits = res.tryGrow(held - res.size);
    }
    if (held < res.size) res.resize(held);
    const run: MemoryRun = { ...runShapeOf(batches as RecordBatch[], this.#bound), batches, reservation: res };
    // not fitting, it is written at once: the estimate it exceeded is an upper bound, so by little
    this.#slots[r.morsel] = [this.#mode === 'spill' || !fits ? await this.#spillRun(run) : run];
  }

  /** From now on every run is on disk: the runs held are written as they are (sorted already). */
  async #degrade(): Promise<void> {
    this.#mode = 'spill';
    for (const slot of this.#slots) {
      if (slot === undefined) continue;
      for (let i = 0; i < slot.length; i++) {
        const run = slot[i]!;
        if (isMemoryRun(run)) slot[i] = await this.#spillRun(run);
      }
    }
  }

  /** A memory run written to a spill file; its reservation covers each batch until it is written. */
  async #spillRun(run: MemoryRun): Promise<Run> {
    const spill = this.#ctx.spill();
    const writer = new RunWriter(spill, this.#schema, this.#bound, this.#o.pool);
    try {
      for (let i = 0; i < run.batches.length; i++) {
        this.#check();
        const b = run.batches[i];
        if (b === null || b === undefined) continue;
        await writer.append(b, true);
        run.batches[i] = null;
        run.reservation.shrink(Math.min(run.reservation.size, heldBatchBytes(b)));
      }
      const file = await writer.finish();
      this.#ctx.live.add(file);
      this.metrics.runsSpilled++;
      this.metrics.bytesSpilled += file.file.bytes;
      return file;
    } catch (err) {
      await writer.abort();
      throw err;
    } finally {
      run.reservation.free();
    }
  }

  /** `chunk` sorted on this thread by the single-threaded sort's code, as file runs (nothing in flight). */
  async #sortLocally(chunk: readonly RecordBatch[]): Promise<Run[]> {
    const c = this.#ctx;
    const held = new RunBuilder(this.#schema, this.#bound, c.pool, c.batchSize, c.pool.available);
    const runs: Run[] = [];
    c.onRun = (run) => runs.push(run);
    try {
      for (const b of chunk) {
        this.#check();
        if (held.tryAdd(b)) continue;
        if (held.rows > 0) await spillHeld(held, c);
        if (!held.tryAdd(b)) await addInSlices(b, held, c);
      }
      if (held.rows > 0) await spillHeld(held, c);
      return runs;
    } finally {
      held.clear();
      c.onRun = undefined;
    }
  }
}

/**
 * The input as chunks of about `rows` consecutive rows: batches taken whole while they fit, a
 * larger one cut (zero-copy slices) at the chunk's end, its rest the start of the next chunk.
 */
class ChunkReader {
  readonly #it: AsyncIterator<RecordBatch>;
  readonly #ahead: RecordBatch[] = [];
  #index = 0;
  #done = false;

  constructor(
    readonly scan: Scan,
    readonly bound: BoundSort,
    readonly rows: number,
    signal: AbortSignal,
  ) {
    this.#it = scan.batches({ signal })[Symbol.asyncIterator]();
  }

  async next(): Promise<RecordBatch[] | null> {
    const chunk: RecordBatch[] = [];
    let n = 0;
    while (n < this.rows) {
      let b = this.#ahead.shift();
      if (b === undefined) {
        if (this.#done) break;
        const r = await this.#it.next();
        if (r.done) {
          this.#done = true;
          break;
        }
        b = r.value;
        this.#index++;
        if (b.numRows === 0) continue;
        checkKeyTypes(b, this.bound, this.scan.schema, this.scan.source, this.#index);
      }
      if (n + b.numRows > this.rows) {
        const take = this.rows - n;
        this.#ahead.unshift(b.slice(take, b.numRows));
        b = b.slice(0, take);
      }
      chunk.push(b);
      n += b.numRows;
    }
    return chunk.length === 0 ? null : chunk;
  }

  async close(): Promise<void> {
    if (!this.#done) await this.#it.return?.();
    this.#done = true;
  }
}
