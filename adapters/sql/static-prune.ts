/**
 * Which containers a static WHERE conjunct can rule out, from their min/max and null counts: the
 * container test of static-filter.ts. A container is dropped only when its statistics PROVE that
 * no row makes the conjunct TRUE; anything unknown — a form not listed, a type pair whose
 * comparison is not exact, missing statistics — keeps it. (The rows are filtered by the evaluator
 * either way; this only skips decoding.)
 *
 * Forms (recursively): `a AND b` (each must be able to hold), `a OR b` (either; so
 * `k = 1 OR k = 5` and `x < 3 OR y > 7` prune), `BETWEEN` (DuckDB's parser makes it an AND),
 * `col <op> constant` in either order, `col [NOT] IN (constants)` (IN: any equality), `col IS [NOT]
 * NULL`, `col LIKE 'prefix%'` / `like_escape` / `prefix` / `starts_with` (the range [prefix,
 * prefix with its last byte + 1) — UTF-8 never holds 0xFF, so the increment is always a byte; a
 * pattern without wildcards is an equality). A comparison with NULL never holds; a container whose
 * column is entirely NULL holds no TRUE comparison.
 *
 * Constants (`constantOf`): literals; casts of literals to DATE / TIMESTAMP / integer / DECIMAL /
 * DOUBLE / VARCHAR; date and interval arithmetic (folded by temporal-fold.ts); exact `+ - *` and unary
 * minus of integer and decimal literals (`0.06 - 0.01`). The comparison is the evaluator's, made
 * exact (the semantics are DuckDB's, see core/expr/evaluate.ts):
 *  - integer / DECIMAL columns against integer / decimal constants: unscaled values at a common
 *    scale (bigint);
 *  - an integer column against a DOUBLE constant: as doubles, when the statistics are below 2^53
 *    (then the per-row conversion is exact); a DECIMAL column against a DOUBLE: unknown;
 *  - FLOAT / DOUBLE columns: against a constant a double (and, for FLOAT, a float) holds exactly,
 *    with DuckDB's order (NaN above every number — Parquet statistics report max as NaN);
 *  - strings: UTF-8 byte order (DuckDB's), the statistics re-encoded;
 *  - DATE / TIMESTAMP columns against DATE / TIMESTAMP constants (or strings the evaluator reads
 *    as such): both at the finer unit, a date at midnight, ±infinity dates as ±infinite
 *    timestamps — exactly DuckDB's DATE-to-TIMESTAMP comparison; time-zoned columns: unknown.
 */
import { type DataType, type Date_, DateUnit, type Decimal, type Dictionary, type Float, Precision, TimeUnit, type Timestamp, Type } from 'apache-arrow';
import { ExpressionError } from '../../core/errors.ts';
import { exactLiteral, literalPrefix, parseLikePattern } from '../../core/expr/like-match.ts';
import { parseTemporal } from '../../core/expr/temporal-literals.ts';
import { compareBytes, compareFloats } from '../../core/keys/byte-order.ts';
import type { ColumnStats, ContainerStats, StatValue } from '../../core/scan/scan.ts';
import type { SqlExpr } from './ast.ts';
import { foldTemporal } from './temporal-fold.ts';

type ColumnRef = Extract<SqlExpr, { kind: 'column' }>;

/** What the container test needs of the scan: its column for a SQL column reference, and types. */
export interface PruneContext {
  readonly column: (e: ColumnRef) => string | null;
  readonly types: ReadonlyMap<string, DataType>;
}

/** A constant's exact value. */
export type Const =
  | { readonly k: 'null' }
  | { readonly k: 'exact'; readonly v: bigint; readonly scale: number }
  | { readonly k: 'double'; readonly v: number }
  | { readonly k: 'string'; readonly v: string }
  /** A DATE (days) or TIMESTAMP (`perSecond` units a second); `perSecond` 0 marks a DATE. */
  | { readonly k: 'time'; readonly v: bigint; readonly perSecond: bigint };

type Op = '=' | '<>' | '<' | '<=' | '>' | '>=';
const FLIP: Record<Op, Op> = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** Whether some row of the container may make `e` TRUE. */
export function mayHold(e: SqlExpr, stats: ContainerStats, ctx: PruneContext): boolean {
  switch (e.kind) {
    case 'and':
      return e.args.every((a) => mayHold(a, stats, ctx));
    case 'or':
      return e.args.some((a) => mayHold(a, stats, ctx));
    case 'is-null': {
      const s = e.arg.kind === 'column' ? statsOf(e.arg, stats, ctx) : undefined;
      if (s === undefined || s.nullCount === null) return true;
      return e.negated ? s.nullCount < stats.numRows : s.nullCount > 0;
    }
    case 'in-list':
      if (e.negated || e.arg.kind !== 'column') return true;
      return e.list.some((v) => compareMayHold('=', e.arg as ColumnRef, v, stats, ctx));
    case 'compare': {
      if (!(e.op in FLIP)) return true;
      const op = e.op as Op;
      if (e.left.kind === 'column' && !hasColumn(e.right)) return compareMayHold(op, e.left, e.right, stats, ctx);
      if (e.right.kind === 'column' && !hasColumn(e.left)) return compareMayHold(FLIP[op], e.right, e.left, stats, ctx);
      return true;
    }
    case 'call':
      return likeMayHold(e, stats, ctx);
    default:
      return true;
  }
}

function hasColumn(e: SqlExpr): boolean {
  switch (e.kind) {
    case 'column':
    case 'star':
      return true;
    case 'constant':
      return false;
    case 'cast':
      return hasColumn(e.arg);
    case 'arith':
    case 'call':
      return e.args.some(hasColumn);
    default:
      return true; // anything else is not a constant here
  }
}

function statsOf(col: ColumnRef, stats: ContainerStats, ctx: PruneContext): ColumnStats | undefined {
  const name = ctx.column(col);
  return name === null ? undefined : stats.column(name);
}

function typeOf(col: ColumnRef, ctx: PruneContext): DataType | undefined {
  const name = ctx.column(col);
  const t = name === null ? undefined : ctx.types.get(name);
  return t !== undefined && t.typeId === Type.Dictionary ? (t as Dictionary).dictionary : t;
}

function compareMayHold(op: Op, col: ColumnRef, constant: SqlExpr, stats: ContainerStats, ctx: PruneContext): boolean {
  const k = constantOf(constant);
  if (k === null) return true;
  if (k.k === 'null') return false; // `x op NULL` is NULL, never TRUE
  const s = statsOf(col, stats, ctx);
  const type = typeOf(col, ctx);
  if (s === undefined || type === undefined) return true;
  if (s.min === null || s.max === null) return !(s.nullCount !== null && s.nullCount >= stats.numRows); // all NULL: nothing holds
  const lo = order(type, s.min, k);
  const hi = lo === null ? null : order(type, s.max, k);
  if (lo === null || hi === null) return true;
  switch (op) {
    case '=':
      return lo <= 0 && hi >= 0;
    case '<>':
      return !(lo === 0 && hi === 0);
    case '<':
      return lo < 0;
    case '<=':
      return lo <= 0;
    case '>':
      return hi > 0;
    case '>=':
      return hi >= 0;
  }
}

// ---- constants ----------------------------------------------------------------------------------

const INT_TYPES = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT']);
const TIMESTAMP_UNITS: Record<string, bigint> = { TIMESTAMP: 1_000_000n, TIMESTAMP_US: 1_000_000n, DATETIME: 1_000_000n, TIMESTAMP_MS: 1000n, TIMESTAMP_S: 1n, TIMESTAMP_NS: 1_000_000_000n };
const I64 = 2n ** 63n;

/** The exact value of a constant SQL expression, or null when it is not one this module reads. */
export function constantOf(e: SqlExpr): Const | null {
  switch (e.kind) {
    case 'constant': {
      const c = e.constant;
      switch (c.type) {
        case 'NULL':
          return { k: 'null' };
        case 'INTEGER':
          return { k: 'exact', v: c.value, scale: 0 };
        case 'DECIMAL':
          // the evaluator reads a decimal literal by its JS spelling: one with an exponent is a DOUBLE
          return /e/i.test(String(Number(c.value) / 10 ** c.scale)) ? { k: 'double', v: Number(c.value) / 10 ** c.scale } : { k: 'exact', v: c.value, scale: c.scale };
        case 'DOUBLE':
          return { k: 'double', v: c.value };
        case 'VARCHAR':
          return { k: 'string', v: c.value };
        default:
          return null;
      }
    }
    case 'cast':
      return castConst(constantOf(e.arg), e.type);
    case 'arith': {
      const folded = foldTemporal(e);
      if (folded !== null) return constantOf(folded);
      const args = e.args.map(constantOf);
      if (args.some((a) => a === null || a.k !== 'exact')) return null;
      const [a, b] = args as (Const & { k: 'exact' })[];
      if (e.args.length === 1) return e.op === '-' ? { k: 'exact', v: -a!.v, scale: a!.scale } : null;
      let r: Const & { k: 'exact' };
      if (e.op === '*') r = { k: 'exact', v: a!.v * b!.v, scale: a!.scale + b!.scale };
      else if (e.op === '+' || e.op === '-') {
        const s = Math.max(a!.scale, b!.scale);
        const x = a!.v * 10n ** BigInt(s - a!.scale);
        const y = b!.v * 10n ** BigInt(s - b!.scale);
        r = { k: 'exact', v: e.op === '+' ? x + y : x - y, scale: s };
      } else return null;
      // beyond what DuckDB's folding keeps in range: not read here
      return r.v >= -(10n ** 37n) && r.v <= 10n ** 37n ? r : null;
    }
    case 'call': {
      const folded = foldTemporal(e);
      return folded === null ? null : constantOf(folded);
    }
    default:
      return null;
  }
}

function castConst(x: Const | null, type: string): Const | null {
  if (x === null) return null;
  if (x.k === 'null') return x;
  const t = type.toUpperCase();
  if (t === 'DATE' || t in TIMESTAMP_UNITS) {
    const perSecond = t === 'DATE' ? 0n : TIMESTAMP_UNITS[t]!;
    if (x.k === 'string') {
      try {
        const unit = perSecond === 0n ? 'day' : perSecond === 1n ? 's' : perSecond === 1000n ? 'ms' : perSecond === 1_000_000n ? 'us' : 'ns';
        return { k: 'time', v: parseTemporal(x.v, unit, t, 'CAST'), perSecond };
      } catch (e) {
        if (e instanceof ExpressionError) return null;
        throw e;
      }
    }
    if (x.k === 'time' && x.perSecond === perSecond) return x;
    if (x.k === 'time' && x.perSecond === 0n && perSecond > 0n) return { k: 'time', v: x.v * 86_400n * perSecond, perSecond };
    return null;
  }
  if (INT_TYPES.has(t)) {
    if (x.k === 'exact' && x.scale === 0) return x;
    if (x.k === 'string' && /^\s*[+-]?\d{1,30}\s*$/.test(x.v)) return { k: 'exact', v: BigInt(x.v.trim()), scale: 0 };
    return null;
  }
  const dec = /^DECIMAL\((\d+),(\d+)\)$/.exec(t);
  if (dec !== null && x.k === 'exact' && x.scale <= Number(dec[2])) {
    const v = x.v * 10n ** BigInt(Number(dec[2]) - x.scale);
    return (v < 0n ? -v : v) < 10n ** BigInt(Number(dec[1])) ? { k: 'exact', v, scale: Number(dec[2]) } : null;
  }
  if ((t === 'VARCHAR' || t === 'TEXT' || t === 'STRING') && x.k === 'string') return x;
  if (t === 'DOUBLE' || t === 'FLOAT8') {
    if (x.k === 'double') return x;
    if (x.k === 'exact') {
      const d = exactDouble(x.v, x.scale);
      return d === null ? null : { k: 'double', v: d };
    }
    if (x.k === 'string') {
      const word = /^\s*([+-]?)(inf|infinity|nan)\s*$/i.exec(x.v);
      if (word !== null) return { k: 'double', v: word[2]!.toLowerCase() === 'nan' ? NaN : word[1] === '-' ? -Infinity : Infinity };
      if (/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(x.v)) return { k: 'double', v: Number(x.v) };
    }
  }
  return null;
}

// ---- the order of a statistic and a constant ---------------------------------------------------

const utf8 = new TextEncoder();

/** Sign of (stat - constant) as the row filter would compare them, or null when not exact. */
function order(type: DataType, stat: StatValue, k: Const): number | null {
  switch (type.typeId) {
    case Type.Int:
    case Type.Decimal: {
      const scale = type.typeId === Type.Decimal ? (type as Decimal).scale : 0;
      const v = typeof stat === 'bigint' ? stat : typeof stat === 'number' && Number.isInteger(stat) ? BigInt(stat) : null;
      if (v === null) return null;
      if (k.k === 'exact') return exactSign(v, scale, k.v, k.scale);
      if (k.k === 'double' && type.typeId === Type.Int && (v < 0n ? -v : v) < 2n ** 53n) return compareFloats(Number(v), k.v);
      return null;
    }
    case Type.Float: {
      if (typeof stat !== 'number') return null;
      const single = (type as Float).precision !== Precision.DOUBLE;
      const d = k.k === 'double' ? k.v : k.k === 'exact' ? exactDouble(k.v, k.scale) : null;
      if (d === null || (single && k.k === 'exact' && Math.fround(d) !== d)) return null;
      return compareFloats(stat, d);
    }
    case Type.Utf8:
    case Type.LargeUtf8:
      return typeof stat === 'string' && k.k === 'string' ? Math.sign(compareBytes(utf8.encode(stat), utf8.encode(k.v))) : null;
    case Type.Date: {
      if ((type as Date_).unit !== DateUnit.DAY || typeof stat !== 'number') return null;
      return timeSign(BigInt(stat), 0n, timeConst(k, 0n));
    }
    case Type.Timestamp: {
      const t = type as Timestamp;
      if (t.timezone || typeof stat !== 'bigint') return null;
      const perSecond = UNIT_PER_SECOND[t.unit]!;
      return timeSign(stat, perSecond, timeConst(k, perSecond));
    }
    default:
      return null;
  }
}

const UNIT_PER_SECOND: Record<number, bigint> = { [TimeUnit.SECOND]: 1n, [TimeUnit.MILLISECOND]: 1000n, [TimeUnit.MICROSECOND]: 1_000_000n, [TimeUnit.NANOSECOND]: 1_000_000_000n };

/** A temporal constant, or a string the evaluator reads in the column's unit. */
function timeConst(k: Const, columnPerSecond: bigint): (Const & { k: 'time' }) | null {
  if (k.k === 'time') return k;
  if (k.k !== 'string') return null;
  return castConst(k, columnPerSecond === 0n ? 'DATE' : columnPerSecond === 1n ? 'TIMESTAMP_S' : columnPerSecond === 1000n ? 'TIMESTAMP_MS' : columnPerSecond === 1_000_000n ? 'TIMESTAMP' : 'TIMESTAMP_NS') as (Const & { k: 'time' }) | null;
}

const DATE_INFINITY = 2147483647n;

/** A temporal value as an instant at `perSecond` units (DATE: midnight; ±infinity dates: ±infinite). */
function scaled(v: bigint, fromPerSecond: bigint, toPerSecond: bigint): bigint {
  if (fromPerSecond === 0n) {
    if (v === DATE_INFINITY || v === -DATE_INFINITY) return v > 0n ? I64 : -I64; // beyond every finite timestamp
    return v * 86_400n * toPerSecond;
  }
  return v * (toPerSecond / fromPerSecond);
}

function timeSign(stat: bigint, statPerSecond: bigint, k: (Const & { k: 'time' }) | null): number | null {
  if (k === null) return null;
  if (statPerSecond === 0n && k.perSecond === 0n) return Math.sign(Number(stat - k.v));
  const unit = statPerSecond > k.perSecond ? statPerSecond : k.perSecond;
  const a = scaled(stat, statPerSecond, unit);
  const b = scaled(k.v, k.perSecond, unit);
  return a < b ? -1 : a > b ? 1 : 0;
}

function exactSign(a: bigint, sa: number, b: bigint, sb: number): number {
  const s = Math.max(sa, sb);
  const x = a * 10n ** BigInt(s - sa);
  const y = b * 10n ** BigInt(s - sb);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** v / 10^scale as a double when a double holds it exactly, else null. */
export function exactDouble(v: bigint, scale: number): number | null {
  const d = Number(v) / 10 ** scale;
  if (!Number.isFinite(d)) return null;
  // d = m * 2^e exactly; equal to v / 10^scale iff m * 2^e * 10^scale == v
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, d);
  const bits = view.getBigUint64(0);
  const exp = Number((bits >> 52n) & 0x7ffn);
  let m = bits & ((1n << 52n) - 1n);
  if (exp !== 0) m |= 1n << 52n;
  const e = (exp === 0 ? 1 : exp) - 1075;
  const sign = d < 0 ? -1n : 1n;
  const p = 10n ** BigInt(scale);
  const lhs = e >= 0 ? sign * m * (1n << BigInt(e)) * p : sign * m * p;
  const rhs = e >= 0 ? v : v * (1n << BigInt(-e));
  return lhs === rhs ? d : null;
}

// ---- LIKE prefixes ------------------------------------------------------------------------------

/** `col LIKE 'abc%'` (and its spellings) as the byte range [abc, abd); an exact pattern as `=`. */
function likeMayHold(e: Extract<SqlExpr, { kind: 'call' }>, stats: ContainerStats, ctx: PruneContext): boolean {
  const name = e.name;
  const [x, p, esc] = e.args;
  if (x?.kind !== 'column' || p === undefined || e.distinct || e.star) return true;
  const pattern = constantOf(p);
  if (pattern === null) return true;
  if (pattern.k === 'null') return false;
  if (pattern.k !== 'string') return true;
  let prefix: Uint8Array;
  let exact: Uint8Array | null = null;
  if ((name === 'prefix' || name === 'starts_with') && e.args.length === 2) prefix = utf8.encode(pattern.v);
  else if ((name === '~~' && e.args.length === 2) || (name === 'like_escape' && e.args.length === 3)) {
    let escape = -1;
    if (esc !== undefined) {
      const c = constantOf(esc);
      if (c === null || c.k !== 'string') return c?.k === 'null' ? false : true;
      const b = utf8.encode(c.v);
      if (b.length !== 1 || b[0] === 37) return true; // '' (NUL escape in 1.5) and '%': not read here
      escape = b[0]!;
    }
    const parsed = parseLikePattern(utf8.encode(pattern.v), escape);
    if (parsed.danglingEscape) return true;
    exact = exactLiteral(parsed);
    prefix = literalPrefix(parsed);
  } else return true;
  const s = statsOf(x, stats, ctx);
  const type = typeOf(x, ctx);
  if (s === undefined || type === undefined || (type.typeId !== Type.Utf8 && type.typeId !== Type.LargeUtf8)) return true;
  if (s.min === null || s.max === null) return !(s.nullCount !== null && s.nullCount >= stats.numRows);
  if (typeof s.min !== 'string' || typeof s.max !== 'string') return true;
  const min = utf8.encode(s.min);
  const max = utf8.encode(s.max);
  if (exact !== null) return compareBytes(min, exact) <= 0 && compareBytes(max, exact) >= 0;
  if (prefix.length === 0) return true;
  const next = prefix.slice();
  next[next.length - 1]!++; // a UTF-8 byte is at most 0xF4: no carry
  return compareBytes(max, prefix) >= 0 && compareBytes(min, next) < 0;
}

