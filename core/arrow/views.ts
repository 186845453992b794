/**
 * Utf8View/BinaryView in one place. Each 16-byte view is four little-endian int32 words: the
 * value's size, then either the value itself when it is at most `VIEW_INLINE` (12) bytes (inline,
 * from byte 4), or a 4-byte prefix, the index of the data buffer (`variadicBuffers`) holding it
 * and its offset there. Readers that want plain offsets + bytes copy the values out with
 * `viewBytesLength` and `appendViewBytes`; the gather copies the views themselves and rebases the
 * buffer index (only views longer than `VIEW_INLINE` have one).
 *
 * As everywhere in Arrow JS, `values` of a sliced Data already start at its row 0. Sizes are
 * trusted (input checks refuse a negative size or a view outside its buffers): this is a hot path.
 * `copyBytes` is the short-value copy these share; `copyBytesPadded` the offsets-based gathers'.
 */
import type { Data } from 'apache-arrow';

/** The longest value a view holds inline. */
export const VIEW_INLINE = 12;

/** A view column's views as int32 words, four per row (copied only if the buffer is unaligned). */
function viewWords(d: Data): Int32Array {
  const raw = d.values as Uint8Array;
  if (raw.byteOffset % 4 === 0) return new Int32Array(raw.buffer, raw.byteOffset, 4 * d.length);
  return new Int32Array(raw.slice(0, 16 * d.length).buffer);
}

/** Total bytes of a view column's values. */
export function viewBytesLength(d: Data): number {
  const views = viewWords(d);
  let total = 0;
  for (let i = 0; i < d.length; i++) total += views[4 * i]!;
  return total;
}

/**
 * Copy a view column's values into `bytes` from `pos`, writing offsets[base + i + 1] = the end of
 * value i (the caller has written offsets[base]); returns the position after the last value.
 */
export function appendViewBytes(d: Data, bytes: Uint8Array, offsets: Int32Array, base: number, pos: number): number {
  const raw = d.values as Uint8Array;
  const views = viewWords(d);
  for (let i = 0; i < d.length; i++) {
    const size = views[4 * i]!;
    if (size <= VIEW_INLINE) copyBytes(raw, 16 * i + 4, size, bytes, pos);
    else copyBytes(d.variadicBuffers[views[4 * i + 2]!]!, views[4 * i + 3]!, size, bytes, pos);
    pos += size;
    offsets[base + i + 1] = pos;
  }
  return pos;
}

/** Byte copy without allocating a subarray for short values. */
export function copyBytes(src: Uint8Array, from: number, size: number, dst: Uint8Array, to: number): void {
  if (size > 64) {
    dst.set(src.subarray(from, from + size), to);
    return;
  }
  for (let k = 0; k < size; k++) dst[to + k] = src[from + k]!;
}

/**
 * Bytes past the end of its output that `copyBytesPadded` may write: the gather allocates its
 * output this much longer and hands out a view of the exact length.
 */
export const COPY_PADDING = 8;

/**
 * `src[s, e)` to `dst` at `p`, eight bytes at a time as two int32 words through DataViews: a
 * value of up to 64 bytes costs one loop trip per 8 bytes instead of one per byte (a string
 * gather of 64K 6–9-byte values, ascending or at random: ~19 -> ~12 ns a row; h2o's id4–id6 are such).
 * It over-copies up to 7 bytes past `dst[p + e - s]`: correct only when values are written at
 * ascending positions (the next value overwrites the excess) into a `dst` with `COPY_PADDING`
 * spare bytes. `lim` is `src.byteLength - 8`: a word is read only where it lies inside `src`;
 * the last bytes of `src` go one at a time. Longer values are one `set` of a subarray.
 */
export function copyBytesPadded(src: Uint8Array, sv: DataView, lim: number, s: number, e: number, dst: Uint8Array, dv: DataView, p: number): void {
  if (e - s > 64) {
    dst.set(src.subarray(s, e), p);
    return;
  }
  while (s < e && s <= lim) {
    dv.setInt32(p, sv.getInt32(s, true), true);
    dv.setInt32(p + 4, sv.getInt32(s + 4, true), true);
    s += 8;
    p += 8;
  }
  while (s < e) dst[p++] = src[s++]!;
}

/** A DataView over exactly `bytes` (what `copyBytesPadded` reads and writes through). */
export function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
