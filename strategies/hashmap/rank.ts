/**
 * `rank`: a perfect hash for ONE integer key over a range too sparse for `array` — a bitmap with
 * one bit per value of [min, max], and each key's index among the distinct keys (its RANK: how many
 * set bits precede its own) as the slot number. No hashing and no key compare, on either side.
 *
 *   dir    (Int32Array, two words per 32 values of the range, interleaved)
 *          dir[2i]     = bits of values min + 32i .. min + 32i + 31 (bit b set: that key exists)
 *          dir[2i + 1] = set bits in all words before i (the rank of the word's first key)
 *   first  (Int32Array, one per distinct key, in key order)   first build row + 1 with that key
 *   next   (Int32Array, one per build row; dropped when no key repeats)
 *          next build row + 1 with r's key (0 = end); rows are inserted last to first, so chains
 *          are ASCENDING, the order the contract wants and the order a resumed probe relies on.
 *
 * Why (1M unique int64 keys, multiples of 10 over [0, 10M), 10M probes uniform over [0, 20M)):
 * `array` would need 40 MB of slots (density 0.1), and `swiss` must hash every probe row and
 * read a group word and, for ~11% of rows, a slot. Here the directory is range/4 bytes (2.5 MB),
 * a probe row costs a range test and one directory read — bits and rank base share a cache line —
 * and only the hits (5%) read `first`. The join skips hashing the probe side
 * (`needsProbeHashes = false`), and so does the `map` pushdown filter. bench/hashmap-micro.ts:
 * probe ~83 ms vs swiss ~132 ms (+ ~30 ms of hashing swiss needs), build ~20 ms vs ~55 ms, 6 MB vs
 * 18 MB.
 *
 * A probe window (windowed-probe.ts) is resolved in passes with no branch on the data (half of a
 * uniform probe falls outside the range: a branchy test mispredicts on about every other row):
 *  1. SELECT: a hit mask per 32 rows (range test and bit test, see the comment above maskNarrow);
 *  2. EXPAND: the set bits' rows, in order (all true hits);
 *  3. RANK: per hit, base + popcount(bits below the key's bit), then a separate gather of
 *     `first[rank]` (two loops: the loads of each are independent, so their misses overlap).
 *
 * Key arithmetic is array.ts's (offsets relative to min, no BigInt), and the analysis is shared
 * with it. Usable for the keys `array` takes — one int/uint column of 1 or 2 words, or bool — with
 * a span of at most 2^30 values (a 256 MB directory); `auto` picks it after `array` while the
 * directory is at most AUTO_RANK_BYTES_PER_ROW (8) bytes per row, i.e. range <= ~32 x rows. NULLs:
 * under null-equals-nothing NULL build rows are skipped and NULL probe rows miss; NULL = NULL with a
 * NULL build key is refused (a NULL has no bit), like `array`. An empty build has span 0.
 */
import type { BuildInput, HashMapLayout, JoinHashTable, ProbeCursor, ProbeInput } from '../../core/hashmap.ts';
import type { FixedKeyColumn, KeyColumn } from '../../core/keys/types.ts';
import { releaseInt32, takeInt32 } from '../../core/memory/buffer-cache.ts';
import { analyzeArrayKeys, formatSpan, type ArrayKeyAnalysis } from './array.ts';
import { checkBuildInput, checkProbeArgs, checkProbeKeys } from './chained.ts';
import { containsWindows, probeWindows, WINDOW, type WindowMatches } from './windowed-probe.ts';

/** Largest span (max - min + 1) the rank layout indexes: 2^30 values = a 256 MB directory. */
export const RANK_MAX_SPAN = 2 ** 30;

/** Why the rank layout cannot index these keys, or null. */
export function rankUnsupportedReason(input: BuildInput): string | null {
  return rankReason(analyzeArrayKeys(input));
}

function rankReason(a: ArrayKeyAnalysis): string | null {
  if (a.keyReason !== null) return a.keyReason.replace('the array layout', 'the rank layout');
  if (a.span > RANK_MAX_SPAN) return `the rank layout needs a key range of at most 2^30 values, got ~${formatSpan(a.span)}`;
  return null;
}

/** Bytes of the directory for a key span (what `auto` weighs against the rows). */
export function rankDirectoryBytes(span: number): number {
  return 8 * Math.ceil(span / 32);
}

/** Set bits of a 32-bit word (SWAR; JS has no popcount instruction). */
function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Window scratch (probes are synchronous): matches as windowed-probe.ts wants them. */
const MATCHES: WindowMatches = { rows: new Int32Array(WINDOW), firsts: new Int32Array(WINDOW) };

export class RankHashTable implements JoinHashTable {
  readonly layout = 'rank';
  readonly inserted: number;
  readonly memoryBytes: number;
  readonly needsProbeHashes = false;
  /** Distinct non-NULL keys (set bits). */
  readonly distinctKeys: number;
  /** max - min + 1. */
  readonly span: number;
  readonly hasDuplicates: boolean;
  readonly #dir: Int32Array;
  readonly #first: Int32Array;
  readonly #next: Int32Array | null;
  readonly #keys: readonly KeyColumn[];
  readonly #width: number;
  readonly #flip: number;
  readonly #minHi: number;
  readonly #minLo: number;
  /** 2-word keys that all share one high word (see selectNarrow). */
  readonly #narrow: boolean;
  #released = false;

  constructor(input: BuildInput, analysis: ArrayKeyAnalysis = analyzeArrayKeys(input)) {
    checkBuildInput(input);
    const reason = rankReason(analysis);
    if (reason !== null) throw new RangeError(reason);
    const col = input.keys[0] as FixedKeyColumn;
    const { rows } = input;
    this.#keys = input.keys;
    this.#width = analysis.width;
    this.#flip = analysis.flip;
    this.#minHi = analysis.minHi;
    this.#minLo = analysis.minLo;
    this.span = analysis.span;
    this.#narrow = this.#width === 2 && this.#minLo + this.span <= 2 ** 32;
    this.inserted = analysis.count;
    const w = col.words;
    const nulls = col.nulls;
    const dir = takeInt32(2 * Math.ceil(this.span / 32), true);
    const offsets = takeInt32(rows, false);
    // offsets from min (each < span <= 2^30); -1 for a NULL row
    if (this.#width === 2) offsetsW2(w, nulls, rows, this.#minLo, offsets);
    else offsetsW1(w, nulls, rows, this.#minLo, offsets);
    for (let r = 0; r < rows; r++) {
      const o = offsets[r]!;
      if (o >= 0) dir[(o >>> 5) << 1] |= 1 << (o & 31);
    }
    let distinct = 0;
    for (let i = 0; i < dir.length; i += 2) {
      dir[i + 1] = distinct;
      distinct += popcount(dir[i]!);
    }
    const first = takeInt32(distinct, true);
    const next = takeInt32(rows, true);
    let dup = false;
    for (let r = rows - 1; r >= 0; r--) {
      const o = offsets[r]!;
      if (o < 0) continue;
      const i = (o >>> 5) << 1;
      const rank = dir[i + 1]! + popcount(dir[i]! & ~(-1 << (o & 31)));
      const f = first[rank]!;
      dup ||= f !== 0;
      next[r] = f;
      first[rank] = r + 1;
    }
    releaseInt32(offsets);
    this.distinctKeys = distinct;
    this.hasDuplicates = dup;
    this.#dir = dir;
    this.#first = first;
    this.#next = dup ? next : null;
    if (!dup) releaseInt32(next);
    this.memoryBytes = dir.byteLength + first.byteLength + (this.#next === null ? 0 : this.#next.byteLength);
  }

  /** Gives the table's arrays to the buffer cache; the table refuses to probe afterwards. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    releaseInt32(this.#dir, this.#first, this.#next);
  }

  #checkLive(): void {
    if (this.#released) throw new Error('rank table used after release()');
  }

  probe(input: ProbeInput, cursor: ProbeCursor, outProbe: Int32Array, outBuild: Int32Array, capacity: number): number {
    this.#checkLive();
    checkProbeArgs(input, this.#keys, outProbe, outBuild, capacity, false);
    return probeWindows(input.rows, cursor, this.#next, outProbe, outBuild, capacity, (list, from, to) => this.#resolve(input, list, from, to), MATCHES);
  }

  contains(input: ProbeInput, out: Uint8Array, rows: Int32Array | null): void {
    this.#checkLive();
    checkProbeKeys(input, this.#keys, false);
    containsWindows(rows === null ? input.rows : rows.length, rows, out, (list, from, to) => this.#resolve(input, list, from, to), MATCHES);
  }

  /** The window's matching rows, in row order, each with its first build row + 1, into MATCHES. */
  #resolve(input: ProbeInput, list: Int32Array | null, from: number, to: number): number {
    if (this.span === 0) return 0;
    const p = input.keys[0] as FixedKeyColumn;
    const minLo = this.#minLo | 0;
    const dir = this.#dir;
    if (this.#width === 1) maskW1(dir, this.span, minLo, p.words, p.nulls, list, from, to);
    else if (this.#narrow) maskNarrow(dir, this.span, this.#minHi ^ this.#flip, minLo, p.words, p.nulls, list, from, to);
    else maskWide(dir, this.span, this.#flip, this.#minHi, minLo, p.words, p.nulls, list, from, to);
    const c = expand(list, from, to);
    rankCandidates(dir, this.#first, p.words, this.#width, minLo, c);
    return c;
  }
}

export function buildRankTable(input: BuildInput, analysis?: ArrayKeyAnalysis): RankHashTable {
  return new RankHashTable(input, analysis);
}

export const rankLayout: HashMapLayout = {
  name: 'rank',
  description: 'bitmap over the key range + per-word rank counts: a perfect hash for one integer key (range <= 2^30), no hashing',
  unsupportedReason: rankUnsupportedReason,
  build: (input) => new RankHashTable(input),
};

// --- build ---------------------------------------------------------------------------------------

/** Offsets from min of 2-word keys: each is < span <= 2^30, so it is the low-word difference mod 2^32. */
function offsetsW2(w: Int32Array, nulls: Uint8Array | null, rows: number, minLo: number, out: Int32Array): void {
  for (let r = 0; r < rows; r++) out[r] = nulls !== null && nulls[r] !== 0 ? -1 : (w[2 * r]! - minLo) | 0;
}

function offsetsW1(w: Int32Array, nulls: Uint8Array | null, rows: number, minV: number, out: Int32Array): void {
  for (let r = 0; r < rows; r++) out[r] = nulls !== null && nulls[r] !== 0 ? -1 : (w[r]! - minV) | 0;
}

// --- probe ---------------------------------------------------------------------------------------

/*
 * Pass 1 (SELECT) computes, for the window's rows row(k) (k in [from, to); row(k) = k or list[k]),
 * a hit mask per 32 rows: bit k - base set iff the key is in [min, min + span) and its bit is set.
 * Branch-free, and it writes one word per 32 rows instead of one or two per row: in V8 (Node 20) a
 * store into a typed array inside the loop makes every later load reload the arrays' base
 * pointers and lengths, measured ~1.8x slower over 10M rows. Out-of-range rows read directory word
 * 0 and are masked out. Int32 arithmetic only: an unsigned `>>> 0`, or a difference that may leave
 * the int32 range, makes V8 compute in doubles (~1.5x slower).
 *
 * Offsets are `(lo - minLo) | 0`, the low-word difference mod 2^32 read as signed. Because
 * span <= 2^30, a key is in range iff that is in [0, span) AND its high word is the one it must be:
 *  - NARROW (every build key has the same high word H, i.e. minLo + span <= 2^32): high word == H.
 *    A key with high word H below min wraps to >= 2^32 - minLo >= span, one above the keys' last
 *    low word to a negative number: both rejected.
 *  - WIDE (the range crosses one high-word boundary): (hi' - minHi) equals the borrow out of the
 *    low subtraction (unsigned lo < minLo, tested as signed on sign-flipped words). `(hi' - minHi)
 *    | 0` wraps only for a difference near -2^32, which needs minHi = 2^31 - 1, and then the
 *    range cannot cross a boundary.
 *  - 1-word keys: `(key - min) | 0`; a wrapped difference lands at >= span or below 0 as above.
 * EXPAND turns the masks into the candidate rows (all true hits) and RANK (pass 2) maps each to
 * first[base + popcount(bits below its own)].
 */
const SIGN = 0x80000000 | 0;
/** Hit masks of one window (32 rows per word). */
const masks = new Int32Array(WINDOW / 32);

function maskNarrow(dir: Int32Array, span: number, hi: number, minLo: number, pw: Int32Array, pn: Uint8Array | null, list: Int32Array | null, from: number, to: number): void {
  let m = 0;
  for (let base = from; base < to; base += 32) {
    const end = to - base < 32 ? to : base + 32;
    let mask = 0;
    if (list === null && pn === null) {
      for (let q = base; q < end; q++) {
        const d = (pw[2 * q]! - minLo) | 0;
        const live = +(pw[2 * q + 1] === hi) & +(d >= 0) & +(d < span);
        const o = d & -live;
        mask |= ((dir[(o >>> 5) << 1]! >>> (o & 31)) & live) << (q - base);
      }
    } else {
      for (let k = base; k < end; k++) {
        const q = list === null ? k : list[k]!;
        const d = (pw[2 * q]! - minLo) | 0;
        const live = +(pw[2 * q + 1] === hi) & +(d >= 0) & +(d < span) & (pn === null ? 1 : 1 - pn[q]!);
        const o = d & -live;
        mask |= ((dir[(o >>> 5) << 1]! >>> (o & 31)) & live) << (k - base);
      }
    }
    masks[m++] = mask;
  }
}

function maskWide(
  dir: Int32Array,
  span: number,
  flip: number,
  minHi: number,
  minLo: number,
  pw: Int32Array,
  pn: Uint8Array | null,
  list: Int32Array | null,
  from: number,
  to: number,
): void {
  const minLoFlipped = minLo ^ SIGN;
  let m = 0;
  for (let base = from; base < to; base += 32) {
    const end = to - base < 32 ? to : base + 32;
    let mask = 0;
    for (let k = base; k < end; k++) {
      const q = list === null ? k : list[k]!;
      const lo = pw[2 * q]!;
      const borrow = +((lo ^ SIGN) < minLoFlipped);
      const d = (lo - minLo) | 0;
      const live = +((((pw[2 * q + 1]! ^ flip) - minHi) | 0) === borrow) & +(d >= 0) & +(d < span) & (pn === null ? 1 : 1 - pn[q]!);
      const o = d & -live;
      mask |= ((dir[(o >>> 5) << 1]! >>> (o & 31)) & live) << (k - base);
    }
    masks[m++] = mask;
  }
}

function maskW1(dir: Int32Array, span: number, minV: number, pw: Int32Array, pn: Uint8Array | null, list: Int32Array | null, from: number, to: number): void {
  let m = 0;
  for (let base = from; base < to; base += 32) {
    const end = to - base < 32 ? to : base + 32;
    let mask = 0;
    for (let k = base; k < end; k++) {
      const q = list === null ? k : list[k]!;
      const d = (pw[q]! - minV) | 0;
      const live = +(d >= 0) & +(d < span) & (pn === null ? 1 : 1 - pn[q]!);
      const o = d & -live;
      mask |= ((dir[(o >>> 5) << 1]! >>> (o & 31)) & live) << (k - base);
    }
    masks[m++] = mask;
  }
}

/** EXPAND: the rows whose mask bit is set, in order, into MATCHES.rows; returns their count. */
function expand(list: Int32Array | null, from: number, to: number): number {
  const rows = MATCHES.rows;
  let n = 0;
  for (let i = 0, base = from; base < to; i++, base += 32) {
    for (let mask = masks[i]!; mask !== 0; mask &= mask - 1) {
      const k = base + 31 - Math.clz32(mask & -mask);
      rows[n++] = list === null ? k : list[k]!;
    }
  }
  return n;
}

/**
 * Pass 2 (RANK): MATCHES.firsts[i] = first[rank of row i's key] for the c expanded rows. `stride`
 * is the key's words per row (the offset is the low word's difference for both widths).
 */
function rankCandidates(dir: Int32Array, first: Int32Array, pw: Int32Array, stride: number, minLo: number, c: number): void {
  const rows = MATCHES.rows;
  const out = MATCHES.firsts;
  for (let i = 0; i < c; i++) {
    const o = (pw[stride * rows[i]!]! - minLo) | 0;
    const w = (o >>> 5) << 1;
    out[i] = dir[w + 1]! + popcount(dir[w]! & ~(-1 << (o & 31)));
  }
  for (let i = 0; i < c; i++) out[i] = first[out[i]!]!;
}
