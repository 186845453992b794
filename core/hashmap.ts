/**
 * The hash-map contract of the hash join (slot `hashmap`).
 *
 * A layout builds a `JoinHashTable` over the build side's normalised key columns — contiguous,
 * one row per build row, row ids 0..rows-1 — and the hashes of those keys (computed by the join
 * with `hashKeys(keys, seed)`; layouts that address by hash use them, `array` ignores them).
 * The same table serves two readers: the join's probe (all matching build rows per probe row)
 * and the `map` pushdown policy (does *any* build row match?), which is why the pushdown must
 * hash probe keys with the build's seed: a different seed rejects every row.
 *
 * NULL rules are the table's business: under `null-equals-nothing` build rows with a NULL in any
 * key column are not inserted and probe rows with a NULL never match; under `null-equals-null`
 * a NULL equals a NULL in the same column (the comparator never looks at NULLs, so layouts check
 * `nulls` themselves).
 *
 * Sharing with worker threads (config `threads` > 1): a table that can be probed from another
 * thread implements `share()` — its state as plain data whose typed arrays live in
 * `SharedArrayBuffer`s — and its layout implements `restore()`, which rebuilds an equal probe
 * object over that same memory (no copy, no rebuild) in the worker. `BuildInput.shared` asks the
 * layout to allocate its arrays in shared memory from the start, so `share()` copies nothing. A
 * restored table is read-only: it never releases its arrays (the building thread owns them). A
 * layout without the pair cannot run with threads > 1 and the hash join says so
 * (UnsupportedJoinError), rather than silently running single-threaded.
 *
 * Interruptible builds: a table over millions of rows takes seconds (random writes, one cache miss
 * each). A layout may give `buildSteps`: the same build as a generator that yields between steps of
 * at most `BUILD_STEP_ROWS` rows (`build` then is the steps run back to back), and
 * `buildTablePaced` gives the event loop a turn between two steps whenever a `Pacer` says one is
 * due — so an abort ends the build there. A layout without it is built in one call.
 */
import type { KeyColumn } from './keys/types.ts';
import type { Pacer } from './next-turn.ts';
import type { Strategy } from './registry/registry.ts';

export interface BuildInput {
  readonly keys: readonly KeyColumn[];
  /** One hash per build row (`hashKeys(keys, seed)`). */
  readonly hashes: Uint32Array;
  readonly rows: number;
  readonly nullEqualsNull: boolean;
  /**
   * Allocate the table's arrays in shared memory (`SharedArrayBuffer`): the table will be shared
   * with worker threads. Absent means false.
   */
  readonly shared?: boolean;
}

/**
 * A built table as shared memory: everything `HashMapLayout.restore` needs to rebuild an equal
 * probe object on another thread. `state` is plain data — numbers, strings, booleans, nulls and
 * typed arrays over `SharedArrayBuffer`s — so it crosses `postMessage` without a copy.
 */
export interface SharedTable {
  /** The registered name of the layout whose `restore` rebuilds it (e.g. `swiss` under `auto`). */
  readonly layout: string;
  readonly state: unknown;
}

/** What `restore` gets besides the state: the build keys (already in shared memory) and the NULL rule. */
export interface RestoreInput {
  readonly keys: readonly KeyColumn[];
  readonly rows: number;
  readonly nullEqualsNull: boolean;
}

/** The `hashes` of a ProbeInput for a table with `needsProbeHashes: false` (it never reads them). */
export const NO_PROBE_HASHES: Uint32Array = new Uint32Array(0);

/** One probe batch as the table sees it. */
export interface ProbeInput {
  readonly keys: readonly KeyColumn[];
  /** Hashes with the build's seed (may be ignored by layouts that do not hash). */
  readonly hashes: Uint32Array;
  readonly rows: number;
}

/**
 * Where a probe stopped when its output buffers filled up: `row` is the next probe row to look
 * at, `next` the build row to continue from within that probe row's chain (-1: start afresh).
 */
export class ProbeCursor {
  row = 0;
  next = -1;
  reset(): void {
    this.row = 0;
    this.next = -1;
  }
  get done(): boolean {
    return this.row < 0;
  }
}

export interface JoinHashTable {
  /** Layout name, for metrics. */
  readonly layout: string;
  /** Build rows inserted (rows with NULL keys are excluded under null-equals-nothing). */
  readonly inserted: number;
  /** Bytes held by the table's own arrays (not the key columns). */
  readonly memoryBytes: number;
  /**
   * Distinct non-NULL keys indexed, when the layout counted them while building (open-addressing
   * layouts do, for free); undefined otherwise. Pushdown uses it to skip counting them again.
   */
  readonly distinctKeys?: number;
  /**
   * False when the table never reads `ProbeInput.hashes` (layouts that address by the key itself:
   * `array`, `rank`): the join and the `map` filter then skip hashing the probe rows and pass an
   * empty array. Absent means true.
   */
  readonly needsProbeHashes?: boolean;
  /**
   * Writes (probeRow, buildRow) pairs for every equal-key match, probe rows in order and build
   * rows in insertion order within one probe row, resuming at `cursor`; stops when `capacity`
   * pairs are written. Returns the count; `cursor.row` becomes -1 once every probe row is done.
   */
  probe(input: ProbeInput, cursor: ProbeCursor, outProbe: Int32Array, outBuild: Int32Array, capacity: number): number;
  /**
   * Membership: `out[r] = 1` if some build row's key equals probe row r's, else 0 — for the rows
   * listed in `rows` (or all rows when `rows` is null; unlisted entries are left untouched).
   */
  contains(input: ProbeInput, out: Uint8Array, rows: Int32Array | null): void;
  /**
   * Like `contains`, but may answer 1 for a row that no build key equals (never 0 for one that
   * does): the cheaper membership a pushdown filter wants, since a filter only ever says "maybe".
   * Optional: a layout with no cheaper answer omits it and callers use `contains`.
   */
  mayContain?(input: ProbeInput, out: Uint8Array, rows: Int32Array | null): void;
  /**
   * The join is done with the table: it may hand its arrays to the buffer cache
   * (core/memory/buffer-cache.ts) and must refuse further probes. Optional.
   */
  release?(): void;
  /**
   * The table as shared memory (see the module comment): arrays allocated shared
   * (`BuildInput.shared`) are handed as they are, others are copied into shared memory. Optional:
   * a table without it cannot be probed from worker threads.
   */
  share?(): SharedTable;
}

export interface HashMapLayout extends Strategy {
  /** Why this layout cannot index these keys (e.g. `array` needs one integer key), or null. */
  unsupportedReason(input: BuildInput): string | null;
  /**
   * An upper bound of the table's `memoryBytes`, known before anything is allocated: the join
   * reserves it first, so a memory limit fails before the arrays exist. Optional — layouts sized
   * by their key RANGE (`array`, `rank`, whose tables may dwarf the rows) give one; tables sized by
   * rows are reserved once built.
   */
  estimateBytes?(input: BuildInput): number;
  build(input: BuildInput): JoinHashTable;
  /**
   * The same build as steps of at most `BUILD_STEP_ROWS` rows each (see the module comment), the
   * table as the generator's value. Optional.
   */
  buildSteps?(input: BuildInput): Generator<void, JoinHashTable>;
  /**
   * Rebuilds the probe object of a table this layout built and `share()`d — on another thread,
   * over the same shared memory. Its `probe`, `contains` and `mayContain` answer exactly as the
   * original's; it never releases the arrays. Required of a layout whose tables have `share`.
   */
  restore?(shared: SharedTable, input: RestoreInput): JoinHashTable;
}

/** The most rows one step of `HashMapLayout.buildSteps` inserts. */
export const BUILD_STEP_ROWS = 1 << 16;

/** A generator of steps run back to back: its value. */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * `layout.build(input)`, under `pacer`: a turn of the event loop (and the signal's reason thrown
 * if it was aborted) between two build steps whenever one is due; before and after the one call
 * of a layout without `buildSteps`.
 */
export async function buildTablePaced(layout: HashMapLayout, input: BuildInput, pacer: Pick<Pacer, 'due' | 'turn'>): Promise<JoinHashTable> {
  if (pacer.due()) await pacer.turn();
  if (layout.buildSteps === undefined) return layout.build(input);
  const steps = layout.buildSteps(input);
  try {
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      if (pacer.due()) await pacer.turn();
    }
  } finally {
    steps.return(undefined as never); // an abandoned build lets its scratch go (its `finally` blocks run)
  }
}
