/**
 * Vectorised key hashing: one 32-bit hash per row over all key columns, computed column by column
 * into one `Uint32Array` (murmur3's block mix per 32-bit word, `fmix32` at the end).
 *
 * One fixed-width key column — the common case — takes a cheaper single-pass hash
 * (`hashSingleFixed`), and so does one bytes column (`hashSingleBytes`); the invariants below hold
 * for every path.
 *
 * Why it can be this simple: normalisation already made equal keys equal words (widened ints,
 * folded -0.0/NaN, rescaled decimals and timestamps), so hashing never looks at types. Two more
 * invariants make hashes comparable across sides and layouts:
 *  - a 3-word (HUGEINT) int whose top word is only the sign extension of the middle word hashes
 *    exactly like the 2-word value, so an int's hash does not depend on the width it was widened to;
 *  - bytes hash as `bytesKeyHash(value, seed)` whether the column is plain or dictionary-encoded,
 *    and whatever the alignment of the Arrow buffer they sit in. A dictionary's distinct entries
 *    are hashed once (and cached per normalised dictionary and seed, so batches sharing a
 *    dictionary do not re-hash it) and gathered by code. `bytesKeyHash` is not murmur3 (that is
 *    `hashBytes`, kept for callers who want the standard function): one multiply per 4-byte word,
 *    seeded with the length, and `fmix32` at the end — ~1.6x faster over 10M short strings, which
 *    the probe side of a string-key join hashes every row of.
 * A NULL row contributes a fixed per-column constant (NULL = NULL under IS NOT DISTINCT FROM must
 * land in the same bucket). The seed initialises every row's state and every byte hash, so a
 * different seed gives unrelated hashes (a membership filter built with another seed rejects all).
 */
import type { BytesKeyColumn, FixedKeyColumn, KeyColumn } from './types.ts';
import { isBytesKey } from './types.ts';

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;
const NULL_WORD = 0x6e756c6c; // "null"

/** murmur3 block step: mix one 32-bit word `k` into state `h`. */
function mix(h: number, k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, C2);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** murmur3 finaliser: full avalanche of the state. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** murmur3_x86_32 of bytes[start, end) (reads little-endian blocks without a DataView). */
export function hashBytes(bytes: Uint8Array, start: number, end: number, seed: number): number {
  let h = seed | 0;
  const len = end - start;
  const blockEnd = start + (len & ~3);
  let p = start;
  for (; p < blockEnd; p += 4) {
    h = mix(h, bytes[p]! | (bytes[p + 1]! << 8) | (bytes[p + 2]! << 16) | (bytes[p + 3]! << 24));
  }
  const tail = len & 3;
  if (tail !== 0) {
    let k = bytes[p]!;
    if (tail > 1) k |= bytes[p + 1]! << 8;
    if (tail > 2) k |= bytes[p + 2]! << 16;
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, C2);
  }
  return fmix(h ^ len);
}

/*
 * The join's bytes hash: x = imul(seed ^ len, K); per little-endian 4-byte word w (the last one
 * zero-padded): x = imul(rotl(x, 5) ^ w, K); then fmix32. Each step is a bijection of x for a given
 * w (K is odd), so two values of one length that differ in one word never collide, and fmix gives
 * the high bits (home slot) and the low bits (salt) the same avalanche. One dependent multiply per
 * word where murmur3's block takes three.
 */
const K = 0x9e3779b1 | 0;

/** The key hash of bytes[start, end) (byte loads; any alignment). */
export function bytesKeyHash(bytes: Uint8Array, start: number, end: number, seed: number): number {
  const len = end - start;
  let x = Math.imul(seed ^ len, K);
  const blockEnd = start + (len & ~3);
  let p = start;
  for (; p < blockEnd; p += 4) x = Math.imul(((x << 5) | (x >>> 27)) ^ (bytes[p]! | (bytes[p + 1]! << 8) | (bytes[p + 2]! << 16) | (bytes[p + 3]! << 24)), K);
  const tail = len & 3;
  if (tail !== 0) {
    let k = bytes[p]!;
    if (tail > 1) k |= bytes[p + 1]! << 8;
    if (tail > 2) k |= bytes[p + 2]! << 16;
    x = Math.imul(((x << 5) | (x >>> 27)) ^ k, K);
  }
  return fmix(x);
}

/**
 * The word view `hashPlainBytes` reads through: the bytes' buffer as aligned 32-bit words from the
 * word holding bytes[0], or null when the view would not reach the last byte (a buffer whose length
 * is not a multiple of 4 ends in a partial word no Int32Array covers).
 */
function wordView(bytes: Uint8Array): { words: Int32Array; base: number } | null {
  const base = bytes.byteOffset & 3;
  const at = bytes.byteOffset - base;
  const count = (bytes.buffer.byteLength - at) >>> 2;
  if (bytes.length + base > 4 * count) return null;
  return { words: new Int32Array(bytes.buffer, at, count), base };
}

/**
 * h[i] = bytesKeyHash(row i) for a plain (not dictionary) bytes column, reading each 4-byte block as
 * two aligned words funnel-shifted together (half the loads of assembling it byte by byte; the
 * value is the same). A read one word past the view (possible only for the last value) is
 * `undefined`, i.e. 0, and only ever supplies bits that are shifted or masked away.
 */
function hashPlainBytes(h: Uint32Array, offsets: Int32Array, words: Int32Array, base: number, n: number, seed: number): void {
  for (let i = 0; i < n; i++) {
    const start = offsets[i]! + base;
    const len = offsets[i + 1]! + base - start;
    let x = Math.imul(seed ^ len, K);
    const sh = (start & 3) << 3;
    let wi = start >>> 2;
    let w0 = words[wi]!;
    for (let b = len >>> 2; b > 0; b--) {
      const w1 = words[++wi]! | 0;
      x = Math.imul(((x << 5) | (x >>> 27)) ^ ((w0 >>> sh) | ((w1 << 1) << (31 - sh))), K);
      w0 = w1;
    }
    const tail = len & 3;
    if (tail !== 0) {
      const k = ((w0 >>> sh) | (((words[wi + 1]! | 0) << 1) << (31 - sh))) & ((1 << (tail << 3)) - 1);
      x = Math.imul(((x << 5) | (x >>> 27)) ^ k, K);
    }
    h[i] = fmix(x);
  }
}

/** One bytes key column: bytesKeyHash per row (per entry for a dictionary), a constant for NULL. */
function hashSingleBytes(h: Uint32Array, col: BytesKeyColumn, seed: number): void {
  const { offsets, bytes, codes, nulls } = col;
  const n = col.length;
  const view = codes === null ? wordView(bytes) : null;
  if (view !== null) hashPlainBytes(h, offsets, view.words, view.base, n, seed);
  else if (codes !== null && hashesEntries(col, seed)) {
    const eh = entryHashes(col, seed);
    for (let i = 0; i < n; i++) h[i] = eh[codes[i]!]!;
  } else {
    for (let i = 0; i < n; i++) {
      const e = codes === null ? i : codes[i]!;
      h[i] = bytesKeyHash(bytes, offsets[e]!, offsets[e + 1]!, seed);
    }
  }
  if (nulls !== null) {
    const nullHash = fmix(Math.imul(seed ^ NULL_WORD, K) ^ NULL_WORD);
    for (let i = 0; i < n; i++) if (nulls[i] !== 0) h[i] = nullHash;
  }
}

/**
 * One hash per row over all key columns. When `out` has at least `rows` entries it is filled (its
 * first `rows` entries) and returned; otherwise a new array is allocated.
 */
export function hashKeys(cols: readonly KeyColumn[], seed: number, out?: Uint32Array): Uint32Array {
  if (cols.length === 0) throw new RangeError('hashKeys needs at least one key column');
  const n = cols[0]!.length;
  const h = out !== undefined && out.length >= n ? out : new Uint32Array(n);
  const only = cols[0]!;
  if (cols.length === 1 && !isBytesKey(only) && only.kind.width <= 3) {
    hashSingleFixed(h, only, seed | 0);
    return h;
  }
  if (cols.length === 1 && isBytesKey(only)) {
    hashSingleBytes(h, only, seed | 0);
    return h;
  }
  h.fill(seed >>> 0, 0, n);
  for (let c = 0; c < cols.length; c++) {
    const col = cols[c]!;
    const nullWord = NULL_WORD ^ Math.imul(c + 1, 0x9e3779b9);
    if (isBytesKey(col)) mixBytesColumn(h, col, seed);
    else if (col.kind.width === 2) mixWords2(h, col);
    else if (col.kind.width === 3) mixWords3(h, col);
    else mixWordsN(h, col);
    if (col.nulls !== null) mixNulls(h, col.nulls, n, nullWord);
  }
  for (let i = 0; i < n; i++) h[i] = fmix(h[i]!);
  return h;
}

/**
 * A NULL row's state gets the column's NULL constant. Fixed columns hashed the row's words first,
 * which are all zero (normalisation guarantees it); bytes columns skipped the row (its bytes or
 * code are garbage in Arrow). Either way the contribution is the same for every NULL row.
 */
function mixNulls(h: Uint32Array, nulls: Uint8Array, n: number, k: number): void {
  for (let i = 0; i < n; i++) if (nulls[i] !== 0) h[i] = mix(h[i]!, k) >>> 0;
}

// --- one fixed-width key column (the common join key) ---------------------------------------------
// A 64-bit value (lo, hi) hashes as fmix(lo ^ seed ^ (hi ^ seed') * GOLDEN): three multiplies where
// the general path's two murmur blocks + finaliser take eight — the probe hashes every row, so this
// is a few ns per row. fmix's full avalanche gives good high bits (a table's home slot) and low bits
// (its salt) alike, and two seeds give unrelated hashes (routing vs table). The invariants hold as
// for the general path: a 1-word value hashes as (v, 0); a 3-word HUGEINT whose top word only
// sign-extends the middle one hashes as its 2-word value (so a key hashes the same whatever width
// it was widened to); a NULL row hashes to one constant per seed.

const GOLDEN = 0x9e3779b1;

function hiSeed(seed: number): number {
  return Math.imul(seed ^ 0x5bd1e995, 0x27d4eb2f);
}

function hashSingleFixed(h: Uint32Array, col: FixedKeyColumn, seed: number): void {
  const w = col.words;
  const n = col.length;
  const s2 = hiSeed(seed);
  const width = col.kind.width;
  if (width === 2) {
    for (let i = 0; i < n; i++) h[i] = fmix(w[2 * i]! ^ seed ^ Math.imul(w[2 * i + 1]! ^ s2, GOLDEN));
  } else if (width === 1) {
    for (let i = 0; i < n; i++) h[i] = fmix(w[i]! ^ seed ^ Math.imul(s2, GOLDEN));
  } else {
    for (let i = 0; i < n; i++) {
      const mid = w[3 * i + 1]!;
      const top = w[3 * i + 2]!;
      let x = w[3 * i]! ^ seed ^ Math.imul(mid ^ s2, GOLDEN);
      if (top !== mid >> 31) x = mix(x, top);
      h[i] = fmix(x);
    }
  }
  const nulls = col.nulls;
  if (nulls !== null) {
    const nullHash = fmix(seed ^ NULL_WORD ^ Math.imul(s2 ^ NULL_WORD, GOLDEN));
    for (let i = 0; i < n; i++) if (nulls[i] !== 0) h[i] = nullHash;
  }
}

/**
 * `hashKeys` of ONE key column of a 64-bit int kind whose rows are these int32 values sign-extended
 * (`rawInt32Keys`), without the column: the same hash, row for row.
 */
export function hashInt32Keys(values: Int32Array, seed: number, out?: Uint32Array): Uint32Array {
  const n = values.length;
  const h = out !== undefined && out.length >= n ? out : new Uint32Array(n);
  const s = seed | 0;
  const s2 = hiSeed(s);
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    h[i] = fmix(v ^ s ^ Math.imul((v >> 31) ^ s2, GOLDEN));
  }
  return h;
}

function mixWords2(h: Uint32Array, col: FixedKeyColumn): void {
  const w = col.words;
  for (let i = 0; i < col.length; i++) h[i] = mix(mix(h[i]!, w[2 * i]!), w[2 * i + 1]!) >>> 0;
}

/** HUGEINT: hash as 2 words when the top word is just the sign extension (width-invariant). */
function mixWords3(h: Uint32Array, col: FixedKeyColumn): void {
  const w = col.words;
  for (let i = 0; i < col.length; i++) {
    const mid = w[3 * i + 1]!;
    const top = w[3 * i + 2]!;
    let s = mix(mix(h[i]!, w[3 * i]!), mid);
    if (top !== mid >> 31) s = mix(s, top);
    h[i] = s >>> 0;
  }
}

function mixWordsN(h: Uint32Array, col: FixedKeyColumn): void {
  const w = col.words;
  const width = col.kind.width;
  for (let i = 0; i < col.length; i++) {
    let s = h[i]!;
    for (let k = 0; k < width; k++) s = mix(s, w[i * width + k]!);
    h[i] = s >>> 0;
  }
}

/** Bytes: hash each distinct dictionary entry once when that is cheaper, else each row. */
function mixBytesColumn(h: Uint32Array, col: BytesKeyColumn, seed: number): void {
  const { offsets, bytes, codes, nulls } = col;
  const n = col.length;
  if (codes !== null && hashesEntries(col, seed)) {
    const eh = entryHashes(col, seed);
    for (let i = 0; i < n; i++) {
      if (nulls !== null && nulls[i] !== 0) continue;
      h[i] = mix(h[i]!, eh[codes[i]!]! | 0) >>> 0;
    }
    return;
  }
  for (let i = 0; i < n; i++) {
    if (nulls !== null && nulls[i] !== 0) continue;
    const e = codes === null ? i : codes[i]!;
    h[i] = mix(h[i]!, bytesKeyHash(bytes, offsets[e]!, offsets[e + 1]!, seed) | 0) >>> 0;
  }
}

/**
 * Whether a dictionary column is hashed per entry (then gathered by code) rather than per row: its
 * entries are few next to its rows, or already hashed with this seed.
 */
function hashesEntries(col: BytesKeyColumn, seed: number): boolean {
  return col.offsets.length - 1 <= 2 * col.length + 64 || entryHashCache.get(col.offsets)?.seed === seed;
}

/** Per-entry byte hashes of a dictionary, cached by its (shared, normalised) offsets array. */
const entryHashCache = new WeakMap<Int32Array, { seed: number; hashes: Uint32Array }>();

function entryHashes(col: BytesKeyColumn, seed: number): Uint32Array {
  const cached = entryHashCache.get(col.offsets);
  if (cached !== undefined && cached.seed === seed) return cached.hashes;
  const { offsets, bytes } = col;
  const entries = offsets.length - 1;
  const hashes = new Uint32Array(entries);
  for (let e = 0; e < entries; e++) hashes[e] = bytesKeyHash(bytes, offsets[e]!, offsets[e + 1]!, seed);
  entryHashCache.set(offsets, { seed, hashes });
  return hashes;
}
