/**
 * Normalised key columns: the one representation every hash map, comparator and pushdown
 * strategy works on, whatever Arrow layout the key came in (any batch, any offset,
 * dictionary-encoded or not).
 *
 * Normalisation happens once per batch (`normalizeKeyColumn`), after both sides' Arrow types have
 * been reconciled into one `KeyKind` (`resolveKeyKind`), so a left Int32 key and a right Int64 key
 * become the same words and hash to the same value — DuckDB's implicit widening.
 *
 * Fixed-width kinds are stored as little-endian 32-bit words, `width` words per row, in one
 * `Int32Array` (row i occupies words [i*width, (i+1)*width)). Equality is word equality; hashing is
 * over the words; ordering depends on `kind.order`. No BigInt is ever created per row.
 *   - int   (signed, widened to 64 bits: 2 words; 3 words when a UInt64 meets a signed key)
 *   - uint  (unsigned 64 bits: 2 words)
 *   - float (Float64 bits, -0.0 folded to +0.0 and every NaN folded to one canonical NaN: 2 words)
 *   - bool  (1 word: 0/1)
 *   - decimal (Decimal128 at a common scale: 4 words, signed)
 * Variable-width kinds (`bytes`: Utf8, LargeUtf8, Binary, dictionary-encoded strings) keep Arrow's
 * offsets + bytes; a dictionary column keeps its codes and points at the dictionary's bytes, so
 * hashing a dictionary hashes each distinct value once.
 */

export type KeyOrder = 'int' | 'uint' | 'float' | 'bool' | 'decimal' | 'bytes';

export interface KeyKind {
  /** How rows compare / which representation. */
  readonly order: KeyOrder;
  /** 32-bit words per row for fixed-width kinds; 0 for `bytes`. */
  readonly width: number;
  /** Human-readable common type, used in errors and EXPLAIN-like output (e.g. `BIGINT`). */
  readonly sqlType: string;
  /** Decimal scale (only for `decimal`). */
  readonly scale?: number;
  /** Timestamp unit both sides were scaled to, if the key is a timestamp. */
  readonly timeUnit?: 'SECOND' | 'MILLISECOND' | 'MICROSECOND' | 'NANOSECOND';
}

export interface FixedKeyColumn {
  readonly kind: KeyKind; // width > 0
  readonly length: number;
  /** `length * kind.width` words. */
  readonly words: Int32Array;
  /** 1 = NULL, 0 = valid; `null` when the column has no NULLs. One byte per row. */
  readonly nulls: Uint8Array | null;
}

export interface BytesKeyColumn {
  readonly kind: KeyKind; // order 'bytes', width 0
  readonly length: number;
  /** Value offsets into `bytes` (length = number of distinct entries + 1). */
  readonly offsets: Int32Array;
  readonly bytes: Uint8Array;
  /** Dictionary codes (row -> entry); `null` when row i is entry i. */
  readonly codes: Int32Array | null;
  readonly nulls: Uint8Array | null;
}

export type KeyColumn = FixedKeyColumn | BytesKeyColumn;

export function isBytesKey(c: KeyColumn): c is BytesKeyColumn {
  return c.kind.width === 0;
}

/**
 * Equality and order between row i of one key tuple and row j of another, built once per pair of
 * batches. Neither function looks at NULLs: callers check `nulls` first (NULL semantics depend on
 * the join's `nullEquality`). Ordering is DuckDB's: NaN above every number, -0.0 == 0.0, strings
 * and binary byte-wise, false < true.
 */
export interface KeyComparator {
  equal(i: number, j: number): boolean;
  /** < 0, 0, > 0; columns compared left to right (lexicographic over a multi-column key). */
  compare(i: number, j: number): number;
}

/**
 * Bytes a normalised key column holds beyond the Arrow data it came from (words, offsets, codes,
 * NULL bytes), for memory reservations. A bytes column's values may share the Arrow buffer and
 * are not counted.
 */
export function keyColumnBytes(c: KeyColumn): number {
  const nulls = c.nulls?.byteLength ?? 0;
  return isBytesKey(c) ? nulls + c.offsets.byteLength + (c.codes?.byteLength ?? 0) : nulls + c.words.byteLength;
}

/**
 * One key value in its kind's comparable domain (core/scan/key-stats.ts converts to and from it):
 * integer, decimal and temporal kinds as `bigint` (in the kind's unit), floats as `number`, bytes
 * kinds as `Uint8Array`.
 */
export type KeyValue = bigint | number | Uint8Array;
