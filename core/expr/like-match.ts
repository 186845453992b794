/**
 * LIKE patterns compiled once into a matcher that works on a string's UTF-8 bytes in place (no JS
 * string per row): DuckDB's semantics, from src/function/scalar/string/like.cpp (1.5):
 *
 * - `%` matches any run of characters, `_` exactly one character (one code point: DuckDB's
 *   `NextCharacter` skips the continuation bytes), anything else matches its own bytes; with an
 *   escape byte, the byte after it is matched literally. The escape is checked first, so an escape
 *   of `_` makes every `_` an escape. Matching is byte-exact (no collation), case-sensitive.
 * - `TemplatedLikeOperator` is a recursive search over byte positions; its answer is that of
 *   matching the token sequence over code points (a `%` retried at a continuation byte can only
 *   be followed by `_`, which then ends where it would have from the character's start, or by a
 *   literal, whose first byte starts a character and so cannot match there). So the matcher splits
 *   the pattern at its `%` runs into segments of literal bytes and `_`, anchors the first segment
 *   at the start (when the pattern does not begin with `%`), the last at the end (when it does not
 *   end with `%`), and finds each middle segment leftmost in what lies between — leftmost is
 *   optimal because a segment has a fixed number of characters. DuckDB's `LikeMatcher` does the
 *   same for patterns without `_` (segments found with `memcmp` / `FindStrInStr`).
 * - A pattern ending in an unpaired escape byte: DuckDB raises "Like pattern must not end with
 *   escape character!" only when its search reaches that byte with input left, which happens
 *   exactly when the tokens before it match a proper prefix of the string — i.e. when the string
 *   matches those tokens followed by `_%`; otherwise the answer is false. `danglingEscape` marks
 *   such a pattern, `errorProbe` is that `_%` pattern; the node raises for a row it matches.
 * - An escape of `%` is refused by the caller (DuckDB's last loop skips trailing raw `%` bytes even
 *   when they are escapes, which no token reading reproduces).
 *
 * Degenerate cases: the empty pattern matches only the empty string; `%` matches everything
 * (including ''); `_` needs one character. Worst case per row is O(string bytes x pattern bytes)
 * (a middle segment with `_` is tried at every character), like DuckDB's.
 */

/** One character (`_`) inside a segment. */
const ANY = -1;
const STAR = -2;

export interface LikePattern {
  /** The non-empty segments between `%` runs, in order: literal bytes (0..255) and ANY. */
  readonly segments: readonly Int32Array[];
  /** Whether the pattern holds a `%` at all (else it must match the whole string). */
  readonly hasStar: boolean;
  readonly leadingStar: boolean;
  readonly trailingStar: boolean;
  /** Ends with an unpaired escape byte (see the module comment). */
  readonly danglingEscape: boolean;
  /** The tokens, for building the error probe. */
  readonly tokens: Int32Array;
}

/** Tokens of `pattern` (escape: a byte value, or -1 for none). */
export function parseLikePattern(pattern: Uint8Array, escape: number): LikePattern {
  const tokens: number[] = [];
  let dangling = false;
  for (let i = 0; i < pattern.length; i++) {
    const b = pattern[i]!;
    if (b === escape) {
      if (i + 1 === pattern.length) {
        dangling = true;
        break;
      }
      tokens.push(pattern[++i]!);
    } else if (b === 37 /* % */) tokens.push(STAR);
    else if (b === 95 /* _ */) tokens.push(ANY);
    else tokens.push(b);
  }
  return fromTokens(Int32Array.from(tokens), dangling);
}

function fromTokens(tokens: Int32Array, danglingEscape: boolean): LikePattern {
  const segments: Int32Array[] = [];
  let current: number[] = [];
  let hasStar = false;
  for (const t of tokens) {
    if (t === STAR) {
      hasStar = true;
      if (current.length > 0) segments.push(Int32Array.from(current));
      current = [];
    } else current.push(t);
  }
  if (current.length > 0 || !hasStar) segments.push(Int32Array.from(current));
  return {
    segments,
    hasStar,
    leadingStar: tokens.length > 0 && tokens[0] === STAR,
    trailingStar: tokens.length > 0 && tokens[tokens.length - 1] === STAR,
    danglingEscape,
    tokens,
  };
}

/** A pattern matching `bytes` literally, preceded / followed by `%` as asked (prefix, suffix, contains). */
export function literalPattern(bytes: Uint8Array, leadingStar: boolean, trailingStar: boolean): LikePattern {
  const t = new Int32Array(bytes.length + 2);
  let o = 0;
  if (leadingStar) t[o++] = STAR;
  t.set(bytes, o);
  o += bytes.length;
  if (trailingStar) t[o++] = STAR;
  return fromTokens(t.subarray(0, o), false);
}

/** For a pattern with a dangling escape: the pattern a string must match for DuckDB to raise (tokens + `_%`). */
export function errorProbe(p: LikePattern): LikePattern {
  const t = new Int32Array(p.tokens.length + 2);
  t.set(p.tokens);
  t[p.tokens.length] = ANY;
  t[p.tokens.length + 1] = STAR;
  return fromTokens(t, false);
}

/** The bytes every match begins with (the literal bytes before the first `%` or `_`). */
export function literalPrefix(p: LikePattern): Uint8Array {
  if (p.leadingStar) return new Uint8Array(0);
  const first = p.segments[0]!;
  let n = 0;
  while (n < first.length && first[n]! >= 0) n++;
  return Uint8Array.from(first.subarray(0, n));
}

/** The string a pattern without wildcards matches exactly, or null. */
export function exactLiteral(p: LikePattern): Uint8Array | null {
  if (p.hasStar || p.danglingEscape) return null;
  const s = p.segments[0]!;
  for (const t of s) if (t < 0) return null;
  return Uint8Array.from(s);
}

/** A segment's bytes when it holds no `_`, else null. */
function literalBytes(seg: Int32Array): Uint8Array | null {
  for (const t of seg) if (t < 0) return null;
  return Uint8Array.from(seg);
}

/** A compiled pattern: `match` decides one string given as a byte range. */
export class LikeMatcher {
  private readonly first: Int32Array | null;
  private readonly last: Int32Array | null;
  private readonly middle: readonly Int32Array[];
  private readonly middleLiterals: readonly (Uint8Array | null)[];
  private readonly anchoredBoth: boolean;
  /** A pattern of one literal segment and no `_`: 'abc', 'abc%', '%abc', '%abc%' as byte tests. */
  private readonly simple: { readonly kind: 'equals' | 'prefix' | 'suffix' | 'contains'; readonly bytes: Uint8Array } | null;

  constructor(readonly pattern: LikePattern) {
    const segs = pattern.segments;
    if (!pattern.hasStar) {
      this.anchoredBoth = true;
      this.first = segs[0]!;
      this.last = null;
      this.middle = [];
    } else {
      this.anchoredBoth = false;
      let lo = 0;
      let hi = segs.length;
      this.first = !pattern.leadingStar && hi > 0 ? segs[lo++]! : null;
      this.last = !pattern.trailingStar && hi > lo ? segs[--hi]! : null;
      this.middle = segs.slice(lo, hi);
    }
    this.middleLiterals = this.middle.map(literalBytes);
    this.simple = null;
    if (segs.length === 1) {
      const bytes = literalBytes(segs[0]!);
      if (bytes !== null) {
        const kind = !pattern.hasStar ? 'equals' : this.first !== null ? 'prefix' : this.last !== null ? 'suffix' : 'contains';
        this.simple = { kind, bytes };
      }
    }
  }

  match(b: Uint8Array, start: number, end: number): boolean {
    const s = this.simple;
    if (s !== null) {
      const lit = s.bytes;
      const L = lit.length;
      switch (s.kind) {
        case 'equals':
          return end - start === L && sameBytes(b, start, lit);
        case 'prefix':
          return end - start >= L && sameBytes(b, start, lit);
        case 'suffix':
          return end - start >= L && sameBytes(b, end - L, lit);
        case 'contains':
          return findLiteral(lit, b, start, end) >= 0;
      }
    }
    let pos = start;
    if (this.first !== null) {
      pos = matchForward(this.first, b, start, end);
      if (pos < 0) return false;
      if (this.anchoredBoth) return pos === end;
    }
    let lim = end;
    if (this.last !== null) {
      lim = matchBackward(this.last, b, pos, end);
      if (lim < 0) return false;
    }
    const middle = this.middle;
    for (let i = 0; i < middle.length; i++) {
      const lit = this.middleLiterals[i]!;
      pos = lit !== null ? findLiteral(lit, b, pos, lim) : findSegment(middle[i]!, b, pos, lim);
      if (pos < 0) return false;
    }
    return true;
  }
}

function sameBytes(b: Uint8Array, at: number, lit: Uint8Array): boolean {
  for (let k = 0; k < lit.length; k++) if (b[at + k] !== lit[k]) return false;
  return true;
}

/** Matches `seg` at p (not beyond `end`): the position after it, or -1. */
function matchForward(seg: Int32Array, b: Uint8Array, p: number, end: number): number {
  for (let i = 0; i < seg.length; i++) {
    if (p >= end) return -1;
    const t = seg[i]!;
    if (t === ANY) {
      p++;
      while (p < end && (b[p]! & 0xc0) === 0x80) p++;
    } else {
      if (b[p] !== t) return -1;
      p++;
    }
  }
  return p;
}

/** Matches `seg` ending at `e` (not before `lo`): where it starts, or -1. */
function matchBackward(seg: Int32Array, b: Uint8Array, lo: number, e: number): number {
  for (let i = seg.length - 1; i >= 0; i--) {
    if (e <= lo) return -1;
    const t = seg[i]!;
    if (t === ANY) {
      e--;
      while (e > lo && (b[e]! & 0xc0) === 0x80) e--;
    } else {
      if (b[e - 1] !== t) return -1;
      e--;
    }
  }
  return e;
}

/** The end of the leftmost occurrence of `lit` within [p, lim), or -1 (bounded: never reads past `lim`). */
function findLiteral(lit: Uint8Array, b: Uint8Array, p: number, lim: number): number {
  const L = lit.length;
  const last = lim - L;
  const first = lit[0]!;
  outer: for (let q = p; q <= last; q++) {
    if (b[q] !== first) continue;
    for (let k = 1; k < L; k++) if (b[q + k] !== lit[k]) continue outer;
    return q + L;
  }
  return -1;
}

/** The end of the leftmost match of a segment with `_` within [p, lim), tried at each character start, or -1. */
function findSegment(seg: Int32Array, b: Uint8Array, p: number, lim: number): number {
  while (p < lim) {
    const r = matchForward(seg, b, p, lim);
    if (r >= 0) return r;
    p++;
    while (p < lim && (b[p]! & 0xc0) === 0x80) p++;
  }
  return -1;
}
