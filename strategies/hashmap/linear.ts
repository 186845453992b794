/**
 * `linear`: open addressing with linear probing for ONE fixed-width key — DuckDB's / SwissTable's
 * shape (salt bits checked before any key), over typed arrays.
 *
 *   tags   (Uint8Array, one byte per slot, a power-of-two number of slots)
 *          0 = empty slot, else TAG_FULL | (hash & TAG_BITS): the slot's 7-bit salt. Home slot
 *          = hash >>> shift (the hash's HIGH bits, as in chained: independent of the partition
 *          routing, which hashes with another seed, and of the salt, the LOW bits); a collision
 *          takes the next slot, wrapping at the end.
 *   slots  (Int32Array, SLOT_WORDS = 3 words per slot, inline and contiguous)
 *          slots[3s] = first build row + 1 with this key, slots[3s+1..3s+2] = the key's words
 *          (word 1 is 0 for a 1-word key). A slot is read only after its salt matched, and then
 *          confirms the key on its own words — never on the build's key column.
 *   next   (Int32Array, one per build row; dropped when no key repeats)
 *          next[r] = next build row + 1 with r's key (0 = end). One slot per DISTINCT key; its
 *          rows form a chain in ASCENDING row order (rows are inserted from the last to the
 *          first, each pushed in front), so a probe emits build rows in row order and a resumed
 *          probe continues at `ProbeCursor.next`, a build row of that chain (as chained/array).
 *
 * Why the salt lives in its own byte array rather than beside the key (measured, 1M unique int64
 * keys, 10M probes, ~5% hits, bench/hashmap-micro.ts): the probe is bound by random reads, and
 * on this class of machine they are cheap only while the array read fits the last-level cache
 * share (~8 MB: 3-5 ns per independent read; 16+ MB: 25 ns, 125-160 ns dependent). A 16-byte
 * [hash, row, key, key] slot array is 32 MB for 1M keys, so every probe paid a DRAM miss and the
 * layout was only ~15% faster than chained; the 2 MB tag array resolves ~99% of the probes
 * (every miss whose salt differs — 127 of 128 — and every empty home slot) in cache, and only
 * hits (and 1/128 salt false positives) read a 12-byte slot, ~1 line.
 *
 * A probe resolves a window of rows in three tight passes, no calls per row:
 *  1. gather the home tag of every row (independent loads: their cache misses overlap);
 *  2. scan tags from each non-empty home for the first salt match (tags only, in cache now),
 *     listing (row, slot) candidates in row order; NULL rows are resolved here;
 *  3. confirm each candidate's key words in its slot (few, independent loads), continuing the
 *     scan on a salt false positive; matches are compacted in place, in row order;
 * then the matches' chains are emitted. Only pass 3 depends on the key width (1 or 2 words).
 *
 * Sizing (`slotBits`, table-support.ts, shared with swiss): slots = nextPow2(4 x keys) while that is at most 2^20 slots (13.6 MB),
 * else nextPow2(2 x keys); at least 16. keys = the distinct keys, so the load factor is at most
 * 1/2 and every scan ends at an empty slot. In cache the probe's cost is the branchy tag scan,
 * which the lower load factor shortens (1K-100K keys: 1.7-2x faster probes); beyond 2^20 slots
 * memory wins. The table is first sized for the non-NULL rows (an upper bound of the distinct
 * keys) and re-hashed into a smaller one when duplicates make the distinct count small enough
 * (1M copies of one key end in 16 slots). 1M unique keys: 2^21 slots x 13 B = 26 MB, no `next`
 * (chained: 16 MB). Duplicates add 4 bytes per build row.
 *
 * Usable for: exactly ONE key column of a fixed width of 1 or 2 words — int (every integer width
 * up to 64 bits, date, time, timestamp: widened to 2 words), uint (UBIGINT), float (DOUBLE/FLOAT,
 * -0.0 and NaN already folded by normalisation), bool (1 word). Refused (`unsupportedReason`):
 * several key columns, bytes (VARCHAR/BLOB), decimals and HUGEINT (4 / 3 words), and more than
 * LINEAR_MAX_ROWS build rows. (`auto` picks `swiss`, which replaced this layout on the probe path; it
 * stays registered as the baseline the swiss table is measured against.)
 *
 * NULLs are handled, not refused: under null-equals-nothing NULL build rows are not inserted and
 * NULL probe rows miss without touching the table. Under null-equals-null the NULL build rows form
 * one extra chain (`nullFirst` + `next`, ascending like every chain) that a NULL probe row emits;
 * NULL rows never enter the slots, so a NULL never equals the value whose words are zero.
 */
import { BUILD_STEP_ROWS, runSteps, type BuildInput, type HashMapLayout, type JoinHashTable, type ProbeCursor, type ProbeInput, type SharedTable } from '../../core/hashmap.ts';
import { shareView } from '../../core/parallel/wire.ts';
import { allocInt32, allocUint8 } from '../../core/memory/buffer-cache.ts';
import type { FixedKeyColumn, KeyColumn } from '../../core/keys/types.ts';
import { containsWindows, probeWindows, WINDOW } from './windowed-probe.ts';
import { checkBuildInput, checkProbeArgs, checkProbeKeys, SLOT_MAX_BITS, slotBits } from './table-support.ts';

/** 32-bit words per slot: [first row + 1, key word 0, key word 1]. */
export const SLOT_WORDS = 3;
/** Salt bits kept per slot (the hash's low bits) and the bit that marks a slot occupied. */
const TAG_BITS = 0x7f;
const TAG_FULL = 0x80;
/** Most build rows the layout indexes (2^26: 2^27 slots = 1.7 GB). */
export const LINEAR_MAX_ROWS = 2 ** (SLOT_MAX_BITS - 1);

/** Why the linear layout cannot index these keys, or null. O(1): it never scans the keys. */
export function linearUnsupportedReason(input: BuildInput): string | null {
  const { keys } = input;
  if (keys.length !== 1) return `the linear layout needs exactly one key column, got ${keys.length}`;
  const { order, width, sqlType } = keys[0]!.kind;
  const fixed = order === 'int' || order === 'uint' || order === 'float' || order === 'bool';
  if (!fixed || (width !== 1 && width !== 2)) {
    return `the linear layout needs one fixed-width key of 1 or 2 words (integer, float, boolean, date, timestamp), got ${sqlType}`;
  }
  if (input.rows > LINEAR_MAX_ROWS) return `the linear layout indexes at most 2^${SLOT_MAX_BITS - 1} build rows, got ${input.rows}`;
  return null;
}

export class LinearHashTable implements JoinHashTable {
  readonly layout = 'linear';
  readonly inserted: number;
  readonly memoryBytes: number;
  /** Slots in the table (a power of two). */
  readonly slots: number;
  /** Occupied slots: the distinct non-NULL keys. */
  readonly distinct: number;
  readonly distinctKeys: number;
  /** Whether some chain holds more than one row (otherwise `next` is not kept). */
  readonly hasDuplicates: boolean;
  readonly #tags: Uint8Array;
  readonly #slots: Int32Array;
  readonly #next: Int32Array | null;
  readonly #shift: number;
  readonly #mask: number;
  readonly #width: number;
  /** First NULL build row + 1 under null-equals-null (0: none, or null-equals-nothing). */
  readonly #nullFirst: number;
  readonly #keys: readonly KeyColumn[];

  /** Over `state` (a table `linearSteps` built, or a shared table's arrays); without it, built here in one call. */
  constructor(input: BuildInput, state?: LinearState) {
    const r = state ?? runSteps(linearSteps(input));
    this.#keys = input.keys;
    this.#width = r.width;
    this.inserted = r.inserted;
    this.distinct = r.distinct;
    this.distinctKeys = r.distinct;
    this.hasDuplicates = r.next !== null;
    this.#nullFirst = r.nullFirst;
    this.#tags = r.tags;
    this.#slots = r.slots;
    this.#next = r.next;
    this.slots = r.slotCount;
    this.#shift = r.shift;
    this.#mask = r.mask;
    this.memoryBytes = r.tags.byteLength + r.slots.byteLength + (r.next === null ? 0 : r.next.byteLength);
  }

  /** Salts, slots and chain in shared memory (copied there unless allocated shared). */
  share(): SharedTable {
    const state: LinearState = {
      width: this.#width,
      inserted: this.inserted,
      distinct: this.distinct,
      nullFirst: this.#nullFirst,
      tags: shareView(this.#tags),
      slots: shareView(this.#slots),
      next: this.#next === null ? null : shareView(this.#next),
      slotCount: this.slots,
      shift: this.#shift,
      mask: this.#mask,
    };
    return { layout: 'linear', state };
  }

  probe(input: ProbeInput, cursor: ProbeCursor, outProbe: Int32Array, outBuild: Int32Array, capacity: number): number {
    checkProbeArgs(input, this.#keys, outProbe, outBuild, capacity);
    const p = input.keys[0] as FixedKeyColumn;
    return probeWindows(input.rows, cursor, this.#next, outProbe, outBuild, capacity, (list, from, to) => this.#resolve(p, input.hashes, list, from, to), MATCHES);
  }

  contains(input: ProbeInput, out: Uint8Array, rows: Int32Array | null): void {
    checkProbeKeys(input, this.#keys);
    const p = input.keys[0] as FixedKeyColumn;
    containsWindows(rows === null ? input.rows : rows.length, rows, out, (list, from, to) => this.#resolve(p, input.hashes, list, from, to), MATCHES);
  }


  /**
   * Resolves probe rows `row(k)` for k in [from, to) (row(k) = k, or list[k]): leaves the rows
   * that match in candRow[0..c) (ascending k) with their first build row + 1 in candSlot, and
   * returns c. At most WINDOW entries.
   */
  #resolve(p: FixedKeyColumn, ph: Uint32Array, list: Int32Array | null, from: number, to: number): number {
    const tags = this.#tags;
    const shift = this.#shift;
    gatherTags(tags, ph, shift, list, from, to);
    const c = matchTags(tags, shift, this.#mask, this.#nullFirst, p.nulls, ph, list, from, to);
    return this.#width === 2 ? confirmW2(tags, this.#slots, this.#mask, p.words, ph, c) : confirmW1(tags, this.#slots, this.#mask, p.words, ph, c);
  }
}

export function buildLinearTable(input: BuildInput): LinearHashTable {
  return new LinearHashTable(input);
}

/** The build as steps (core/hashmap.ts `buildSteps`): rows inserted last to first, `BUILD_STEP_ROWS` a step. */
function* linearSteps(input: BuildInput): Generator<void, LinearState> {
  checkBuildInput(input);
  const reason = linearUnsupportedReason(input);
  if (reason !== null) throw new RangeError(reason);
  const { keys, rows, hashes, nullEqualsNull } = input;
  const col = keys[0] as FixedKeyColumn;
  const nulls = col.nulls;
  const width = col.kind.width;
  let nullCount = 0;
  if (nulls !== null) for (let r = 0; r < rows; r++) nullCount += nulls[r] === 0 ? 0 : 1;
  const valid = rows - nullCount;
  const inserted = nullEqualsNull ? rows : valid;

  let bits = slotBits(valid);
  const shared = input.shared === true;
  let tags = allocUint8(1 << bits, shared);
  let slots = allocInt32(SLOT_WORDS << bits, shared);
  const next = allocInt32(rows, shared);
  const mask = (1 << bits) - 1;
  let distinct = 0;
  for (let top = rows; top > 0; top -= BUILD_STEP_ROWS) {
    const bottom = Math.max(0, top - BUILD_STEP_ROWS);
    distinct +=
      width === 2 ? insertW2(tags, slots, next, 32 - bits, mask, col.words, nulls, hashes, top, bottom) : insertW1(tags, slots, next, 32 - bits, mask, col.words, nulls, hashes, top, bottom);
    yield;
  }
  let nullFirst = 0;
  if (nullEqualsNull && nulls !== null) {
    for (let r = rows - 1; r >= 0; r--) {
      if (nulls[r] === 0) continue;
      next[r] = nullFirst;
      nullFirst = r + 1;
    }
  }
  const fewer = slotBits(distinct);
  if (fewer < bits) {
    yield;
    const t = allocUint8(1 << fewer, shared);
    const s = allocInt32(SLOT_WORDS << fewer, shared);
    rehash(tags, slots, t, s, fewer, hashes);
    tags = t;
    slots = s;
    bits = fewer;
  }
  const hasDuplicates = distinct < valid || (nullEqualsNull && nullCount > 1);
  return { width, inserted, distinct, nullFirst, tags, slots, next: hasDuplicates ? next : null, slotCount: 1 << bits, shift: 32 - bits, mask: (1 << bits) - 1 };
}

export const linearLayout: HashMapLayout = {
  name: 'linear',
  description: 'open addressing, linear probing: 1-byte salt per slot + inline [row, key words] (one fixed-width key)',
  unsupportedReason: linearUnsupportedReason,
  build: (input) => new LinearHashTable(input),
  *buildSteps(input) {
    return new LinearHashTable(input, yield* linearSteps(input));
  },
  restore: (shared, input) => new LinearHashTable({ ...input, hashes: new Uint32Array(0) }, shared.state as LinearState),
};

/** What a linear table's probe reads besides the keys (`share` / `restore`). */
interface LinearState {
  readonly width: number;
  readonly inserted: number;
  readonly distinct: number;
  readonly nullFirst: number;
  readonly tags: Uint8Array;
  readonly slots: Int32Array;
  readonly next: Int32Array | null;
  readonly slotCount: number;
  readonly shift: number;
  readonly mask: number;
}

// --- build ---------------------------------------------------------------------------------------
// Rows top-1 .. bottom (the build's slices, top down): a row whose key already has a slot is pushed in front of that slot's chain,
// any other row claims the first empty slot from its home. Returns the number of slots claimed.
// `next` is all zeros on entry, so a chain's last row needs no write. One function per key width
// (monomorphic kernels: the key compare is inlined, with no width test per slot visited).

function insertW2(
  tags: Uint8Array,
  slots: Int32Array,
  next: Int32Array,
  shift: number,
  mask: number,
  w: Int32Array,
  nulls: Uint8Array | null,
  hashes: Uint32Array,
  top: number,
  bottom: number,
): number {
  let distinct = 0;
  for (let r = top - 1; r >= bottom; r--) {
    if (nulls !== null && nulls[r] !== 0) continue;
    const h = hashes[r]!;
    const tag = (h & TAG_BITS) | TAG_FULL;
    const lo = w[2 * r]!;
    const hi = w[2 * r + 1]!;
    let s = h >>> shift;
    for (;;) {
      const x = tags[s]!;
      const o = 3 * s;
      if (x === 0) {
        tags[s] = tag;
        slots[o] = r + 1;
        slots[o + 1] = lo;
        slots[o + 2] = hi;
        distinct++;
        break;
      }
      if (x === tag && slots[o + 1] === lo && slots[o + 2] === hi) {
        next[r] = slots[o]!;
        slots[o] = r + 1;
        break;
      }
      s = (s + 1) & mask;
    }
  }
  return distinct;
}

function insertW1(
  tags: Uint8Array,
  slots: Int32Array,
  next: Int32Array,
  shift: number,
  mask: number,
  w: Int32Array,
  nulls: Uint8Array | null,
  hashes: Uint32Array,
  top: number,
  bottom: number,
): number {
  let distinct = 0;
  for (let r = top - 1; r >= bottom; r--) {
    if (nulls !== null && nulls[r] !== 0) continue;
    const h = hashes[r]!;
    const tag = (h & TAG_BITS) | TAG_FULL;
    const v = w[r]!;
    let s = h >>> shift;
    for (;;) {
      const x = tags[s]!;
      const o = 3 * s;
      if (x === 0) {
        tags[s] = tag;
        slots[o] = r + 1;
        slots[o + 1] = v;
        distinct++;
        break;
      }
      if (x === tag && slots[o + 1] === v) {
        next[r] = slots[o]!;
        slots[o] = r + 1;
        break;
      }
      s = (s + 1) & mask;
    }
  }
  return distinct;
}

/** Moves the occupied slots into a table of 2^bits slots (keys are distinct: no compares). */
function rehash(oldTags: Uint8Array, oldSlots: Int32Array, tags: Uint8Array, slots: Int32Array, bits: number, hashes: Uint32Array): void {
  const shift = 32 - bits;
  const mask = (1 << bits) - 1;
  for (let i = 0; i < oldTags.length; i++) {
    const x = oldTags[i]!;
    if (x === 0) continue;
    const first = oldSlots[3 * i]!;
    let s = hashes[first - 1]! >>> shift; // every row of a chain has the key's hash
    while (tags[s] !== 0) s = (s + 1) & mask;
    tags[s] = x;
    slots[3 * s] = first;
    slots[3 * s + 1] = oldSlots[3 * i + 1]!;
    slots[3 * s + 2] = oldSlots[3 * i + 2]!;
  }
}

// --- probe ---------------------------------------------------------------------------------------
// Shared scratch (every call is synchronous, so one set serves all tables): the window's home
// tags, then its candidates / matches as parallel lists in row order.

const homeTag = new Int32Array(WINDOW);
const candRow = new Int32Array(WINDOW);
const candSlot = new Int32Array(WINDOW);
const MATCHES = { rows: candRow, firsts: candSlot };

/** Pass 1: homeTag[k - from] = the tag of row(k)'s home slot (0: empty, a sure miss). */
function gatherTags(tags: Uint8Array, ph: Uint32Array, shift: number, list: Int32Array | null, from: number, to: number): void {
  const g = homeTag;
  if (list === null) for (let k = from; k < to; k++) g[k - from] = tags[ph[k]! >>> shift]!;
  else for (let k = from; k < to; k++) g[k - from] = tags[ph[list[k]!]! >>> shift]!;
}

/**
 * Pass 2: for each row, the first slot from its home whose tag equals the row's salt (tags only).
 * Lists (row, slot) in candRow/candSlot; a NULL row is listed with slot -1 - nullFirst when NULL
 * build rows match it (null-equals-null), and skipped otherwise.
 */
function matchTags(
  tags: Uint8Array,
  shift: number,
  mask: number,
  nullFirst: number,
  pn: Uint8Array | null,
  ph: Uint32Array,
  list: Int32Array | null,
  from: number,
  to: number,
): number {
  const g = homeTag;
  const cr = candRow;
  const cs = candSlot;
  let c = 0;
  for (let k = from; k < to; k++) {
    let x = g[k - from]!;
    const q = list === null ? k : list[k]!;
    if (pn !== null && pn[q] !== 0) {
      if (nullFirst !== 0) {
        cr[c] = q;
        cs[c] = -1 - nullFirst;
        c++;
      }
      continue;
    }
    if (x === 0) continue;
    const h = ph[q]!;
    const tag = (h & TAG_BITS) | TAG_FULL;
    let s = h >>> shift;
    while (x !== tag) {
      s = (s + 1) & mask;
      x = tags[s]!;
      if (x === 0) break;
    }
    if (x === 0) continue;
    cr[c] = q;
    cs[c] = s;
    c++;
  }
  return c;
}

/**
 * Pass 3: confirms the key words of each candidate slot; on a salt false positive the scan goes on
 * from the next slot. Keeps the matches (row, first build row + 1) compacted in place, in order.
 * One function per key width, as the inserts (the compare inlined in a monomorphic loop).
 */
function confirmW2(tags: Uint8Array, slots: Int32Array, mask: number, pw: Int32Array, ph: Uint32Array, c: number): number {
  const cr = candRow;
  const cs = candSlot;
  let m = 0;
  for (let i = 0; i < c; i++) {
    const q = cr[i]!;
    let s = cs[i]!;
    if (s < 0) {
      cr[m] = q;
      cs[m] = -1 - s;
      m++;
      continue;
    }
    const lo = pw[2 * q]!;
    const hi = pw[2 * q + 1]!;
    let o = 3 * s;
    if (slots[o + 1] !== lo || slots[o + 2] !== hi) {
      const tag = (ph[q]! & TAG_BITS) | TAG_FULL;
      for (;;) {
        s = (s + 1) & mask;
        const x = tags[s]!;
        if (x === 0) break;
        o = 3 * s;
        if (x === tag && slots[o + 1] === lo && slots[o + 2] === hi) break;
      }
      if (tags[s] === 0) continue;
    }
    cr[m] = q;
    cs[m] = slots[o]!;
    m++;
  }
  return m;
}

function confirmW1(tags: Uint8Array, slots: Int32Array, mask: number, pw: Int32Array, ph: Uint32Array, c: number): number {
  const cr = candRow;
  const cs = candSlot;
  let m = 0;
  for (let i = 0; i < c; i++) {
    const q = cr[i]!;
    let s = cs[i]!;
    if (s < 0) {
      cr[m] = q;
      cs[m] = -1 - s;
      m++;
      continue;
    }
    const v = pw[q]!;
    let o = 3 * s;
    if (slots[o + 1] !== v) {
      const tag = (ph[q]! & TAG_BITS) | TAG_FULL;
      for (;;) {
        s = (s + 1) & mask;
        const x = tags[s]!;
        if (x === 0) break;
        o = 3 * s;
        if (x === tag && slots[o + 1] === v) break;
      }
      if (tags[s] === 0) continue;
    }
    cr[m] = q;
    cs[m] = slots[o]!;
    m++;
  }
  return m;
}
