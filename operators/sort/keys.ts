/**
 * Sort keys: what the user asks for (`SortKey`, or the text form `"a desc nulls first, b"`),
 * resolved against a schema (`BoundSort`: column indices, key kinds, orders), and what sorting
 * rows by them costs in memory — the estimates the sort reserves *before* it normalises keys or
 * argsorts, so that sorting what it holds can never be the step that runs out of memory.
 *
 * Text form (the CLI's `--by`): `COLUMN [ASC|DESC] [NULLS FIRST|LAST]`, comma-separated; keywords
 * in any case; a column name with spaces, commas or quotes is written `"like ""this"""` (DuckDB's
 * quoting). The default is ASC NULLS LAST, DuckDB's. Malformed text is a `UsageError` that quotes
 * it; an unknown column a `MissingColumnError` (from `bindSort`, before any row is read).
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { dataByteSize } from '../../core/arrow/size.ts';
import { MissingColumnError, UsageError } from '../../core/errors.ts';
import type { KeySortOrder } from '../../core/keys/order.ts';
import { keyKindOf } from '../../core/keys/resolve.ts';
import type { KeyKind } from '../../core/keys/types.ts';

/** One sort key: a column of the input and its order (default ASC NULLS LAST, DuckDB's). */
export interface SortKey {
  readonly column: string;
  readonly descending?: boolean;
  readonly nullsFirst?: boolean;
}

/** The sort keys resolved against a schema: column indices, key kinds and orders. */
export interface BoundSort {
  readonly columns: readonly string[];
  /** Index of each key column in the schema. */
  readonly indices: readonly number[];
  readonly kinds: readonly KeyKind[];
  readonly orders: readonly KeySortOrder[];
}

/** Checks `keys` against `schema` without reading data (typed errors, see the module doc). */
export function bindSort(schema: Schema, keys: readonly SortKey[], source = 'input'): BoundSort {
  if (keys.length === 0) throw new UsageError('a sort needs at least one sort key');
  const names = schema.fields.map((f) => f.name);
  const indices = keys.map((k) => {
    const i = names.indexOf(k.column);
    if (i < 0) throw new MissingColumnError(k.column, source, names);
    return i;
  });
  return {
    columns: keys.map((k) => k.column),
    indices,
    kinds: indices.map((i, k) => keyKindOf(schema.fields[i]!.type, keys[k]!.column)),
    orders: keys.map((k) => ({ descending: k.descending === true, nullsFirst: k.nullsFirst === true })),
  };
}

const KEY = /\s*("(?:[^"]|"")+"|[^\s,"]+)(?:\s+(asc|desc))?(?:\s+nulls\s+(first|last))?\s*(,|$)/iy;

/** `"a desc nulls first, b"` as sort keys (see the module doc for the grammar). */
export function parseSortKeys(text: string): SortKey[] {
  const bad = (): never => {
    throw new UsageError(`--by expects "COLUMN [ASC|DESC] [NULLS FIRST|LAST][, COLUMN2 …]", got '${text}'`);
  };
  if (text.trim() === '') bad();
  const keys: SortKey[] = [];
  KEY.lastIndex = 0;
  while (KEY.lastIndex < text.length) {
    const m = KEY.exec(text);
    if (m === null) return bad();
    const name = m[1]!.startsWith('"') ? m[1]!.slice(1, -1).replace(/""/g, '"') : m[1]!;
    keys.push({ column: name, descending: m[2]?.toLowerCase() === 'desc', nullsFirst: m[3]?.toLowerCase() === 'first' });
    if (m[4] === ',' && KEY.lastIndex === text.length) bad(); // a trailing comma
    if (m[4] === '') break;
  }
  return keys;
}

/** The text form of `keys` (what `parseSortKeys` reads back). */
export function formatSortKeys(keys: readonly SortKey[]): string {
  return keys
    .map((k) => {
      const name = /^[^\s,"]+$/.test(k.column) ? k.column : `"${k.column.replace(/"/g, '""')}"`;
      return `${name} ${k.descending ? 'DESC' : 'ASC'} NULLS ${k.nullsFirst ? 'FIRST' : 'LAST'}`;
    })
    .join(', ');
}

/**
 * An upper bound of the bytes `normalizeKeys` allocates for `batch`'s key columns: fixed-width
 * kinds `width` words and a NULL byte per row; bytes kinds offsets (or dictionary codes), a NULL
 * byte per row and — when the values must be materialised (several chunks) — the column's own
 * bytes again.
 */
export function keyBytesEstimate(batch: RecordBatch, bound: BoundSort): number {
  const n = batch.numRows;
  let bytes = 0;
  for (let k = 0; k < bound.indices.length; k++) {
    const kind = bound.kinds[k]!;
    if (kind.width > 0) {
      bytes += n * (4 * kind.width + 1);
      continue;
    }
    bytes += 9 * n + 8 + dataByteSize(batch.data.children[bound.indices[k]!]!);
  }
  return bytes;
}

/**
 * Bytes per row `argsortKeys` needs beside the keys: the order and its scratch (4 + 4) and, for
 * the radix path, the order-preserving key words of the widest column and their copy.
 */
export function sortScratchPerRow(bound: BoundSort): number {
  let w = 0;
  for (const kind of bound.kinds) w = Math.max(w, kind.width === 0 ? 1 : kind.width);
  return 8 + 8 * w;
}
