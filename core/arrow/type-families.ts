/**
 * Which Arrow types share a physical layout, written once: code that treats a family alike (a
 * gather, a copy, a byte count, a buffer check, a statistic compared as bytes) asks here instead of
 * listing the type ids again, so adding a type to a family — or finding every place that handles
 * it — is one edit.
 *
 * The families, by the buffers a column's Data has besides its validity bitmap:
 * - fixed: one fixed-size slot per row in `values` (`BYTES_PER_ELEMENT * stride` bytes, sliced
 *   data starting at its row 0) — ints, floats, dates, times, timestamps, durations, intervals,
 *   decimals, fixed-size binary;
 * - offset bytes: `valueOffsets` (32- or 64-bit) into `values` — Utf8, Binary, LargeUtf8,
 *   LargeBinary; view bytes: 16-byte views into inline or variadic buffers — Utf8View, BinaryView;
 * - Null (no buffers) and Bool (a bitmap); everything else (nested, dictionary, union) is none of
 *   these and is the caller's to handle.
 */
import { Type } from 'apache-arrow';

type Family = 'null' | 'bool' | 'fixed' | 'offset-bytes' | 'view-bytes';

/** Type id -> family; a type id not listed is in none. */
const FAMILY: { readonly [typeId: number]: Family | undefined } = {
  [Type.Null]: 'null',
  [Type.Bool]: 'bool',
  [Type.Int]: 'fixed',
  [Type.Float]: 'fixed',
  [Type.Date]: 'fixed',
  [Type.Time]: 'fixed',
  [Type.Timestamp]: 'fixed',
  [Type.Duration]: 'fixed',
  [Type.Interval]: 'fixed',
  [Type.Decimal]: 'fixed',
  [Type.FixedSizeBinary]: 'fixed',
  [Type.Utf8]: 'offset-bytes',
  [Type.Binary]: 'offset-bytes',
  [Type.LargeUtf8]: 'offset-bytes',
  [Type.LargeBinary]: 'offset-bytes',
  [Type.Utf8View]: 'view-bytes',
  [Type.BinaryView]: 'view-bytes',
};

/**
 * Types whose values are one fixed-size slot per row in `values` (`BYTES_PER_ELEMENT * stride`
 * bytes, sliced data starting at its row 0): what a copy can cut, and a row can hold, by width.
 */
export function isFixedWidth(typeId: Type): boolean {
  return FAMILY[typeId] === 'fixed';
}

/** Strings and binaries held as offsets into one value buffer: Utf8, Binary and their Large forms. */
export function isOffsetBytes(typeId: Type): boolean {
  return FAMILY[typeId] === 'offset-bytes';
}

/** Every variable-length string or binary type: the offset forms and the views (not fixed-size binary). */
export function isByteString(typeId: Type): boolean {
  const f = FAMILY[typeId];
  return f === 'offset-bytes' || f === 'view-bytes';
}

/** Flat types: no children, no dictionary — Null, Bool, the fixed-width types and the byte strings. */
export function isFlat(typeId: Type): boolean {
  return FAMILY[typeId] !== undefined;
}
