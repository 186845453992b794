/**
 * The scratch memory of a compiled expression, counted against the run's `memoryLimit`.
 *
 * Why: every node of a compiled tree keeps its own result buffers (a Float64Array of values, a
 * NULL mask, the three-valued bytes of a comparison, string offsets and bytes), sized to the
 * largest batch it has seen and reused after that (node-base.ts). That is the fast path, and it
 * is also memory proportional to (nodes x rows): a 9,000-term OR over a batch of 20,000 pairs
 * holds about a gigabyte. So a tree has one `ScratchMeter`: each buffer growth is announced to
 * it before the buffer is allocated (`scratchGrew`), and once the meter is attached to a run's
 * Reservation it grows that reservation by the same bytes — as scratch actually grows, never a
 * guess made up front (operators running under a tiny limit, e.g. the spill tests, see only what
 * the filter really holds).
 *
 * Under pressure the evaluation gets smaller, not fatal. An attached meter's first chunk is a
 * probe of PROBE_ROWS rows that measures what a row costs (buffer sizes are linear in the rows
 * but for string bytes); after it a chunk takes as many rows as fit in the buffers already held
 * plus half the pool's free bytes (the other half is left to the operators), which is the whole
 * batch when nothing presses. Predicting matters because buffers only grow: a node that grew for
 * a chunk that was then refused further down the tree keeps its buffer (counted), so refusals
 * waste budget. When the pool does refuse a growth (strings longer than the probe's, another
 * operator reserving meanwhile), `run` drops the chunk (nothing was allocated for the refused
 * growth) and evaluates its rows again in chunks of half as many, down to MIN_CHUNK_ROWS, a cap
 * that then stays for the meter's later batches. Only when even MIN_CHUNK_ROWS rows do not fit
 * is it a MemoryLimitError naming the expression. An evaluation is a pure function of its inputs (no node keeps state from one call
 * to the next but buffer capacity), so evaluating rows again gives the same answer, and an
 * ExpressionError raised for a row is raised in any chunking.
 *
 * Invariants: `held` is the bytes of buffers the tree holds (the sum of announced growths); while
 * attached, the reservation's size equals `held`. `detach` frees the reservation (the run is
 * over); the buffers stay with the tree until it is garbage, and a later `attach` (another run
 * reusing the tree) reserves them again first. Not attached, nothing is refused: a compiled
 * expression used outside a run (tests, compile-time folding) behaves exactly as before.
 */
import type { MemoryLimitError } from '../errors.ts';
import type { Reservation } from '../memory/pool.ts';
import { type ScratchSink, swapScratchSink } from './node-base.ts';

/** Fewest rows a chunk is cut down to before a refused growth becomes a MemoryLimitError. */
export const MIN_CHUNK_ROWS = 64;

/** Rows of the first chunk an attached meter evaluates, which measures what a row costs. */
export const PROBE_ROWS = 64;

/** Longest expression text a consumer name quotes (a 9,000-term filter would make a 125 KB message). */
const LABEL_CHARS = 80;

/** A growth the pool refused, on its way from a node up to `run`; never escapes this module. */
class ScratchRefused extends Error {
  constructor(readonly bytes: number) {
    super(`scratch growth of ${bytes} bytes refused`);
  }
}

/** `label` shortened to LABEL_CHARS characters for error messages. */
export function shortLabel(label: string): string {
  return label.length <= LABEL_CHARS ? label : `${label.slice(0, LABEL_CHARS - 1)}…`;
}

export class ScratchMeter implements ScratchSink {
  #held = 0;
  #reservation: Reservation | null = null;
  /** Rows per chunk at most: Infinity until a growth was refused. */
  #chunkRows = Infinity;
  /** Chunks evaluated so far (a batch evaluated whole is one). */
  #chunks = 0;
  /** Most rows one successful chunk has evaluated (0: none yet); the buffers are sized for it. */
  #capacity = 0;

  /** Bytes of scratch buffers the tree holds. */
  get held(): number {
    return this.#held;
  }

  /** Rows a batch is evaluated in at most (Infinity: whole batches, nothing was ever refused). */
  get chunkRows(): number {
    return this.#chunkRows;
  }

  /** Chunks evaluated so far (a batch evaluated whole is one). */
  get chunks(): number {
    return this.#chunks;
  }

  /** The reservation scratch is counted in, or null. */
  get reservation(): Reservation | null {
    return this.#reservation;
  }

  /** @internal called by node-base.ts's buffer helpers, before allocating. */
  grew(bytes: number): void {
    const r = this.#reservation;
    if (r !== null && !r.tryGrow(bytes)) throw new ScratchRefused(bytes);
    this.#held += bytes;
  }

  /**
   * Count scratch in `reservation` from now on, starting with what the tree already holds (a
   * MemoryLimitError when even that does not fit). Replaces (and frees) an earlier attachment.
   */
  attach(reservation: Reservation): void {
    this.detach();
    reservation.grow(this.#held);
    this.#reservation = reservation;
  }

  /** Stop counting: frees the reservation (the run that attached it is over). */
  detach(): void {
    this.#reservation?.free();
    this.#reservation = null;
  }

  /**
   * Runs `chunk(state, start, end)` over rows [0, count) with this meter collecting the growths.
   * Not attached: in one call. Attached: the first rows ever evaluated are a probe of PROBE_ROWS
   * that measures the scratch a row costs; after that a call takes as many rows as the tree's
   * buffers plus half the pool's free bytes hold at that cost (all of them when nothing presses),
   * and a refused growth halves the chunk, down to MIN_CHUNK_ROWS. `chunk` must be safe to run
   * again over the same rows (an evaluation is). `chunked` false: [0, count) is always one call
   * (a projection returns one column per batch) and a refusal is the MemoryLimitError at once.
   * Throws MemoryLimitError naming `what` when MIN_CHUNK_ROWS rows (or, not chunked, the batch)
   * do not fit.
   */
  run<T>(count: number, state: T, chunk: (state: T, start: number, end: number) => void, what: string, chunked = true): void {
    const prev = swapScratchSink(this);
    try {
      for (let start = 0; start < count; ) {
        const end = chunked ? start + this.#rowsFor(count - start) : count;
        try {
          chunk(state, start, end);
        } catch (e) {
          if (!(e instanceof ScratchRefused)) throw e;
          const rows = end - start;
          if (!chunked || rows <= MIN_CHUNK_ROWS) throw this.#limitError(what, e.bytes, rows);
          this.#chunkRows = Math.max(MIN_CHUNK_ROWS, rows >> 1);
          continue;
        }
        this.#chunks++;
        if (end - start > this.#capacity) this.#capacity = end - start;
        start = end;
      }
    } finally {
      swapScratchSink(prev);
    }
  }

  /** Rows the next chunk takes of `left` still to evaluate (see `run`). */
  #rowsFor(left: number): number {
    const r = this.#reservation;
    if (r === null) return left;
    if (this.#capacity === 0) return Math.min(left, PROBE_ROWS, this.#chunkRows);
    const perRow = this.#held / this.#capacity;
    const fits = perRow > 0 ? Math.floor((this.#held + r.pool.available / 2) / perRow) : Infinity;
    return Math.min(left, this.#chunkRows, Math.max(MIN_CHUNK_ROWS, fits));
  }

  /**
   * `bytes` more of scratch held outside the nodes (a row filter's identity rows and mask): a
   * MemoryLimitError naming `what` when the pool refuses. Call it before allocating.
   */
  hold(bytes: number, what: string, rows: number): void {
    try {
      this.grew(bytes);
    } catch (e) {
      if (e instanceof ScratchRefused) throw this.#limitError(what, bytes, rows);
      throw e;
    }
  }

  #limitError(what: string, bytes: number, rows: number): MemoryLimitError {
    const r = this.#reservation!;
    return r.pool.limitError(`${r.consumer} (${shortLabel(what)}), evaluating ${rows} rows at a time,`, bytes);
  }
}
