/**
 * Row comparators over normalised key columns, built once per pair of batches: every column's
 * equality and order function is chosen (and its arrays captured) up front, so a call is a couple
 * of typed-array reads with no allocation, no type dispatch and no BigInt.
 *
 * Orders (DuckDB's):
 *  - int: words little-endian, the top word signed and the lower words unsigned (64 or 96 bits);
 *  - uint: both words unsigned; decimal: 128-bit signed, same rule as int;
 *  - float: numeric order with NaN above every number and NaN == NaN; -0.0 == 0.0 (normalisation
 *    already folded both, so equality is word equality);
 *  - bool: false < true; bytes: memcmp, a proper prefix first (UTF-8 byte order is code point
 *    order, which is DuckDB's default VARCHAR collation).
 * Neither function reads `nulls`: the caller decides what NULL means for its join. The
 * direction- and NULL-aware comparator of sorts and merge joins (`order.ts`) wraps the same
 * per-column orders (`keyColumnOrder`, `keyColumnEquality`, `combineKeyColumns`), so each kind's
 * order is written once, here.
 */
import { compareByteRanges, compareFloats, floatKeyView } from './byte-order.ts';
import type { BytesKeyColumn, FixedKeyColumn, KeyColumn, KeyComparator } from './types.ts';
import { isBytesKey } from './types.ts';

/** Order of row i of one column and row j of another: < 0, 0, > 0. */
export type ColumnOrder = (i: number, j: number) => number;
export type ColumnEquality = (i: number, j: number) => boolean;

/** Comparator between rows of `a` (i) and rows of `b` (j); both normalised to the same kinds. */
export function makeKeyComparator(a: readonly KeyColumn[], b: readonly KeyColumn[]): KeyComparator {
  checkSameKinds(a, b);
  const orders: ColumnOrder[] = [];
  const equals: ColumnEquality[] = [];
  for (let k = 0; k < a.length; k++) {
    orders.push(keyColumnOrder(a[k]!, b[k]!));
    equals.push(keyColumnEquality(a[k]!, b[k]!));
  }
  return combineKeyColumns(orders, equals);
}

/** Throws RangeError unless `a` and `b` have the same arity and each column pair the same kind. */
export function checkSameKinds(a: readonly KeyColumn[], b: readonly KeyColumn[]): void {
  if (a.length !== b.length) throw new RangeError(`key arity differs: ${a.length} vs ${b.length}`);
  for (let k = 0; k < a.length; k++) {
    const x = a[k]!;
    const y = b[k]!;
    if (x.kind.order !== y.kind.order || x.kind.width !== y.kind.width) {
      throw new RangeError(`key column ${k} was normalised to different kinds: ${x.kind.sqlType} vs ${y.kind.sqlType}`);
    }
  }
}

const withinCache = new WeakMap<readonly KeyColumn[], KeyComparator>();

/** Order of rows i and j of one side (the comparator is built once per `cols` array and cached). */
export function compareRowsWithin(cols: readonly KeyColumn[], i: number, j: number): number {
  let cmp = withinCache.get(cols);
  if (cmp === undefined) withinCache.set(cols, (cmp = makeKeyComparator(cols, cols)));
  return cmp.compare(i, j);
}

/**
 * Per-column orders and equalities combined lexicographically: specialised combinations for 1 and
 * 2 columns, a loop over the arrays beyond that.
 */
export function combineKeyColumns(orders: readonly ColumnOrder[], equals: readonly ColumnEquality[]): KeyComparator {
  const n = orders.length;
  if (n === 0) return { equal: () => true, compare: () => 0 };
  if (n === 1) return { equal: equals[0]!, compare: orders[0]! };
  if (n === 2) {
    const [o0, o1] = orders as [ColumnOrder, ColumnOrder];
    const [e0, e1] = equals as [ColumnEquality, ColumnEquality];
    return { equal: (i, j) => e0(i, j) && e1(i, j), compare: (i, j) => o0(i, j) || o1(i, j) };
  }
  return {
    equal(i, j) {
      for (let k = 0; k < n; k++) if (!equals[k]!(i, j)) return false;
      return true;
    },
    compare(i, j) {
      for (let k = 0; k < n; k++) {
        const c = orders[k]!(i, j);
        if (c !== 0) return c;
      }
      return 0;
    },
  };
}

/** Ascending order of one column pair of the same kind (NULLs not looked at). */
export function keyColumnOrder(a: KeyColumn, b: KeyColumn): ColumnOrder {
  if (isBytesKey(a)) return bytesOrder(a, b as BytesKeyColumn);
  const x = a;
  const y = b as FixedKeyColumn;
  switch (x.kind.order) {
    case 'float':
      return floatOrder(x, y);
    case 'bool':
      return boolOrder(x.words, y.words);
    case 'uint':
      return uint64Order(x.words, y.words);
    default:
      return x.kind.width === 2 ? int64Order(x.words, y.words) : wideSignedOrder(x.words, y.words, x.kind.width);
  }
}

/** Equality of one column pair of the same kind (NULLs not looked at). */
export function keyColumnEquality(a: KeyColumn, b: KeyColumn): ColumnEquality {
  if (isBytesKey(a)) return bytesEquality(a, b as BytesKeyColumn);
  const aw = a.words;
  const bw = (b as FixedKeyColumn).words;
  switch (a.kind.width) {
    case 1:
      return (i, j) => aw[i] === bw[j];
    case 2:
      return (i, j) => aw[2 * i] === bw[2 * j] && aw[2 * i + 1] === bw[2 * j + 1];
    default: {
      const w = a.kind.width;
      return (i, j) => {
        for (let k = 0; k < w; k++) if (aw[i * w + k] !== bw[j * w + k]) return false;
        return true;
      };
    }
  }
}

// --- fixed width ---------------------------------------------------------------------------------

function boolOrder(aw: Int32Array, bw: Int32Array): ColumnOrder {
  return (i, j) => aw[i]! - bw[j]!;
}

function int64Order(aw: Int32Array, bw: Int32Array): ColumnOrder {
  return (i, j) => {
    const ah = aw[2 * i + 1]!;
    const bh = bw[2 * j + 1]!;
    if (ah !== bh) return ah < bh ? -1 : 1;
    const al = aw[2 * i]! >>> 0;
    const bl = bw[2 * j]! >>> 0;
    return al < bl ? -1 : al > bl ? 1 : 0;
  };
}

function uint64Order(aw: Int32Array, bw: Int32Array): ColumnOrder {
  return (i, j) => {
    const ah = aw[2 * i + 1]! >>> 0;
    const bh = bw[2 * j + 1]! >>> 0;
    if (ah !== bh) return ah < bh ? -1 : 1;
    const al = aw[2 * i]! >>> 0;
    const bl = bw[2 * j]! >>> 0;
    return al < bl ? -1 : al > bl ? 1 : 0;
  };
}

/** HUGEINT (3 words) and DECIMAL (4 words): top word signed, the rest unsigned. */
function wideSignedOrder(aw: Int32Array, bw: Int32Array, w: number): ColumnOrder {
  return (i, j) => {
    const top = w - 1;
    const at = aw[i * w + top]!;
    const bt = bw[j * w + top]!;
    if (at !== bt) return at < bt ? -1 : 1;
    for (let k = top - 1; k >= 0; k--) {
      const x = aw[i * w + k]! >>> 0;
      const y = bw[j * w + k]! >>> 0;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
}

function floatOrder(a: FixedKeyColumn, b: FixedKeyColumn): ColumnOrder {
  const x = floatKeyView(a);
  const y = floatKeyView(b);
  return (i, j) => compareFloats(x[i]!, y[j]!);
}

// --- bytes ---------------------------------------------------------------------------------------

function bytesOrder(a: BytesKeyColumn, b: BytesKeyColumn): ColumnOrder {
  const { offsets: ao, bytes: ab, codes: ac } = a;
  const { offsets: bo, bytes: bb, codes: bc } = b;
  return (i, j) => {
    const ea = ac === null ? i : ac[i]!;
    const eb = bc === null ? j : bc[j]!;
    return compareByteRanges(ab, ao[ea]!, ao[ea + 1]!, bb, bo[eb]!, bo[eb + 1]!);
  };
}

function bytesEquality(a: BytesKeyColumn, b: BytesKeyColumn): ColumnEquality {
  const { offsets: ao, bytes: ab, codes: ac } = a;
  const { offsets: bo, bytes: bb, codes: bc } = b;
  const sameEntries = ao === bo && ab === bb;
  return (i, j) => {
    const ea = ac === null ? i : ac[i]!;
    const eb = bc === null ? j : bc[j]!;
    if (sameEntries && ea === eb) return true;
    const p = ao[ea]!;
    const q = bo[eb]!;
    const len = ao[ea + 1]! - p;
    if (bo[eb + 1]! - q !== len) return false;
    for (let k = 0; k < len; k++) if (ab[p + k] !== bb[q + k]) return false;
    return true;
  };
}
