/**
 * The scratch memory of a compiled expression, counted against the run's `memoryLimit`.
 *
 * Why: every node of a compiled tree keeps its own result buffers (a Float64Array of values, a
 * NULL mask, the three-valued bytes of a comparison, string offsets and bytes), sized to the
 * largest batch it has seen and reused after that (node-base.ts). That is the fast path, and it
 * is also memory proportional to (nodes x rows): a 9,000-term OR over a batch of 20,000 pairs
 * holds about a gigabyte. So a tree has one `ScratchMeter`: each buffer growth is announced to it
 * before the buffer is allocated (node-base.ts), and once the meter is attached to a run's
 * Reservation that reservation follows the buffers — grown as they grow, shrunk when they are
 * dropped — rather than a guess for a whole batch made up front.
 *
 * The floor: an attached meter keeps FLOOR_ROWS rows' worth of scratch reserved from the start
 * (an estimate, FLOOR_BYTES_PER_NODE_ROW per node per row; spare until buffers use it). Spilling
 * operators reserve every byte the limit leaves them and spill when refused, so without a floor
 * a filter evaluated after they filled the pool could not evaluate a single row.
 *
 * Under pressure the evaluation gets smaller, not fatal. An attached meter's first chunk is a
 * probe of PROBE_ROWS rows that measures what a row costs (buffer sizes are linear in the rows but
 * for string bytes); after it a chunk takes as many rows as fit in what the meter holds plus half
 * the pool's free bytes (the other half is left to the operators) — the whole batch when nothing
 * presses. A call that had to be cut (or was refused), or that leaves the pool more than half
 * full, ends by dropping its buffers (`dropScratch`: the reservation shrinks back to the floor),
 * so the operators — which may reserve up to the limit and spill — get the bytes back between
 * calls; a call with room keeps them (the fast path: reused, no allocation). Predicting
 * matters because buffers only grow within a call: a node that grew for a chunk refused further
 * down the tree keeps its buffer until the call ends. A refused growth (strings longer than the
 * probe's, another operator reserving meanwhile) drops the chunk — nothing was allocated for it —
 * and evaluates its rows again in chunks of half as many, down to MIN_CHUNK_ROWS, a cap that stays
 * for later calls. Only when even MIN_CHUNK_ROWS rows do not fit is it a MemoryLimitError naming
 * the expression. An evaluation is a pure function of its inputs (no node keeps state from one
 * call to the next but buffer capacity), so evaluating rows again gives the same answer, and an
 * ExpressionError raised for a row is raised in any chunking.
 *
 * Invariants: `held` is the bytes of buffers the tree holds (the sum of announced growths less
 * what was dropped); while attached, the reservation's size is `held` + the unused floor.
 * `detach` drops the buffers and frees the reservation (the run is over). Not attached, nothing
 * is refused, chunked or dropped: an expression used outside a run (tests, compile-time folding)
 * behaves exactly as before.
 */
import type { MemoryLimitError } from '../errors.ts';
import type { Reservation } from '../memory/pool.ts';
import { dropScratch, type Node, nodeCount, type ScratchSink, swapScratchSink } from './node-base.ts';

/** Fewest rows a chunk is cut down to before a refused growth becomes a MemoryLimitError. */
export const MIN_CHUNK_ROWS = 8;

/** Rows of the first chunk an attached meter evaluates, which measures what a row costs. */
export const PROBE_ROWS = 64;

/** Rows the floor is reserved for, and the estimate of a node's scratch per row it assumes. */
export const FLOOR_ROWS = MIN_CHUNK_ROWS;
export const FLOOR_BYTES_PER_NODE_ROW = 16;

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
  /** Reserved bytes no buffer uses yet: what is left of the floor. */
  #spare = 0;
  /** The floor's bytes (0 until attached). */
  #floor = 0;
  #reservation: Reservation | null = null;
  /** Bytes of scratch a row costs, as measured (0: not measured yet). */
  #perRow = 0;
  /** Whether the running call was cut to fit (or refused): its buffers are dropped after it. */
  #pressed = false;
  /** Rows per chunk at most: Infinity until a growth was refused. */
  #chunkRows = Infinity;
  /** Chunks evaluated so far (a batch evaluated whole is one). */
  #chunks = 0;
  /** Most rows one chunk has evaluated since the buffers were last dropped. */
  #capacity = 0;

  /**
   * `root`: the tree whose buffers this meter counts (and drops under pressure); `label`: what
   * its MemoryLimitErrors call it (`filter l.a < r.b`, shortened to LABEL_CHARS).
   */
  constructor(
    private readonly root: Node,
    private readonly label: string,
  ) {}

  /** Bytes of scratch buffers the tree holds. */
  get held(): number {
    return this.#held;
  }

  /** Rows a chunk takes at most after a refusal (Infinity: nothing was ever refused). */
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
    if (r !== null) {
      const fromSpare = Math.min(this.#spare, bytes);
      if (bytes > fromSpare && !r.tryGrow(bytes - fromSpare)) throw new ScratchRefused(bytes);
      this.#spare -= fromSpare;
    }
    this.#held += bytes;
  }

  /**
   * Count scratch in `reservation` from now on: what the tree holds plus the floor (a
   * MemoryLimitError when even that does not fit). Replaces (and frees) an earlier attachment.
   */
  attach(reservation: Reservation): void {
    this.detach();
    const floor = nodeCount(this.root) * FLOOR_ROWS * FLOOR_BYTES_PER_NODE_ROW;
    if (!reservation.tryGrow(this.#held + floor)) throw this.#limitError(reservation, this.#held + floor, FLOOR_ROWS);
    this.#reservation = reservation;
    this.#floor = this.#spare = floor;
  }

  /** Stop counting: drops the buffers and frees the reservation (the run that attached it is over). */
  detach(): void {
    this.release();
    this.#reservation?.free();
    this.#reservation = null;
    this.#floor = this.#spare = 0;
  }

  /**
   * Takes every scratch buffer back from the tree (`dropScratch`) and shrinks the reservation to
   * the floor; the next call grows the buffers again.
   */
  release(): void {
    const freed = Math.min(dropScratch(this.root), this.#held);
    this.#held -= freed;
    this.#capacity = 0;
    const r = this.#reservation;
    if (r === null) return;
    const refill = Math.min(freed, this.#floor - this.#spare);
    this.#spare += refill;
    r.shrink(Math.min(freed - refill, r.size));
  }

  /**
   * Runs `chunk(state, start, end)` over rows [0, count) with this meter collecting the growths
   * (see the module comment for how an attached meter sizes chunks). `chunk` must be safe to run
   * again over the same rows (an evaluation is). `chunked` false: [0, count) is always one call
   * (a projection returns one column per batch) and a refusal is the MemoryLimitError at once.
   * Throws MemoryLimitError naming the expression when MIN_CHUNK_ROWS rows (or, not chunked, the
   * batch) do not fit.
   */
  run<T>(count: number, state: T, chunk: (state: T, start: number, end: number) => void, chunked = true): void {
    const prev = swapScratchSink(this);
    this.#pressed = false;
    try {
      for (let start = 0; start < count; ) {
        const end = chunked ? start + this.#rowsFor(count - start) : count;
        try {
          chunk(state, start, end);
        } catch (e) {
          if (!(e instanceof ScratchRefused)) throw e;
          const rows = end - start;
          if (!chunked || rows <= MIN_CHUNK_ROWS) throw this.#limitError(this.#reservation!, e.bytes, rows);
          this.#chunkRows = Math.max(MIN_CHUNK_ROWS, rows >> 1);
          this.#pressed = true;
          continue;
        }
        this.#chunks++;
        if (end - start > this.#capacity) this.#capacity = end - start;
        if (this.#held > this.#perRow * this.#capacity) this.#perRow = this.#held / this.#capacity;
        start = end;
      }
    } finally {
      swapScratchSink(prev);
      const r = this.#reservation;
      // keep the buffers for the next call only while the pool is at most half full
      if (r !== null && (this.#pressed || r.pool.reserved > r.pool.limit / 2)) this.release();
    }
  }

  /** Rows the next chunk takes of `left` still to evaluate (see the module comment). */
  #rowsFor(left: number): number {
    const r = this.#reservation;
    if (r === null) return left;
    if (this.#chunks === 0) return Math.min(left, PROBE_ROWS, this.#chunkRows); // a refused probe halves too
    const perRow = this.#perRow;
    const fits = perRow > 0 ? Math.floor((this.#held + this.#spare + r.pool.available / 2) / perRow) : Infinity;
    const rows = Math.min(left, this.#chunkRows, Math.max(MIN_CHUNK_ROWS, fits));
    if (rows < left) this.#pressed = true;
    return rows;
  }

  /**
   * `bytes` more of scratch held outside the nodes (a row filter's identity rows and mask): a
   * MemoryLimitError naming the expression when the pool refuses. Call it before allocating.
   */
  hold(bytes: number, rows: number): void {
    try {
      this.grew(bytes);
    } catch (e) {
      if (e instanceof ScratchRefused) throw this.#limitError(this.#reservation!, bytes, rows);
      throw e;
    }
  }

  #limitError(r: Reservation, bytes: number, rows: number): MemoryLimitError {
    return r.pool.limitError(`${r.consumer} (${shortLabel(this.label)}), evaluating ${rows} rows at a time,`, bytes);
  }
}
