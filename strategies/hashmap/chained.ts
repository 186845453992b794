/**
 * `chained`: DataFusion's JoinHashMap shape over typed arrays — the layout that indexes any key.
 *
 *   heads[b]  (Int32Array, power-of-two length)  first build row + 1 of bucket b (0 = empty);
 *             b = hash >>> shift, the hash's HIGH bits: one shift yields a non-negative index
 *             (no mask, no sign fix-up), and the bits are independent of the partition a row was
 *             routed to because routing hashes with another seed (core/keys/partition.ts).
 *   chain     (Int32Array, two words per build row) chain[2r] = r's full 32-bit hash,
 *             chain[2r+1] = next build row + 1 in r's bucket (0 = end). This is DataFusion's
 *             `next` array and a per-row hash array, interleaved: a walk reads a row's hash and
 *             its link from one cache line (measured ~10% faster than two arrays), and the hash
 *             rejects almost every row of another key with one integer compare, before any key
 *             word is read.
 *
 * Invariants:
 *  - A chain holds every inserted row of its bucket in ASCENDING row order (rows are inserted from
 *    the last to the first, each pushed in front), so a probe emits build rows in row order with
 *    no sort and a resumed probe continues exactly where it stopped (`ProbeCursor.next` is a build
 *    row of the chain; it is re-checked on resume, which is idempotent).
 *  - Under null-equals-nothing, build rows with a NULL in any key column are never inserted and
 *    probe rows with a NULL are skipped before hashing into the table. Under null-equals-null they
 *    are inserted (the hash gives a NULL a fixed per-column word, so equal NULL patterns share a
 *    bucket) and equality compares the NULL flags column by column before the values (a NULL's
 *    words are all zero, the same words as the value 0, so flags must be compared).
 *  - Size: heads has nextPow2(HEAD_SLOTS_PER_ROW * inserted) slots (at least 16): a load factor
 *    between 1/4 and 1/2, so most misses read an empty head. 1M rows: 8 MB heads + 8 MB chain =
 *    16 MB (the key columns are the caller's and not counted). Measured on 1M int64 keys and 10M
 *    probes (bench/hashmap-micro.ts): 1x heads saves 4 MB but probes 25-40% slower (longer
 *    chains); 4x probes 15-20% faster for 8 MB more. 2x is the default (DataFusion-like memory);
 *    `slotsPerRow` overrides it.
 *
 * Equality is specialised per probe call: one fixed-width column of width 1 or 2 (int, uint,
 * float, bool, date, timestamp — the common case) is compared on raw words in a dedicated loop with
 * no calls; everything else (several columns, bytes, HUGEINT/decimal, NULL = NULL with NULL build
 * rows) goes through `makeKeyComparator`, built once per probe batch and cached.
 *
 * Degenerate cases: an empty build (or all-NULL under null-equals-nothing) gives an empty table
 * whose probes only advance the cursor; one key duplicated a million times is one chain of a million
 * rows that a probe with capacity 8 walks 8 matches at a time, O(1) per resume. The known weakness
 * of bucket chains: a probe key that shares a bucket with a heavy key walks that key's rows (one
 * hash compare each) — expected work per probe is still inserted/slots, but skewed probes on an
 * unlucky bucket pay it.
 */
import { BUILD_STEP_ROWS, runSteps, type SharedTable, type BuildInput, type HashMapLayout, type JoinHashTable, type ProbeCursor, type ProbeInput } from '../../core/hashmap.ts';
import { anyNullMask } from '../../core/keys/normalize.ts';
import type { FixedKeyColumn, KeyColumn } from '../../core/keys/types.ts';
import { checkBuildInput, checkProbeArgs, checkProbeKeys, ProbeEquality, tableBits, type RowEquality } from './table-support.ts';
import { shareView } from '../../core/parallel/wire.ts';
import { allocInt32 } from '../../core/memory/buffer-cache.ts';

/** Head slots per inserted row before rounding up to a power of two (load factor 1/4 .. 1/2). */
export const HEAD_SLOTS_PER_ROW = 2;
/** log2 of the most head slots: 2^30. */
const MAX_BITS = 30;

const MODE_W1 = 1;
const MODE_W2 = 2;
const MODE_GENERIC = 3;

export interface ChainedOptions {
  /** Head slots per inserted row (rounded up to a power of two); default HEAD_SLOTS_PER_ROW. */
  readonly slotsPerRow?: number;
}

/** log2 of the head table size for `inserted` rows. */
export function headBits(inserted: number, slotsPerRow = HEAD_SLOTS_PER_ROW): number {
  return tableBits(Math.ceil(inserted * slotsPerRow), MAX_BITS);
}

export class ChainedHashTable implements JoinHashTable {
  readonly layout = 'chained';
  readonly inserted: number;
  readonly memoryBytes: number;
  /** Head slots (a power of two). */
  readonly buckets: number;
  readonly #heads: Int32Array;
  /** Per build row r: chain[2r] = r's hash (as int32), chain[2r+1] = next row + 1 (0 = end). */
  readonly #chain: Int32Array;
  readonly #shift: number;
  readonly #keys: readonly KeyColumn[];
  /**
   * Which loop probes: word loops for one fixed column of width 1/2 whenever no inserted build row
   * is NULL (then a NULL probe row can match nothing under either NULL rule and is skipped per
   * row); the comparator loop otherwise.
   */
  readonly #mode: number;
  readonly #generic: ProbeEquality;

  /** Over `state` (a table `chainedSteps` built, or a shared table's arrays); without it, built here in one call. */
  constructor(input: BuildInput, options: ChainedOptions = {}, state?: ChainedState) {
    state ??= runSteps(chainedSteps(input, options));
    this.#keys = input.keys;
    this.#generic = new ProbeEquality(input.keys, input.nullEqualsNull);
    this.inserted = state.inserted;
    this.#mode = state.mode;
    this.buckets = state.buckets;
    this.#shift = state.shift;
    this.#heads = state.heads;
    this.#chain = state.chain;
    this.memoryBytes = state.heads.byteLength + state.chain.byteLength;
  }

  /** Heads and chain in shared memory (copied there unless allocated shared). */
  share(): SharedTable {
    const state: ChainedState = { inserted: this.inserted, mode: this.#mode, buckets: this.buckets, shift: this.#shift, heads: shareView(this.#heads), chain: shareView(this.#chain) };
    return { layout: 'chained', state };
  }

  probe(input: ProbeInput, cursor: ProbeCursor, outProbe: Int32Array, outBuild: Int32Array, capacity: number): number {
    checkProbeArgs(input, this.#keys, outProbe, outBuild, capacity);
    if (cursor.row < 0) return 0;
    const mode = this.#mode;
    const heads = this.#heads;
    const chain = this.#chain;
    const shift = this.#shift;
    if (mode === MODE_W2) {
      const p = input.keys[0] as FixedKeyColumn;
      const b = this.#keys[0] as FixedKeyColumn;
      return probeW2(heads, chain, shift, b.words, p.words, p.nulls, input.hashes, input.rows, cursor, outProbe, outBuild, capacity);
    }
    if (mode === MODE_W1) {
      const p = input.keys[0] as FixedKeyColumn;
      const b = this.#keys[0] as FixedKeyColumn;
      return probeW1(heads, chain, shift, b.words, p.words, p.nulls, input.hashes, input.rows, cursor, outProbe, outBuild, capacity);
    }
    const g = this.#generic.prepare(input.keys);
    return probeGeneric(heads, chain, shift, g.equal, g.skip, input.hashes, input.rows, cursor, outProbe, outBuild, capacity);
  }

  contains(input: ProbeInput, out: Uint8Array, rows: Int32Array | null): void {
    checkProbeKeys(input, this.#keys);
    const mode = this.#mode;
    const heads = this.#heads;
    const chain = this.#chain;
    const shift = this.#shift;
    if (mode === MODE_W2) {
      const p = input.keys[0] as FixedKeyColumn;
      const b = this.#keys[0] as FixedKeyColumn;
      containsW2(heads, chain, shift, b.words, p.words, p.nulls, input.hashes, input.rows, out, rows);
    } else if (mode === MODE_W1) {
      const p = input.keys[0] as FixedKeyColumn;
      const b = this.#keys[0] as FixedKeyColumn;
      containsW1(heads, chain, shift, b.words, p.words, p.nulls, input.hashes, input.rows, out, rows);
    } else {
      const g = this.#generic.prepare(input.keys);
      containsGeneric(heads, chain, shift, g.equal, g.skip, input.hashes, input.rows, out, rows);
    }
  }

}

export function buildChainedTable(input: BuildInput, options?: ChainedOptions): ChainedHashTable {
  return new ChainedHashTable(input, options);
}

/** The build as steps (core/hashmap.ts `buildSteps`): rows inserted last to first, `BUILD_STEP_ROWS` a step. */
function* chainedSteps(input: BuildInput, options: ChainedOptions): Generator<void, ChainedState> {
  const { keys, rows, hashes, nullEqualsNull } = input;
  checkBuildInput(input);
  const nullRows = anyNullMask(keys);
  let nullCount = 0;
  if (nullRows !== null) for (let r = 0; r < rows; r++) nullCount += nullRows[r]!;
  const skip = nullEqualsNull ? null : nullRows;
  const inserted = nullEqualsNull ? rows : rows - nullCount;
  const w = keys.length === 1 && (!nullEqualsNull || nullCount === 0) ? keys[0]!.kind.width : 0;
  const bits = headBits(inserted, options.slotsPerRow);
  const buckets = 1 << bits;
  const shift = 32 - bits;
  const heads = allocInt32(buckets, input.shared === true);
  const chain = allocInt32(2 * rows, input.shared === true);
  for (let top = rows; top > 0; top -= BUILD_STEP_ROWS) {
    insertReversed(heads, chain, hashes, shift, skip, top, Math.max(0, top - BUILD_STEP_ROWS));
    yield;
  }
  return { inserted, mode: w === 2 ? MODE_W2 : w === 1 ? MODE_W1 : MODE_GENERIC, buckets, shift, heads, chain };
}

/** What a chained table's probe reads besides the keys (`share` / `restore`). */
interface ChainedState {
  readonly inserted: number;
  readonly mode: number;
  readonly buckets: number;
  readonly shift: number;
  readonly heads: Int32Array;
  readonly chain: Int32Array;
}

export const chainedLayout: HashMapLayout = {
  name: 'chained',
  description: 'head table on the hash high bits + next chain over build rows (any key type)',
  unsupportedReason: (input) => (input.keys.length === 0 ? 'no key columns' : null),
  build: (input) => new ChainedHashTable(input),
  *buildSteps(input) {
    return new ChainedHashTable(input, {}, yield* chainedSteps(input, {}));
  },
  restore: (shared, input) => new ChainedHashTable({ ...input, hashes: new Uint32Array(0) }, {}, shared.state as ChainedState),
};

// --- build ---------------------------------------------------------------------------------------

/**
 * Pushes rows top-1 .. bottom (the build's slices, top down) in front of their bucket's chain (every chain ends up ascending) and
 * records each row's hash beside its link. Skipped rows keep a zero entry and are never reached.
 */
function insertReversed(heads: Int32Array, chain: Int32Array, hashes: Uint32Array, shift: number, skip: Uint8Array | null, top: number, bottom: number): void {
  for (let r = top - 1; r >= bottom; r--) {
    if (skip !== null && skip[r] !== 0) continue;
    const h = hashes[r]!;
    const b = h >>> shift;
    chain[2 * r] = h | 0;
    chain[2 * r + 1] = heads[b]!;
    heads[b] = r + 1;
  }
}

// --- probe loops ---------------------------------------------------------------------------------
// One function per key shape, each monomorphic: typed arrays in, pairs out, no calls in the walk.
// Cursor protocol: `j` is the build row to look at next in row r's chain (-1: look up r's head).
// A match found when the buffers are full is left for the next call (cursor at r, j).
//
// Heads are read in a separate tight pass over a window of probe rows (`gatherHeads`) before the
// chains are walked: the loads are independent, so the CPU overlaps their cache misses instead of
// waiting for each one inside the walk (~25% faster on 1M rows, bench/hashmap-micro.ts). The window
// is about `capacity` rows (16 .. GATHER_MAX) so a tiny-capacity caller does not pay for rows it
// will not reach in this call; a call resuming mid-chain gathers nothing for that row.

/** Largest window of probe rows whose heads are gathered in one pass. */
const GATHER_MAX = 2048;
/** Shared scratch for gathered heads: every call is synchronous, so one buffer serves all tables. */
const gathered = new Int32Array(GATHER_MAX);

function gatherWindow(capacity: number): number {
  return capacity < 16 ? 16 : capacity > GATHER_MAX ? GATHER_MAX : capacity;
}

/** gathered[q - from] = heads[bucket of probe row q] for q in [from, to). */
function gatherHeads(heads: Int32Array, ph: Uint32Array, shift: number, from: number, to: number): void {
  const g = gathered;
  for (let q = from; q < to; q++) g[q - from] = heads[ph[q]! >>> shift]!;
}

function probeW2(
  heads: Int32Array,
  chain: Int32Array,
  shift: number,
  bw: Int32Array,
  pw: Int32Array,
  pn: Uint8Array | null,
  ph: Uint32Array,
  rows: number,
  cursor: ProbeCursor,
  outP: Int32Array,
  outB: Int32Array,
  cap: number,
): number {
  const window = gatherWindow(cap);
  const g = gathered;
  let r = cursor.row;
  let j = cursor.next;
  let n = 0;
  let base = r;
  let end = r;
  for (; r < rows; r++) {
    if (j < 0) {
      if (r >= end) {
        base = r;
        end = rows - r < window ? rows : r + window;
        gatherHeads(heads, ph, shift, base, end);
      }
      j = g[r - base]! - 1;
      if (j < 0) continue;
      if (pn !== null && pn[r] !== 0) {
        j = -1;
        continue;
      }
    }
    const h = ph[r]! | 0;
    const lo = pw[2 * r]!;
    const hi = pw[2 * r + 1]!;
    do {
      if (chain[2 * j] === h && bw[2 * j] === lo && bw[2 * j + 1] === hi) {
        if (n === cap) {
          cursor.row = r;
          cursor.next = j;
          return n;
        }
        outP[n] = r;
        outB[n] = j;
        n++;
      }
      j = chain[2 * j + 1]! - 1;
    } while (j >= 0);
  }
  cursor.row = -1;
  cursor.next = -1;
  return n;
}

function probeW1(
  heads: Int32Array,
  chain: Int32Array,
  shift: number,
  bw: Int32Array,
  pw: Int32Array,
  pn: Uint8Array | null,
  ph: Uint32Array,
  rows: number,
  cursor: ProbeCursor,
  outP: Int32Array,
  outB: Int32Array,
  cap: number,
): number {
  const window = gatherWindow(cap);
  const g = gathered;
  let r = cursor.row;
  let j = cursor.next;
  let n = 0;
  let base = r;
  let end = r;
  for (; r < rows; r++) {
    if (j < 0) {
      if (r >= end) {
        base = r;
        end = rows - r < window ? rows : r + window;
        gatherHeads(heads, ph, shift, base, end);
      }
      j = g[r - base]! - 1;
      if (j < 0) continue;
      if (pn !== null && pn[r] !== 0) {
        j = -1;
        continue;
      }
    }
    const h = ph[r]! | 0;
    const v = pw[r]!;
    do {
      if (chain[2 * j] === h && bw[j] === v) {
        if (n === cap) {
          cursor.row = r;
          cursor.next = j;
          return n;
        }
        outP[n] = r;
        outB[n] = j;
        n++;
      }
      j = chain[2 * j + 1]! - 1;
    } while (j >= 0);
  }
  cursor.row = -1;
  cursor.next = -1;
  return n;
}

function probeGeneric(
  heads: Int32Array,
  chain: Int32Array,
  shift: number,
  eq: RowEquality,
  skip: Uint8Array | null,
  ph: Uint32Array,
  rows: number,
  cursor: ProbeCursor,
  outP: Int32Array,
  outB: Int32Array,
  cap: number,
): number {
  const window = gatherWindow(cap);
  const g = gathered;
  let r = cursor.row;
  let j = cursor.next;
  let n = 0;
  let base = r;
  let end = r;
  for (; r < rows; r++) {
    if (j < 0) {
      if (r >= end) {
        base = r;
        end = rows - r < window ? rows : r + window;
        gatherHeads(heads, ph, shift, base, end);
      }
      j = g[r - base]! - 1;
      if (j < 0) continue;
      if (skip !== null && skip[r] !== 0) {
        j = -1;
        continue;
      }
    }
    const h = ph[r]! | 0;
    do {
      if (chain[2 * j] === h && eq(r, j)) {
        if (n === cap) {
          cursor.row = r;
          cursor.next = j;
          return n;
        }
        outP[n] = r;
        outB[n] = j;
        n++;
      }
      j = chain[2 * j + 1]! - 1;
    } while (j >= 0);
  }
  cursor.row = -1;
  cursor.next = -1;
  return n;
}

// --- membership ----------------------------------------------------------------------------------
// Same walk, stopping at the first match; rows come from `list` (or 0..rows-1), windows of
// GATHER_MAX list entries have their heads gathered first. One function per key shape, like the
// probe loops: the key compare stays inlined, with no call per chain entry.

/** gathered[k - from] = heads[bucket of probe row row(k)] for k in [from, to) (row(k) = k, or list[k]). */
function gatherRows(heads: Int32Array, ph: Uint32Array, shift: number, list: Int32Array | null, from: number, to: number): void {
  if (list === null) return gatherHeads(heads, ph, shift, from, to);
  const g = gathered;
  for (let k = from; k < to; k++) g[k - from] = heads[ph[list[k]!]! >>> shift]!;
}

function containsW2(
  heads: Int32Array,
  chain: Int32Array,
  shift: number,
  bw: Int32Array,
  pw: Int32Array,
  pn: Uint8Array | null,
  ph: Uint32Array,
  rows: number,
  out: Uint8Array,
  list: Int32Array | null,
): void {
  const g = gathered;
  const count = list === null ? rows : list.length;
  for (let base = 0; base < count; base += GATHER_MAX) {
    const end = count - base < GATHER_MAX ? count : base + GATHER_MAX;
    gatherRows(heads, ph, shift, list, base, end);
    for (let k = base; k < end; k++) {
      const r = list === null ? k : list[k]!;
      out[r] = 0;
      let j = g[k - base]! - 1;
      if (j < 0 || (pn !== null && pn[r] !== 0)) continue;
      const h = ph[r]! | 0;
      const lo = pw[2 * r]!;
      const hi = pw[2 * r + 1]!;
      do {
        if (chain[2 * j] === h && bw[2 * j] === lo && bw[2 * j + 1] === hi) {
          out[r] = 1;
          break;
        }
        j = chain[2 * j + 1]! - 1;
      } while (j >= 0);
    }
  }
}

function containsW1(
  heads: Int32Array,
  chain: Int32Array,
  shift: number,
  bw: Int32Array,
  pw: Int32Array,
  pn: Uint8Array | null,
  ph: Uint32Array,
  rows: number,
  out: Uint8Array,
  list: Int32Array | null,
): void {
  const g = gathered;
  const count = list === null ? rows : list.length;
  for (let base = 0; base < count; base += GATHER_MAX) {
    const end = count - base < GATHER_MAX ? count : base + GATHER_MAX;
    gatherRows(heads, ph, shift, list, base, end);
    for (let k = base; k < end; k++) {
      const r = list === null ? k : list[k]!;
      out[r] = 0;
      let j = g[k - base]! - 1;
      if (j < 0 || (pn !== null && pn[r] !== 0)) continue;
      const h = ph[r]! | 0;
      const v = pw[r]!;
      do {
        if (chain[2 * j] === h && bw[j] === v) {
          out[r] = 1;
          break;
        }
        j = chain[2 * j + 1]! - 1;
      } while (j >= 0);
    }
  }
}

function containsGeneric(
  heads: Int32Array,
  chain: Int32Array,
  shift: number,
  eq: RowEquality,
  skip: Uint8Array | null,
  ph: Uint32Array,
  rows: number,
  out: Uint8Array,
  list: Int32Array | null,
): void {
  const g = gathered;
  const count = list === null ? rows : list.length;
  for (let base = 0; base < count; base += GATHER_MAX) {
    const end = count - base < GATHER_MAX ? count : base + GATHER_MAX;
    gatherRows(heads, ph, shift, list, base, end);
    for (let k = base; k < end; k++) {
      const r = list === null ? k : list[k]!;
      out[r] = 0;
      let j = g[k - base]! - 1;
      if (j < 0 || (skip !== null && skip[r] !== 0)) continue;
      const h = ph[r]! | 0;
      do {
        if (chain[2 * j] === h && eq(r, j)) {
          out[r] = 1;
          break;
        }
        j = chain[2 * j + 1]! - 1;
      } while (j >= 0);
    }
  }
}
