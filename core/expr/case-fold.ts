/**
 * Lower-casing UTF-8 bytes the way DuckDB's `lower()` and ILIKE do: each code point mapped by
 * Unicode's *simple* lowercase mapping (utf8proc_tolower, one code point to one code point), ASCII
 * through a table (DuckDB's `LowerCase`, src/function/scalar/string/caseconvert.cpp, and
 * `ILikeOperatorFunction` in like.cpp, which lowers both the string and the pattern first).
 *
 * Why not `String.prototype.toLowerCase`: it applies the *full* mapping (U+0130 'İ' becomes
 * 'i' + U+0307, two code points) and the context rule for a final sigma ('ΑΣ' -> 'ας'), neither of
 * which utf8proc does. So the table is built one code point at a time — a single code point has no
 * final-sigma context — and the one unconditional multi-code-point lowercase mapping of
 * SpecialCasing.txt (U+0130) takes its simple mapping, U+0069. The mapping of the BMP is built once,
 * on the first non-ASCII byte; supplementary code points are mapped on demand and cached. Unicode
 * versions differ between V8's ICU and DuckDB's utf8proc (15.1): letters cased only in later
 * versions keep their case (`newerThanDuckDB`); the test compares every code point of planes 0–2
 * with DuckDB's `lower()`, so a Node.js with another ICU shows any new difference.
 *
 * A byte sequence that is not valid UTF-8 is copied through unchanged byte by byte (DuckDB's
 * strings are validated UTF-8, so this never decides a result).
 */

const ASCII_LOWER = Uint8Array.from({ length: 128 }, (_, c) => (c >= 65 && c <= 90 ? c + 32 : c));

let bmp: Uint32Array | null = null;
const astral = new Map<number, number>();

/** The simple lowercase mapping of one code point. */
export function lowerCodePoint(cp: number): number {
  if (cp < 128) return ASCII_LOWER[cp]!;
  if (cp < 0x10000) return (bmp ??= buildBmp())[cp]!;
  let v = astral.get(cp);
  if (v === undefined) astral.set(cp, (v = mapOne(cp)));
  return v;
}

/**
 * Upper-case letters given a lowercase mapping after Unicode 15.1 (16.0: U+1C89, seven in U+A7CB…U+A7DC,
 * Garay U+10D50…U+10D65; 17.0: U+16EA0…U+16EB8), which V8's ICU maps and DuckDB 1.5's utf8proc
 * (Unicode 15.1) leaves as they are: found by the test against DuckDB's lower().
 */
const NEWER_LATIN = new Set([0xa7cb, 0xa7cc, 0xa7ce, 0xa7d2, 0xa7d4, 0xa7da, 0xa7dc]);
function newerThanDuckDB(cp: number): boolean {
  return cp === 0x1c89 || NEWER_LATIN.has(cp) || (cp >= 0x10d50 && cp <= 0x10d65) || (cp >= 0x16ea0 && cp <= 0x16eb8);
}

function mapOne(cp: number): number {
  if (cp === 0x130) return 0x69; // SpecialCasing's 'i' + U+0307 is the full mapping; the simple one is 'i'
  if ((cp >= 0xd800 && cp <= 0xdfff) || newerThanDuckDB(cp)) return cp;
  const s = String.fromCodePoint(cp).toLowerCase();
  const c = s.codePointAt(0)!;
  return s.length === (c > 0xffff ? 2 : 1) ? c : cp;
}

function buildBmp(): Uint32Array {
  const t = new Uint32Array(0x10000);
  for (let cp = 0; cp < 0x10000; cp++) t[cp] = cp < 128 ? ASCII_LOWER[cp]! : mapOne(cp);
  return t;
}

/** Bytes of a code point's UTF-8 encoding. */
function utf8Length(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/**
 * Writes the lowercase of `src[start, end)` into `out` from 0 and returns its length; `out` must
 * hold at least `lowerCapacity(end - start)` bytes.
 */
export function lowerUtf8(src: Uint8Array, start: number, end: number, out: Uint8Array): number {
  let o = 0;
  let i = start;
  while (i < end) {
    const b = src[i]!;
    if (b < 0x80) {
      out[o++] = ASCII_LOWER[b]!;
      i++;
      continue;
    }
    let cp: number;
    let len: number;
    if (b >= 0xf0 && i + 3 < end) {
      cp = ((b & 0x07) << 18) | ((src[i + 1]! & 0x3f) << 12) | ((src[i + 2]! & 0x3f) << 6) | (src[i + 3]! & 0x3f);
      len = 4;
    } else if (b >= 0xe0 && b < 0xf0 && i + 2 < end) {
      cp = ((b & 0x0f) << 12) | ((src[i + 1]! & 0x3f) << 6) | (src[i + 2]! & 0x3f);
      len = 3;
    } else if (b >= 0xc0 && b < 0xe0 && i + 1 < end) {
      cp = ((b & 0x1f) << 6) | (src[i + 1]! & 0x3f);
      len = 2;
    } else {
      out[o++] = b; // not the start of a complete sequence: copied as it is
      i++;
      continue;
    }
    const lower = lowerCodePoint(cp);
    if (lower === cp) {
      for (let k = 0; k < len; k++) out[o++] = src[i + k]!;
    } else {
      o = writeCodePoint(lower, out, o);
    }
    i += len;
  }
  return o;
}

/** Room `lowerUtf8` may need for `n` input bytes (lowering can grow a character: 'Ⱥ' U+023A, 2 bytes, lowers to U+2C65, 3 bytes). */
export function lowerCapacity(n: number): number {
  return 2 * n + 4;
}

function writeCodePoint(cp: number, out: Uint8Array, o: number): number {
  switch (utf8Length(cp)) {
    case 1:
      out[o++] = cp;
      break;
    case 2:
      out[o++] = 0xc0 | (cp >> 6);
      out[o++] = 0x80 | (cp & 0x3f);
      break;
    case 3:
      out[o++] = 0xe0 | (cp >> 12);
      out[o++] = 0x80 | ((cp >> 6) & 0x3f);
      out[o++] = 0x80 | (cp & 0x3f);
      break;
    default:
      out[o++] = 0xf0 | (cp >> 18);
      out[o++] = 0x80 | ((cp >> 12) & 0x3f);
      out[o++] = 0x80 | ((cp >> 6) & 0x3f);
      out[o++] = 0x80 | (cp & 0x3f);
  }
  return o;
}
