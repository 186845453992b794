/**
 * `swiss`: open addressing over GROUPS of four slots whose 1-byte salts are read as one 32-bit word
 * and matched all at once with SWAR bit tricks — SwissTable's probe, sized for a JS engine (a
 * 4-byte group instead of a 16-byte SSE one). Indexes ANY key.
 *
 *   groups  (Int32Array, one word per group, a power-of-two number of groups)
 *           bits 0-6 of byte j: the salt of slot 4g + j (hash & 0x7f, 0 mapped to 1; 0 = empty);
 *           bit 7 of byte 0: DISPLACED — a key whose probe passed this group while it was full
 *           lives further on. Home group = hash >>> shift (the hash's HIGH bits; the salt is the LOW
 *           bits, and partition routing hashes with another seed, so the three are independent).
 *           A key lives in the first group from its home that had a free slot when it was inserted
 *           (linear probing by group), so a probe that finds no match in a group without the
 *           DISPLACED bit can stop — a stronger stop than "the group has an empty slot".
 *   slots   (Int32Array, `stride` words per slot)
 *           slots[s*stride] = first build row + 1 with this key. Then, for ONE fixed-width key of 1
 *           or 2 words (int of any width, uint, float, bool, date, timestamp): the key's words, so a
 *           hit is confirmed without touching the build's key column ("inline") — only the low word
 *           when every build key has the same high word ("narrow": keys within one 2^32 window,
 *           the common case; a probe key with another high word cannot match). For anything else
 *           (several columns, strings, binary, decimals, HUGEINT): the key's full 32-bit hash, and a
 *           hit is confirmed by hash, then by the key comparator ("hashed"); one plain string or
 *           binary column is compared by `confirmPlainBytes`, which issues every candidate's
 *           random reads of the build offsets before comparing any bytes.
 *   next    (Int32Array, one per build row; dropped when no key repeats)
 *           next[r] = next build row + 1 with r's key (0 = end). Rows are inserted last to first, each
 *           pushed in front of its key's chain, so chains are ASCENDING — the order the contract
 *           wants and the order a resumed probe (`ProbeCursor.next`) continues in.
 *
 * Why groups and SWAR (1M unique int64 keys, 10M probes at ~5% hits, bench/hashmap-micro.ts): the
 * probe of a miss-heavy join is bound by the branch that decides "could this row match?". Scanning
 * salts byte by byte (the `linear` layout) mispredicts on about every other row (half the home
 * slots are occupied). Testing "some lane holds my salt, or the group is DISPLACED" on one word is
 * branch-free and true for ~11% of rows (5% hits, ~1.5% salt collisions, the rest displaced).
 * Probe ~119 ms (linear ~227, chained ~571). A window of probe rows is resolved in passes:
 *  1. SELECT (branch-free, independent loads whose misses overlap): one group word per row, the
 *     SWAR test, one candidate bit per row in 32-row mask words, expanded to a candidate list;
 *  2. LOCATE / GATHER / COMPARE (the candidates; see the comment above `locate`).
 * The SWAR test `(x - 0x01010101) & ~x & 0x80808080` (x = salts ^ salt * 0x01010101, lanes < 0x80)
 * is nonzero iff some lane of x is zero — exact for "is there a match", though it may flag extra
 * lanes above a true zero, which is why every flagged lane is re-checked.
 *
 * Sizing: slots = nextPow2(4 x keys) while that is at most 2^20 slots, else nextPow2(2 x keys)
 * (load factor <= 1/2), at least 16 (4 groups). The table is first sized for the non-NULL rows
 * (an upper bound on distinct keys) and re-hashed smaller when duplicates leave few distinct keys.
 * 1M unique int64 keys < 2^32: 2^21 slots = 2 MB of groups (cache-resident; that is what makes
 * misses cheap) + 16 MB of narrow inline slots (24 MB when the keys span high words). At most
 * 2^26 build rows.
 *
 * NULLs: under null-equals-nothing NULL build rows are not inserted and NULL probe rows miss.
 * Under null-equals-null, inline tables keep the NULL build rows out of the slots as one extra
 * ascending chain (`nullFirst`) that a NULL probe row emits (a NULL's words are zero and must not
 * equal the value 0); hashed tables insert them like any key (a NULL hashes to a fixed per-column
 * word) and the comparator compares NULL flags before values.
 */
import { BUILD_STEP_ROWS, runSteps, type BuildInput, type HashMapLayout, type JoinHashTable, type ProbeCursor, type ProbeInput, type SharedTable } from '../../core/hashmap.ts';
import { shareView } from '../../core/parallel/wire.ts';
import { anyNullMask } from '../../core/keys/normalize.ts';
import type { BytesKeyColumn, FixedKeyColumn, KeyColumn } from '../../core/keys/types.ts';
import { isBytesKey } from '../../core/keys/types.ts';
import { containsWindows, expandMasks, probeWindows, WINDOW } from './windowed-probe.ts';
import { checkBuildInput, checkProbeArgs, checkProbeKeys, makeRowEquality, ProbeEquality, ReleaseGuard, slotBits, type RowEquality } from './table-support.ts';
import { releaseInt32, takeInt32 } from '../../core/memory/buffer-cache.ts';
import { keyExtremes } from '../../core/keys/extremes.ts';

/** The sign bit of a 32-bit word (flipping it makes a signed compare an unsigned one). */
const SIGN_BIT = 0x80000000 | 0;
/** One in every byte: `tag * LOW` repeats a tag in the four bytes of a word. */
const LOW = 0x01010101;
/** The top bit of every byte (where the SWAR zero test reports a zero lane). */
const HIGH = 0x80808080 | 0;
/** Slots per group (bytes per group word). */
const GROUP_SLOTS = 4;
/** log2 of the largest slot count (2^27: 2^25 groups; the home group keeps 7 hash bits for the salt). */
const MAX_SLOT_BITS = 27;
/** Most build rows the layout indexes. */
export const SWISS_MAX_ROWS = 2 ** (MAX_SLOT_BITS - 1);

/** How slots hold keys (see the module comment). */
const INLINE1 = 1;
const INLINE2 = 2;
/** A 2-word key whose build values share one high word: slots hold the low word (like INLINE1). */
const NARROW2 = 4;
const HASHED = 3;

export function swissUnsupportedReason(input: BuildInput): string | null {
  if (input.keys.length === 0) return 'no key columns';
  if (input.rows > SWISS_MAX_ROWS) return `the swiss layout indexes at most 2^${MAX_SLOT_BITS - 1} build rows, got ${input.rows}`;
  return null;
}

/**
 * The high word every non-NULL row of a 2-word key column has, with the range of their low words
 * (unsigned), or null when the high words differ. Keys are ordered high word first, so they share
 * one exactly when the smallest and the largest do (`keyExtremes`, shared with the other layouts and
 * the bounds pushdown); floats order otherwise and are scanned here.
 */
function narrowRange(col: FixedKeyColumn, rows: number): { hi: number; minLo: number; maxLo: number; count: number } | null {
  const w = col.words;
  const order = col.kind.order;
  if ((order === 'int' || order === 'uint') && col.length === rows) {
    const e = keyExtremes(col);
    if (e === null) return { hi: 0, minLo: 0, maxLo: 0, count: 0 };
    const hi = w[2 * e.minRow + 1]!;
    if (w[2 * e.maxRow + 1] !== hi) return null;
    return { hi, minLo: w[2 * e.minRow]! >>> 0, maxLo: w[2 * e.maxRow]! >>> 0, count: e.count };
  }
  // not an extremes pass: floats order otherwise, and the scan stops at the first other high word
  const nulls = col.nulls;
  let hi = 0;
  let minLo = 0;
  let maxLo = 0;
  let count = 0;
  for (let r = 0; r < rows; r++) {
    if (nulls !== null && nulls[r] !== 0) continue;
    const x = w[2 * r + 1]!;
    const lo = w[2 * r]! >>> 0;
    if (count++ === 0) {
      hi = x;
      minLo = maxLo = lo;
    } else if (x !== hi) return null;
    else if (lo < minLo) minLo = lo;
    else if (lo > maxLo) maxLo = lo;
  }
  return { hi, minLo, maxLo, count };
}

/** Whether keys are stored inline (one fixed-width column of 1 or 2 words), and with which width. */
function inlineWidth(keys: readonly KeyColumn[]): number {
  if (keys.length !== 1) return 0;
  const k = keys[0]!;
  if (isBytesKey(k)) return 0;
  const { order, width } = k.kind;
  const fixed = order === 'int' || order === 'uint' || order === 'float' || order === 'bool';
  return fixed && (width === 1 || width === 2) ? width : 0;
}

export class SwissHashTable implements JoinHashTable {
  readonly layout = 'swiss';
  readonly inserted: number;
  readonly memoryBytes: number;
  /** Slots in the table (4 per group, a power of two). */
  readonly slots: number;
  /** Occupied slots: the distinct keys inserted (NULL patterns too, in hashed tables under null-equals-null). */
  readonly distinct: number;
  readonly distinctKeys: number | undefined;
  /** Whether some chain holds more than one row (otherwise `next` is not kept). */
  readonly hasDuplicates: boolean;
  /** `inline` (key words in the slot) or `hashed` (hash in the slot, comparator on a tag hit). */
  readonly storage: 'inline' | 'hashed';
  /** Inline 2-word keys whose build values share their high word: slots hold the low word only. */
  readonly narrow: boolean;
  readonly #groups: Int32Array;
  readonly #slots: Int32Array;
  readonly #next: Int32Array | null;
  readonly #shift: number;
  readonly #gmask: number;
  readonly #mode: number;
  /** NARROW2: the high word every build key has (a probe key with another one cannot match). */
  readonly #hi: number;
  /** NARROW2: the build keys' low words lie in [minLo, minLo + loSpan] (unsigned). */
  readonly #minLo: number;
  readonly #loSpan: number;
  /**
   * NARROW2: probe rows outside the build's key range skip the table (see `inRange`) — until a
   * sample shows nearly every probe row in range, when the check stops paying and is switched off.
   */
  #rangeCheck: boolean;
  #rangeSeen = 0;
  #rangeKept = 0;
  /** Inline tables under null-equals-null: first NULL build row + 1 (0: none). */
  readonly #nullFirst: number;
  readonly #keys: readonly KeyColumn[];
  /** Hashed mode: the per-probe-batch comparator and NULL-skip mask. */
  readonly #generic: ProbeEquality;
  /**
   * One plain (not dictionary) bytes key column whose NULLs never reach a compare (NULL rows are
   * not inserted under null-equals-nothing; none exist otherwise): `confirmPlainBytes` applies.
   */
  readonly #plainBytes: boolean;
  readonly #nullEqualsNull: boolean;
  readonly #live = new ReleaseGuard('swiss');
  /** Restored over another table's shared arrays: it never gives them to the buffer cache. */
  readonly #restored: boolean;

  /**
   * Over `state`: a table `swissSteps` just built (`built`), or a shared table's arrays (share /
   * restore: nothing is built, nothing released); without it, the table built here in one call.
   */
  constructor(input: BuildInput, state?: SwissState, built = false) {
    if (state === undefined) {
      state = runSteps(swissSteps(input));
      built = true;
    }
    const r = state;
    const keys = input.keys;
    const k0 = keys[0]!;
    this.#restored = !built;
    this.#keys = keys;
    this.#generic = new ProbeEquality(keys, input.nullEqualsNull);
    this.#nullEqualsNull = input.nullEqualsNull;
    this.#plainBytes = keys.length === 1 && isBytesKey(k0) && k0.codes === null && (!input.nullEqualsNull || k0.nulls === null);
    this.#mode = r.mode;
    this.#hi = r.hi;
    this.#minLo = r.minLo;
    this.#loSpan = r.loSpan;
    this.#rangeCheck = r.rangeCheck;
    this.narrow = r.mode === NARROW2;
    this.storage = r.mode === HASHED ? 'hashed' : 'inline';
    this.inserted = r.inserted;
    this.#nullFirst = r.nullFirst;
    this.distinct = r.distinct;
    this.distinctKeys = r.distinctKeys;
    this.hasDuplicates = r.hasDuplicates;
    this.#groups = r.groups;
    this.#slots = r.slots;
    this.#next = r.next;
    this.slots = r.slotCount;
    this.#shift = r.shift;
    this.#gmask = r.gmask;
    this.memoryBytes = r.groups.byteLength + r.slots.byteLength + (r.next === null ? 0 : r.next.byteLength);
  }

  /** Gives the table's arrays to the buffer cache (a restored copy only stops probing); the table refuses to probe afterwards. */
  release(): void {
    if (this.#live.release() && !this.#restored) releaseInt32(this.#groups, this.#slots, this.#next);
  }

  /** Its arrays in shared memory (copied there unless allocated shared) and the fields its probe reads. */
  share(): SharedTable {
    this.#live.check();
    const state: SwissState = {
      mode: this.#mode,
      hi: this.#hi,
      minLo: this.#minLo,
      loSpan: this.#loSpan,
      rangeCheck: this.#rangeCheck,
      inserted: this.inserted,
      nullFirst: this.#nullFirst,
      distinct: this.distinct,
      distinctKeys: this.distinctKeys,
      hasDuplicates: this.hasDuplicates,
      groups: shareView(this.#groups),
      slots: shareView(this.#slots),
      next: this.#next === null ? null : shareView(this.#next),
      slotCount: this.slots,
      shift: this.#shift,
      gmask: this.#gmask,
    };
    return { layout: 'swiss', state };
  }

  probe(input: ProbeInput, cursor: ProbeCursor, outProbe: Int32Array, outBuild: Int32Array, capacity: number): number {
    this.#live.check();
    checkProbeArgs(input, this.#keys, outProbe, outBuild, capacity);
    return probeWindows(input.rows, cursor, this.#next, outProbe, outBuild, capacity, (list, from, to) => this.#resolve(input, list, from, to), MATCHES);
  }

  contains(input: ProbeInput, out: Uint8Array, rows: Int32Array | null): void {
    this.#live.check();
    checkProbeKeys(input, this.#keys);
    containsWindows(rows === null ? input.rows : rows.length, rows, out, (list, from, to) => this.#resolve(input, list, from, to), MATCHES);
  }


  /**
   * Membership from the salts alone (passes 1 and 2a, no slot is read): 1 for every row with a
   * salt-matching slot — a true member, or one of the ~1 in 64 misses whose salt collides.
   */
  mayContain(input: ProbeInput, out: Uint8Array, rows: Int32Array | null): void {
    this.#live.check();
    checkProbeKeys(input, this.#keys);
    const count = rows === null ? input.rows : rows.length;
    const groups = this.#groups;
    const shift = this.#shift;
    const gmask = this.#gmask;
    const ph = input.hashes;
    // NULL probe rows are decided apart: 1 iff a NULL chain can match them (inline, null-equals-null);
    // hashed tables under null-equals-null hold NULL keys in slots, found by hash like any key
    const nulls = this.#mode === HASHED ? this.#generic.prepare(input.keys).skip : (input.keys[0] as FixedKeyColumn).nulls;
    const nullChain = this.#mode !== HASHED && this.#nullFirst !== 0;
    for (let base = 0; base < count; base += WINDOW) {
      const end = count - base < WINDOW ? count : base + WINDOW;
      refineMembers(groups, shift, gmask, ph, selectInto(groups, shift, ph, rows, base, end, out), out);
      if (nulls !== null) {
        const nullOut = nullChain ? 1 : 0;
        for (let k = base; k < end; k++) {
          const q = rows === null ? k : rows[k]!;
          if (nulls[q] !== 0) out[q] = nullOut;
        }
      }
    }
  }

  /**
   * Resolves probe rows row(k), k in [from, to) (row(k) = k, or list[k]; at most WINDOW): leaves
   * the rows that match in candRow[0..c) in ascending k with their first build row + 1 in candSlot,
   * and returns c.
   */
  #resolve(input: ProbeInput, list: Int32Array | null, from: number, to: number): number {
    const groups = this.#groups;
    const shift = this.#shift;
    const ph = input.hashes;
    const mode = this.#mode;
    if (mode === HASHED) {
      const g = this.#generic.prepare(input.keys);
      const c = select(groups, shift, ph, list, from, to, null, false);
      const probe = input.keys[0]!;
      if (this.#plainBytes && isBytesKey(probe) && probe.codes === null && (!this.#nullEqualsNull || probe.nulls === null)) {
        return confirmPlainBytes(groups, this.#slots, shift, this.#gmask, ph, g.equal, g.skip, c, probe, this.#keys[0] as BytesKeyColumn);
      }
      return confirmHashed(groups, this.#slots, shift, this.#gmask, ph, g.equal, g.skip, c);
    }
    const p = input.keys[0] as FixedKeyColumn;
    const pn = p.nulls;
    const nullFirst = this.#nullFirst;
    const keepNulls = nullFirst !== 0 && pn !== null;
    let c: number;
    if (this.#rangeCheck) {
      // only rows whose key lies in the build's range reach the group array
      const n = inRange(p.words, this.#hi, this.#minLo, this.#loSpan, list, from, to, keepNulls ? pn : null);
      this.#observeRange(to - from, n);
      c = select(groups, shift, ph, rangeRows, 0, n, pn, keepNulls);
    } else {
      // NULL probe rows must reach pass 2 only when they can match (a NULL chain exists)
      c = select(groups, shift, ph, list, from, to, pn, keepNulls);
    }
    if (mode === INLINE2) return confirmW2(groups, this.#slots, shift, this.#gmask, p.words, pn, nullFirst, ph, c);
    return mode === NARROW2
      ? confirmW1(groups, this.#slots, shift, this.#gmask, p.words, 2, this.#hi, pn, nullFirst, ph, c)
      : confirmW1(groups, this.#slots, shift, this.#gmask, p.words, 1, 0, pn, nullFirst, ph, c);
  }

  /** The range check's running sample: switched off once RANGE_SAMPLE rows kept more than RANGE_KEEP. */
  #observeRange(rows: number, kept: number): void {
    this.#rangeSeen += rows;
    this.#rangeKept += kept;
    if (this.#rangeSeen >= RANGE_SAMPLE && this.#rangeKept > RANGE_KEEP * this.#rangeSeen) this.#rangeCheck = false;
  }


}

export function buildSwissTable(input: BuildInput): SwissHashTable {
  return new SwissHashTable(input);
}

/**
 * The build as steps (core/hashmap.ts `buildSteps`): the rows inserted last to first,
 * `BUILD_STEP_ROWS` a step — the same order as one loop, so the same table — then the NULL chain,
 * the shrink to the distinct keys' size, and the state the table is made over.
 */
function* swissSteps(input: BuildInput): Generator<void, SwissState> {
  checkBuildInput(input);
  const reason = swissUnsupportedReason(input);
  if (reason !== null) throw new RangeError(reason);
  const { keys, rows, hashes, nullEqualsNull } = input;
  const width = inlineWidth(keys);
  const nullRows = anyNullMask(keys);
  // a 2-word key whose build values all share their high word is stored as its low word alone
  const narrow = width === 2 ? narrowRange(keys[0] as FixedKeyColumn, rows) : null;
  const mode = width === 2 ? (narrow === null ? INLINE2 : NARROW2) : width === 1 ? INLINE1 : HASHED;
  const stride = mode === INLINE2 ? 3 : 2;
  let nullCount = 0;
  if (nullRows !== null) for (let r = 0; r < rows; r++) nullCount += nullRows[r]!;
  const inserted = nullEqualsNull ? rows : rows - nullCount;
  // rows the slots hold: NULL rows stay out, except in hashed tables under null-equals-null
  const skip = mode === HASHED && nullEqualsNull ? null : nullRows;
  const slotted = skip === null ? rows : rows - nullCount;

  let bits = Math.min(slotBits(slotted), MAX_SLOT_BITS);
  // groups and next must start zeroed; slots are only read where a salt says they were written
  const shared = input.shared === true;
  let groups = takeInt32(1 << (bits - 2), true, shared);
  let slots = takeInt32(stride << bits, false, shared);
  const next = takeInt32(rows, true, shared);
  const shift = 32 - (bits - 2);
  const gmask = (1 << (bits - 2)) - 1;
  let distinct = 0;
  const eq = mode === HASHED ? makeRowEquality(keys, keys, nullEqualsNull) : null;
  const w = mode === HASHED ? null : (keys[0] as FixedKeyColumn).words;
  for (let top = rows; top > 0; top -= BUILD_STEP_ROWS) {
    const bottom = Math.max(0, top - BUILD_STEP_ROWS);
    if (eq !== null) distinct += insertHashed(groups, slots, next, shift, gmask, eq, skip, hashes, top, bottom);
    else if (mode === INLINE2) distinct += insertW2(groups, slots, next, shift, gmask, w!, skip, hashes, top, bottom);
    else distinct += insertW1(groups, slots, next, shift, gmask, w!, mode === NARROW2 ? 2 : 1, skip, hashes, top, bottom);
    yield;
  }
  let nullFirst = 0;
  if (mode !== HASHED && nullEqualsNull && nullRows !== null) {
    for (let r = rows - 1; r >= 0; r--) {
      if (nullRows[r] === 0) continue;
      next[r] = nullFirst;
      nullFirst = r + 1;
    }
  }
  const fewer = Math.min(slotBits(distinct), MAX_SLOT_BITS);
  if (fewer < bits) {
    yield;
    const g = takeInt32(1 << (fewer - 2), true, shared);
    const s = takeInt32(stride << fewer, false, shared);
    rehash(groups, slots, g, s, stride, fewer, hashes);
    releaseInt32(groups, slots);
    groups = g;
    slots = s;
    bits = fewer;
  }
  const hasDuplicates = distinct + (nullFirst !== 0 ? 1 : 0) < inserted;
  if (!hasDuplicates) releaseInt32(next);
  return {
    mode,
    hi: narrow?.hi ?? 0,
    minLo: narrow?.minLo ?? 0,
    loSpan: narrow === null ? 0 : (narrow.maxLo - narrow.minLo) >>> 0,
    rangeCheck: narrow !== null && narrow.count > 0,
    inserted,
    nullFirst,
    distinct,
    // NULL keys take slots only in hashed tables under null-equals-null: the count is not "non-NULL" there
    distinctKeys: skip === null && nullCount > 0 ? undefined : distinct,
    hasDuplicates,
    groups,
    slots,
    next: hasDuplicates ? next : null,
    slotCount: 1 << bits,
    shift: 32 - (bits - 2),
    gmask: (1 << (bits - 2)) - 1,
  };
}

export const swissLayout: HashMapLayout = {
  name: 'swiss',
  description:
    'open addressing over groups of 4 one-byte salts tested together (SWAR); keys inline (one fixed-width key; the low word alone when all share a high word) or by hash + comparator (any key)',
  unsupportedReason: swissUnsupportedReason,
  build: (input) => new SwissHashTable(input),
  *buildSteps(input) {
    return new SwissHashTable(input, yield* swissSteps(input), true);
  },
  restore: (shared, input) => new SwissHashTable({ ...input, hashes: new Uint32Array(0) }, shared.state as SwissState),
};

/** What a swiss table's probe reads besides the keys (`share` / `restore`). */
interface SwissState {
  readonly mode: number;
  readonly hi: number;
  readonly minLo: number;
  readonly loSpan: number;
  readonly rangeCheck: boolean;
  readonly inserted: number;
  readonly nullFirst: number;
  readonly distinct: number;
  readonly distinctKeys: number | undefined;
  readonly hasDuplicates: boolean;
  readonly groups: Int32Array;
  readonly slots: Int32Array;
  readonly next: Int32Array | null;
  readonly slotCount: number;
  readonly shift: number;
  readonly gmask: number;
}

// --- group words ---------------------------------------------------------------------------------
// Bits 0-6 of byte j: the salt of slot j (1..127; 0 = empty). Bit 7 of byte 0: DISPLACED — some key
// whose probe sequence passed through this group while it was full lives in a later group. A probe
// that finds no match in a group without that bit is a sure miss (the same test stops the insert's
// duplicate search). Bits 7 of bytes 1-3 stay 0, so `v & SALTS` is a word of four 7-bit lanes on
// which the SWAR zero-byte test is exact in its answer "is some lane zero?".

const SALTS = 0x7f7f7f7f;
const DISPLACED = 0x80;

/** The salt of a hash: its low 7 bits, 0 mapped to 1 (0 marks an empty slot). */
function saltOf(h: number): number {
  const s = h & 0x7f;
  return s === 0 ? 1 : s;
}

/** Lanes of `y` (bytes < 0x80) that are zero, as bit 7 of each byte (may over-flag above a true zero). */
function zeroLanes(y: number): number {
  return ((y - LOW) | 0) & ~y & HIGH;
}

/** Slots of group word `v` whose salt may equal `salt` (a superset; re-check each with `saltAt`). */
function matchLanes(v: number, salt: number): number {
  return zeroLanes((v & SALTS) ^ Math.imul(salt, LOW));
}

function saltAt(v: number, j: number): number {
  return (v >>> (j << 3)) & 0x7f;
}

/** Slot within a group of the lowest flagged lane of `lanes` (nonzero). */
function lowestLane(lanes: number): number {
  return (31 - Math.clz32(lanes & -lanes)) >> 3;
}

// --- build ---------------------------------------------------------------------------------------
// Rows top-1 .. bottom (those not `skip`ped; the build calls these for slices, top down): a row whose key already has a slot is pushed in front of that slot's chain; any
// other row claims the first empty slot of the first group from its home that has one, marking every
// full group it passes DISPLACED. `next` is all zeros on entry, so a chain's last row needs no write.
// Returns the number of slots claimed. (One function per slot shape: the key compare is inlined.)

function insertW2(groups: Int32Array, slots: Int32Array, next: Int32Array, shift: number, gmask: number, w: Int32Array, skip: Uint8Array | null, hashes: Uint32Array, top: number, bottom: number): number {
  let distinct = 0;
  for (let r = top - 1; r >= bottom; r--) {
    if (skip !== null && skip[r] !== 0) continue;
    const h = hashes[r]!;
    const salt = saltOf(h);
    const lo = w[2 * r]!;
    const hi = w[2 * r + 1]!;
    let g = h >>> shift;
    for (;;) {
      const v = groups[g]!;
      let o = -1;
      for (let m = matchLanes(v, salt); m !== 0; m &= m - 1) {
        const j = lowestLane(m);
        const s = 3 * (4 * g + j);
        if (saltAt(v, j) === salt && slots[s + 1] === lo && slots[s + 2] === hi) {
          o = s;
          break;
        }
      }
      if (o >= 0) {
        next[r] = slots[o]!;
        slots[o] = r + 1;
        break;
      }
      if ((v & DISPLACED) !== 0) {
        g = (g + 1) & gmask;
        continue;
      }
      const empty = zeroLanes(v & SALTS);
      if (empty !== 0) {
        const j = lowestLane(empty);
        groups[g] = v | (salt << (j << 3));
        const s = 3 * (4 * g + j);
        slots[s] = r + 1;
        slots[s + 1] = lo;
        slots[s + 2] = hi;
        distinct++;
        break;
      }
      groups[g] = v | DISPLACED;
      g = (g + 1) & gmask;
    }
  }
  return distinct;
}

/** `ws`: words per key in `w` — 1, or 2 for a NARROW2 key (its low word is the one stored). */
function insertW1(groups: Int32Array, slots: Int32Array, next: Int32Array, shift: number, gmask: number, w: Int32Array, ws: number, skip: Uint8Array | null, hashes: Uint32Array, top: number, bottom: number): number {
  let distinct = 0;
  for (let r = top - 1; r >= bottom; r--) {
    if (skip !== null && skip[r] !== 0) continue;
    const h = hashes[r]!;
    const salt = saltOf(h);
    const k = w[ws * r]!;
    let g = h >>> shift;
    for (;;) {
      const v = groups[g]!;
      let o = -1;
      for (let m = matchLanes(v, salt); m !== 0; m &= m - 1) {
        const j = lowestLane(m);
        const s = 2 * (4 * g + j);
        if (saltAt(v, j) === salt && slots[s + 1] === k) {
          o = s;
          break;
        }
      }
      if (o >= 0) {
        next[r] = slots[o]!;
        slots[o] = r + 1;
        break;
      }
      if ((v & DISPLACED) !== 0) {
        g = (g + 1) & gmask;
        continue;
      }
      const empty = zeroLanes(v & SALTS);
      if (empty !== 0) {
        const j = lowestLane(empty);
        groups[g] = v | (salt << (j << 3));
        const s = 2 * (4 * g + j);
        slots[s] = r + 1;
        slots[s + 1] = k;
        distinct++;
        break;
      }
      groups[g] = v | DISPLACED;
      g = (g + 1) & gmask;
    }
  }
  return distinct;
}

function insertHashed(groups: Int32Array, slots: Int32Array, next: Int32Array, shift: number, gmask: number, eq: RowEquality, skip: Uint8Array | null, hashes: Uint32Array, top: number, bottom: number): number {
  let distinct = 0;
  for (let r = top - 1; r >= bottom; r--) {
    if (skip !== null && skip[r] !== 0) continue;
    const h = hashes[r]!;
    const hs = h | 0;
    const salt = saltOf(h);
    let g = h >>> shift;
    for (;;) {
      const v = groups[g]!;
      let o = -1;
      for (let m = matchLanes(v, salt); m !== 0; m &= m - 1) {
        const j = lowestLane(m);
        const s = 2 * (4 * g + j);
        if (saltAt(v, j) === salt && slots[s + 1] === hs && eq(r, slots[s]! - 1)) {
          o = s;
          break;
        }
      }
      if (o >= 0) {
        next[r] = slots[o]!;
        slots[o] = r + 1;
        break;
      }
      if ((v & DISPLACED) !== 0) {
        g = (g + 1) & gmask;
        continue;
      }
      const empty = zeroLanes(v & SALTS);
      if (empty !== 0) {
        const j = lowestLane(empty);
        groups[g] = v | (salt << (j << 3));
        const s = 2 * (4 * g + j);
        slots[s] = r + 1;
        slots[s + 1] = hs;
        distinct++;
        break;
      }
      groups[g] = v | DISPLACED;
      g = (g + 1) & gmask;
    }
  }
  return distinct;
}

/** Moves the occupied slots into a table of 2^bits slots (keys are distinct: no compares). */
function rehash(oldGroups: Int32Array, oldSlots: Int32Array, groups: Int32Array, slots: Int32Array, stride: number, bits: number, hashes: Uint32Array): void {
  const shift = 32 - (bits - 2);
  const gmask = (1 << (bits - 2)) - 1;
  for (let og = 0; og < oldGroups.length; og++) {
    const ov = oldGroups[og]!;
    for (let oj = 0; oj < GROUP_SLOTS; oj++) {
      const salt = saltAt(ov, oj);
      if (salt === 0) continue;
      const os = stride * (4 * og + oj);
      let g = hashes[oldSlots[os]! - 1]! >>> shift; // every row of a chain has the key's hash
      let empty = zeroLanes(groups[g]! & SALTS);
      while (empty === 0) {
        groups[g] = groups[g]! | DISPLACED;
        g = (g + 1) & gmask;
        empty = zeroLanes(groups[g]! & SALTS);
      }
      const j = lowestLane(empty);
      groups[g] = groups[g]! | (salt << (j << 3));
      const s = stride * (4 * g + j);
      for (let k = 0; k < stride; k++) slots[s + k] = oldSlots[os + k]!;
    }
  }
}

// --- probe ---------------------------------------------------------------------------------------
// Shared scratch (every call is synchronous, so one set serves all tables): a window's candidates,
// then its matches, as parallel lists in row order.

const candRow = new Int32Array(WINDOW);
const candSlot = new Int32Array(WINDOW);
const MATCHES = { rows: candRow, firsts: candSlot };

/** select's 32-row candidate masks for one window. */
const selectMasks = new Int32Array(WINDOW / 32);

/**
 * Pass 1: lists in candRow the rows row(k), k in [from, to), that may match: some salt of the home
 * group equals the row's, or the group is DISPLACED (the key may live further on). Branch-free,
 * into one mask word per 32 rows, then expanded (windowed-probe.ts `expandMasks`: one store per
 * row would make V8 re-read every array's base and length after it). With `keepNulls`, rows whose
 * `pn` byte is set are listed too (pass 2 decides them).
 */
function select(groups: Int32Array, shift: number, ph: Uint32Array, list: Int32Array | null, from: number, to: number, pn: Uint8Array | null, keepNulls: boolean): number {
  let m = 0;
  for (let base = from; base < to; base += 32) {
    const end = to - base < 32 ? to : base + 32;
    let mask = 0;
    if (list === null && !keepNulls) {
      for (let k = base; k < end; k++) {
        const h = ph[k]!;
        const v = groups[h >>> shift]!;
        const s = h & 0x7f;
        const x = (v & SALTS) ^ Math.imul(s === 0 ? 1 : s, LOW);
        const maybe = (((x - LOW) | 0) & ~x & HIGH) | (v & DISPLACED);
        mask |= ((maybe | -maybe) >>> 31) << (k - base); // bit = maybe != 0, without the branch V8 emits for `? 1 : 0`
      }
    } else {
      for (let k = base; k < end; k++) {
        const q = list === null ? k : list[k]!;
        const h = ph[q]!;
        const v = groups[h >>> shift]!;
        const s = h & 0x7f;
        const x = (v & SALTS) ^ Math.imul(s === 0 ? 1 : s, LOW);
        let maybe = (((x - LOW) | 0) & ~x & HIGH) | (v & DISPLACED);
        if (keepNulls) maybe |= pn![q]!;
        mask |= ((maybe | -maybe) >>> 31) << (k - base);
      }
    }
    selectMasks[m++] = mask;
  }
  return expandMasks(selectMasks, list, from, to, candRow);
}

/**
 * `mayContain`'s pass 1: `select`, also writing each row's outcome straight into `out` (so `out`
 * needs no clearing first). Returns the candidate count (rows in candRow).
 */
function selectInto(groups: Int32Array, shift: number, ph: Uint32Array, list: Int32Array | null, from: number, to: number, out: Uint8Array): number {
  const cr = candRow;
  let c = 0;
  if (list === null) {
    for (let q = from; q < to; q++) {
      const h = ph[q]!;
      const v = groups[h >>> shift]!;
      const s = h & 0x7f;
      const x = (v & SALTS) ^ Math.imul(s === 0 ? 1 : s, LOW);
      const maybe = (((x - LOW) | 0) & ~x & HIGH) | (v & DISPLACED);
      const bit = (maybe | -maybe) >>> 31;
      out[q] = bit;
      cr[c] = q;
      c += bit;
    }
    return c;
  }
  for (let k = from; k < to; k++) {
    const q = list[k]!;
    const h = ph[q]!;
    const v = groups[h >>> shift]!;
    const s = h & 0x7f;
    const x = (v & SALTS) ^ Math.imul(s === 0 ? 1 : s, LOW);
    const maybe = (((x - LOW) | 0) & ~x & HIGH) | (v & DISPLACED);
    const bit = (maybe | -maybe) >>> 31;
    out[q] = bit;
    cr[c] = q;
    c += bit;
  }
  return c;
}

/** `mayContain`'s pass 2: clears `out` for candidates with no salt-matching slot along their DISPLACED groups. */
function refineMembers(groups: Int32Array, shift: number, gmask: number, ph: Uint32Array, c: number, out: Uint8Array): void {
  const cr = candRow;
  for (let i = 0; i < c; i++) {
    const q = cr[i]!;
    const h = ph[q]!;
    const salt = saltOf(h);
    let found = 0;
    for (let g = h >>> shift; ; g = (g + 1) & gmask) {
      const v = groups[g]!;
      for (let b = matchLanes(v, salt); b !== 0; b &= b - 1) {
        if (saltAt(v, lowestLane(b)) === salt) {
          found = 1;
          break;
        }
      }
      if (found !== 0 || (v & DISPLACED) === 0) break;
    }
    out[q] = found;
  }
}

/** Probe rows sampled before the range check may switch itself off. */
const RANGE_SAMPLE = 1 << 16;
/** The check stays on only while it passes at most this share of the rows it sees. */
const RANGE_KEEP = 0.9;
/** `inRange`'s output: the window's rows that lie in the build's key range. */
const rangeRows = new Int32Array(WINDOW);

/**
 * Pass 0 (NARROW2 tables): rows row(k), k in [from, to), whose key has the build's high word and a
 * low word within [minLo, minLo + span] — `(lo - minLo) >>> 0 <= span` is the whole unsigned range
 * test — into `rangeRows`, branch-free; rows flagged in `keep` (NULL rows that may match the NULL
 * chain) are passed too. Returns the count. A probe whose keys spread beyond the build's (half of a
 * uniform probe over twice the build's range) skips the group array for every row it drops.
 */
function inRange(pw: Int32Array, hi: number, minLo: number, span: number, list: Int32Array | null, from: number, to: number, keep: Uint8Array | null): number {
  // (lo - minLo) mod 2^32 <= span, unsigned, compared as signed on sign-flipped words: int32 only
  // (an unsigned `>>> 0` makes V8 compute in doubles); masks of 32 rows, as in `select`
  const lo0 = minLo | 0;
  const spanFlipped = (span | 0) ^ SIGN_BIT;
  let m = 0;
  for (let base = from; base < to; base += 32) {
    const end = to - base < 32 ? to : base + 32;
    let mask = 0;
    if (list === null && keep === null) {
      for (let q = base; q < end; q++) {
        mask |= (+(pw[2 * q + 1] === hi) & +((((pw[2 * q]! - lo0) | 0) ^ SIGN_BIT) <= spanFlipped)) << (q - base);
      }
    } else {
      for (let k = base; k < end; k++) {
        const q = list === null ? k : list[k]!;
        mask |= ((+(pw[2 * q + 1] === hi) & +((((pw[2 * q]! - lo0) | 0) ^ SIGN_BIT) <= spanFlipped)) | (keep === null ? 0 : keep[q]!)) << (k - base);
      }
    }
    selectMasks[m++] = mask;
  }
  return expandMasks(selectMasks, list, from, to, rangeRows);
}

/*
 * Pass 2 confirms the candidates in three sub-passes, so that the one expensive thing — reading a
 * slot, a cache miss into a table far beyond the caches — happens for all candidates at once in a
 * loop with no branch on what it reads (the misses overlap instead of each stalling a compare:
 * measured ~1.45x faster confirms on 1M keys):
 *  2a LOCATE (`locate`, tags only): each candidate's first slot whose salt equals its own, following
 *     DISPLACED groups; candidates with none are dropped, and a NULL probe row is dropped or sent to
 *     the NULL chain;
 *  2b GATHER: the located slots' key word (inline) or stored hash (hashed), into `candWord`;
 *  2c COMPARE: a match keeps (row, first build row + 1); a salt false positive — rare: 1 in ~64
 *     misses — redoes the whole walk for that row (`walk*`), since the key may sit further on.
 * Matches are compacted in place, in row order. One 2b/2c function per slot shape, so the key
 * compare is inlined.
 */

/** `candSlot` markers from `locate`: the candidate is a NULL probe row matching the NULL chain. */
const TO_NULL_CHAIN = -2;
const candWord = new Int32Array(WINDOW);

/**
 * 2a: keeps in candRow/candSlot the candidates that have a salt-matching slot (its index) or that
 * are NULL rows routed to the NULL chain (`nullChain`); rows flagged in `nulls` are never looked up.
 * Returns the count kept.
 */
function locate(groups: Int32Array, shift: number, gmask: number, ph: Uint32Array, nulls: Uint8Array | null, nullChain: boolean, c: number): number {
  const cr = candRow;
  const cs = candSlot;
  let n = 0;
  for (let i = 0; i < c; i++) {
    const q = cr[i]!;
    let slot = -1;
    if (nulls !== null && nulls[q] !== 0) {
      if (nullChain) slot = TO_NULL_CHAIN;
    } else {
      const h = ph[q]!;
      const salt = saltOf(h);
      let g = h >>> shift;
      for (;;) {
        const v = groups[g]!;
        for (let b = matchLanes(v, salt); b !== 0; b &= b - 1) {
          const j = lowestLane(b);
          if (saltAt(v, j) === salt) {
            slot = 4 * g + j;
            break;
          }
        }
        if (slot >= 0 || (v & DISPLACED) === 0) break;
        g = (g + 1) & gmask;
      }
    }
    cr[n] = q;
    cs[n] = slot;
    const kept = ~slot; // 0 only for slot -1 (dropped)
    n += (kept | -kept) >>> 31;
  }
  return n;
}

/** 2b: candWord[i] = slots[stride * candSlot[i] + 1] (slot 0's word for a NULL-chain entry). */
function gatherWords(slots: Int32Array, stride: number, n: number): void {
  const cs = candSlot;
  const cw = candWord;
  for (let i = 0; i < n; i++) {
    const s = cs[i]!;
    cw[i] = slots[stride * (s < 0 ? 0 : s) + 1]!;
  }
}

function confirmW2(groups: Int32Array, slots: Int32Array, shift: number, gmask: number, pw: Int32Array, pn: Uint8Array | null, nullFirst: number, ph: Uint32Array, c: number): number {
  const n = locate(groups, shift, gmask, ph, pn, nullFirst !== 0, c);
  gatherWords(slots, 3, n);
  const cr = candRow;
  const cs = candSlot;
  const cw = candWord;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const q = cr[i]!;
    const s = cs[i]!;
    let first: number;
    if (s === TO_NULL_CHAIN) first = nullFirst;
    else if (cw[i] === pw[2 * q] && slots[3 * s + 2] === pw[2 * q + 1]) first = slots[3 * s]!;
    else first = walkW2(groups, slots, shift, gmask, pw[2 * q]!, pw[2 * q + 1]!, ph[q]!);
    if (first === 0) continue;
    cr[m] = q;
    cs[m++] = first;
  }
  return m;
}

/**
 * `ws` = 1: a 1-word key. `ws` = 2: a NARROW2 key — the slot holds the low word; the high word must
 * equal `hi`, the one every build key has.
 */
function confirmW1(groups: Int32Array, slots: Int32Array, shift: number, gmask: number, pw: Int32Array, ws: number, hi: number, pn: Uint8Array | null, nullFirst: number, ph: Uint32Array, c: number): number {
  const n = locate(groups, shift, gmask, ph, pn, nullFirst !== 0, c);
  gatherWords(slots, 2, n);
  const cr = candRow;
  const cs = candSlot;
  const cw = candWord;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const q = cr[i]!;
    const s = cs[i]!;
    let first: number;
    if (s === TO_NULL_CHAIN) first = nullFirst;
    else if (ws === 2 && pw[2 * q + 1] !== hi) first = 0;
    else if (cw[i] === pw[ws * q]) first = slots[2 * s]!;
    else first = walkW1(groups, slots, shift, gmask, pw[ws * q]!, ph[q]!);
    if (first === 0) continue;
    cr[m] = q;
    cs[m++] = first;
  }
  return m;
}

function confirmHashed(groups: Int32Array, slots: Int32Array, shift: number, gmask: number, ph: Uint32Array, eq: RowEquality, skip: Uint8Array | null, c: number): number {
  const n = locate(groups, shift, gmask, ph, skip, false, c);
  gatherWords(slots, 2, n);
  const cr = candRow;
  const cs = candSlot;
  const cw = candWord;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const q = cr[i]!;
    const s = cs[i]!;
    const h = ph[q]!;
    let first: number;
    if (cw[i] === (h | 0) && eq(q, slots[2 * s]! - 1)) first = slots[2 * s]!;
    else first = walkHashed(groups, slots, shift, gmask, eq, q, h);
    if (first === 0) continue;
    cr[m] = q;
    cs[m++] = first;
  }
  return m;
}

const candStart = new Int32Array(WINDOW);
const candEnd = new Int32Array(WINDOW);

/**
 * confirmHashed for one plain bytes key on both sides, in sub-passes so the two random reads a
 * string match costs — the build row's offsets, then its bytes — are issued for all candidates
 * before any compare waits on them (the generic comparator reads them one candidate at a time):
 * after 2a/2b, (i) each located slot's build offsets into candStart/candEnd, (ii) a byte compare
 * of the candidates whose stored hash matched, (iii) in row order, the matches kept and every
 * other candidate re-walked with the generic comparator (a salt or hash collision: the key may sit
 * further on).
 */
function confirmPlainBytes(
  groups: Int32Array,
  slots: Int32Array,
  shift: number,
  gmask: number,
  ph: Uint32Array,
  eq: RowEquality,
  skip: Uint8Array | null,
  c: number,
  probe: BytesKeyColumn,
  build: BytesKeyColumn,
): number {
  const n = locate(groups, shift, gmask, ph, skip, false, c);
  gatherWords(slots, 2, n);
  const cr = candRow;
  const cs = candSlot;
  const cw = candWord;
  const bo = build.offsets;
  const bb = build.bytes;
  const po = probe.offsets;
  const pb = probe.bytes;
  for (let i = 0; i < n; i++) {
    const b = slots[2 * cs[i]!]! - 1;
    candStart[i] = bo[b]!;
    candEnd[i] = bo[b + 1]!;
  }
  // candWord[i] becomes 1 for a confirmed match (hash and bytes equal), else 0
  for (let i = 0; i < n; i++) {
    const q = cr[i]!;
    let same = +(cw[i] === (ph[q]! | 0));
    const ps = po[q]!;
    const bs = candStart[i]!;
    const len = po[q + 1]! - ps;
    if (same !== 0 && candEnd[i]! - bs === len) {
      for (let k = 0; k < len; k++) {
        if (pb[ps + k] !== bb[bs + k]) {
          same = 0;
          break;
        }
      }
    } else same = 0;
    cw[i] = same;
  }
  let m = 0;
  for (let i = 0; i < n; i++) {
    const q = cr[i]!;
    const s = cs[i]!;
    const first = cw[i] === 1 ? slots[2 * s]! : walkHashed(groups, slots, shift, gmask, eq, q, ph[q]!);
    if (first === 0) continue;
    cr[m] = q;
    cs[m++] = first;
  }
  return m;
}

/* The whole walk for one probe key: its first build row + 1, or 0 when no slot holds it (one per slot shape, as the inserts). */

function walkW2(groups: Int32Array, slots: Int32Array, shift: number, gmask: number, lo: number, hi: number, h: number): number {
  const salt = saltOf(h);
  for (let g = h >>> shift; ; g = (g + 1) & gmask) {
    const v = groups[g]!;
    for (let b = matchLanes(v, salt); b !== 0; b &= b - 1) {
      const j = lowestLane(b);
      const s = 3 * (4 * g + j);
      if (saltAt(v, j) === salt && slots[s + 1] === lo && slots[s + 2] === hi) return slots[s]!;
    }
    if ((v & DISPLACED) === 0) return 0;
  }
}

function walkW1(groups: Int32Array, slots: Int32Array, shift: number, gmask: number, k: number, h: number): number {
  const salt = saltOf(h);
  for (let g = h >>> shift; ; g = (g + 1) & gmask) {
    const v = groups[g]!;
    for (let b = matchLanes(v, salt); b !== 0; b &= b - 1) {
      const j = lowestLane(b);
      const s = 2 * (4 * g + j);
      if (saltAt(v, j) === salt && slots[s + 1] === k) return slots[s]!;
    }
    if ((v & DISPLACED) === 0) return 0;
  }
}

function walkHashed(groups: Int32Array, slots: Int32Array, shift: number, gmask: number, eq: RowEquality, q: number, h: number): number {
  const salt = saltOf(h);
  const hs = h | 0;
  for (let g = h >>> shift; ; g = (g + 1) & gmask) {
    const v = groups[g]!;
    for (let b = matchLanes(v, salt); b !== 0; b &= b - 1) {
      const j = lowestLane(b);
      const s = 2 * (4 * g + j);
      if (saltAt(v, j) === salt && slots[s + 1] === hs && eq(q, slots[s]! - 1)) return slots[s]!;
    }
    if ((v & DISPLACED) === 0) return 0;
  }
}
