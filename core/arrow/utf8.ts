/**
 * Exact UTF-8 text of Arrow string bytes.
 *
 * `new TextDecoder()` strips a leading U+FEFF (it takes it for a byte-order mark) and turns
 * invalid bytes into U+FFFD, and so does Arrow JS's own `Vector.get` for Utf8: a value
 * `'\uFEFFa'` would read as `'a'`, two different invalid byte strings as the same text. Every
 * reader of string *values* that must be exact (writers, the DuckDB bridge, the parity
 * comparison) decodes with `exactUtf8` instead: the BOM is data, invalid bytes throw.
 *
 * `checkUtf8` validates a whole Utf8 column batch-at-a-time: one validation pass over the batch's
 * byte range, plus a check that no value starts inside a multi-byte character (the range can be
 * valid while a value boundary splits a character). Only when that fails does it look value by
 * value, to name the first bad row (NULL slots may hold any bytes and are skipped).
 */
import { isUtf8 } from 'node:buffer';
import { Data, DataType, type Vector } from 'apache-arrow';
import { InvalidUtf8Error } from '../errors.ts';

/** Exact: keeps a leading U+FEFF, throws a TypeError on invalid UTF-8. */
export const exactUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** Keeps a leading U+FEFF; invalid bytes become U+FFFD (display only). */
export const displayUtf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** Row `i` of a Utf8 / LargeUtf8 Data as exact text (the caller checks validity). */
export function utf8At(d: Data, i: number): string {
  const o = d.valueOffsets as ArrayLike<number | bigint>;
  return exactUtf8.decode((d.values as Uint8Array).subarray(Number(o[i]!), Number(o[i + 1]!)));
}

/** Node's native validator (simdutf): no string is built, so checking costs a pass over the bytes. */
function validRange(bytes: Uint8Array): boolean {
  return bytes.length === 0 || isUtf8(bytes);
}

/**
 * The first valid row of the Utf8 / LargeUtf8 `d` whose bytes are not UTF-8, or -1. Other types
 * (and dictionaries of Utf8: their dictionary is checked) are -1.
 */
export function firstInvalidUtf8(d: Data): number {
  const t = d.type;
  if (DataType.isDictionary(t)) {
    for (const chunk of (d.dictionary as Vector).data) if (firstInvalidUtf8(chunk) >= 0) return firstValidRow(d);
    return -1;
  }
  if (!(DataType.isUtf8(t) || DataType.isLargeUtf8(t)) || d.length === 0) return -1;
  const o = d.valueOffsets as ArrayLike<number | bigint>;
  const v = d.values as Uint8Array;
  const start = Number(o[0]!);
  const end = Number(o[d.length]!);
  let ok = validRange(v.subarray(start, end));
  for (let i = 1; ok && i < d.length; i++) {
    const p = Number(o[i]!);
    if (p < end && (v[p]! & 0xc0) === 0x80) ok = false;
  }
  if (ok) return -1;
  for (let i = 0; i < d.length; i++) {
    if (d.nullCount > 0 && !d.getValid(i)) continue;
    if (!validRange(v.subarray(Number(o[i]!), Number(o[i + 1]!)))) return i;
  }
  return -1;
}

/** A dictionary column with a bad entry is refused whole: its first valid row is the one named. */
function firstValidRow(d: Data): number {
  for (let i = 0; i < d.length; i++) if (d.nullCount === 0 || d.getValid(i)) return i;
  return 0;
}

/** Throws InvalidUtf8Error for the first string value of `d` that is not UTF-8. */
export function checkUtf8(d: Data, column: string, context: string, rowBase = 0): void {
  const bad = firstInvalidUtf8(d);
  if (bad >= 0) throw new InvalidUtf8Error(column, rowBase + bad, context);
}

/** `checkUtf8` over every top-level column of `batch`; `rowBase` is the batch's first row. */
export function checkBatchUtf8(batch: { schema: { fields: readonly { name: string }[] }; data: { children: readonly Data[] } }, context: string, rowBase = 0): void {
  const fields = batch.schema.fields;
  for (let c = 0; c < fields.length; c++) checkUtf8(batch.data.children[c]!, fields[c]!.name, context, rowBase);
}
