/**
 * Date and interval arithmetic of constants, folded at plan time: `date '1994-01-01' + interval
 * '1' year`, `DATE '1998-12-01' - interval '90' day`, `CAST('1995-03-15' AS DATE) + interval 3
 * month`, `date 'x' + 7`, `date 'x' - date 'y'`, nested as deep as written. The evaluator has no
 * INTERVAL type, so an interval must disappear here; and a static predicate prunes containers only
 * against a constant (static-filter.ts), so the fold is what lets TPC-H's date ranges prune.
 *
 * What DuckDB's parser makes of the syntax (json_serialize_sql, 1.5): `interval 'n' unit` is
 * `to_<units>(CAST(trunc(CAST(n AS DOUBLE)) AS INTEGER))` (BIGINT for hours, minutes,
 * microseconds; DOUBLE straight in for seconds, milliseconds), `interval '3 months'` is
 * `CAST('3 months' AS INTERVAL)`, `date 'x'` is `CAST('x' AS DATE)`. The values follow DuckDB
 * (src/function/scalar/operator/add.cpp, subtract.cpp, src/common/types/interval.cpp,
 * extension/core_functions/scalar/date/to_interval.cpp):
 *  - DATE + INTERVAL and DATE - INTERVAL are TIMESTAMPs (`Interval::Add` on the date at midnight:
 *    months first — the day clamped to the month's length, Jan 31 + 1 month = Feb 28 — then days,
 *    then microseconds with the day carried); TIMESTAMP ± INTERVAL likewise; INTERVAL + DATE too;
 *  - DATE ± INTEGER is a DATE, DATE - DATE a BIGINT (days), INTERVAL ± INTERVAL field by field,
 *    -INTERVAL negates each field;
 *  - interval quantities: a double truncated, then cast to INTEGER (rounding to nearest, out of
 *    range an error), times the unit (months for years, quarters, decades…; days for weeks);
 *  - interval strings: `'<n> <unit>'` sequences with DuckDB's unit names, optionally `ago`.
 * The folded result is a SQL constant the rest of the planner already reads: `CAST('1995-01-01
 * 00:00:00' AS TIMESTAMP)`, `CAST('1994-02-28' AS DATE)`, a BIGINT. So the types are DuckDB's (a
 * DATE compared with that TIMESTAMP compares as timestamps: the evaluator turns a midnight into
 * the date, compile.ts). An expression that is not such a constant is left alone (null); one
 * DuckDB itself rejects (`date + 3000000000`, a result out of range) is an ExpressionError with
 * DuckDB's words. What stays an interval after folding (`col + interval '1' day`, `SELECT interval
 * '1' day`) is refused by the caller (relation.ts): joinlab has no interval values at run time.
 */
import { ExpressionError } from '../../core/errors.ts';
import { addMonths, CIVIL, civil } from '../../core/expr/calendar.ts';
import { parseTemporal } from '../../core/expr/temporal-literals.ts';
import type { SqlConstant, SqlExpr } from './ast.ts';

interface Interval {
  readonly t: 'interval';
  readonly months: number;
  readonly days: number;
  readonly micros: bigint;
}

type Value =
  | { readonly t: 'date'; readonly days: number }
  | { readonly t: 'timestamp'; readonly micros: bigint }
  | Interval
  | { readonly t: 'int'; readonly v: bigint; readonly sqlType: string }
  | { readonly t: 'double'; readonly v: number }
  | { readonly t: 'string'; readonly v: string };

const MICROS_PER_DAY = 86_400_000_000n;
const INT32_MAX = 2147483647;
const INT64_MAX = 2n ** 63n - 1n;
const DATE_INFINITY = INT32_MAX;

const outOfRange = (what: string): never => {
  throw new ExpressionError(`Out of Range Error: ${what}`);
};

function fitsInt32(v: number | bigint): boolean {
  return v >= -INT32_MAX - 1 && v <= INT32_MAX;
}

// ---- interval functions and strings -------------------------------------------------------------

/** to_<unit>: months, days or microseconds per unit; the argument type DuckDB casts to. */
const TO_INTERVAL: Record<string, { readonly field: 'months' | 'days' | 'micros'; readonly per: bigint; readonly arg: 'int32' | 'int64' | 'double' }> = {
  to_millennia: { field: 'months', per: 12000n, arg: 'int32' },
  to_centuries: { field: 'months', per: 1200n, arg: 'int32' },
  to_decades: { field: 'months', per: 120n, arg: 'int32' },
  to_years: { field: 'months', per: 12n, arg: 'int32' },
  to_quarters: { field: 'months', per: 3n, arg: 'int32' },
  to_months: { field: 'months', per: 1n, arg: 'int32' },
  to_weeks: { field: 'days', per: 7n, arg: 'int32' },
  to_days: { field: 'days', per: 1n, arg: 'int32' },
  to_hours: { field: 'micros', per: 3_600_000_000n, arg: 'int64' },
  to_minutes: { field: 'micros', per: 60_000_000n, arg: 'int64' },
  to_seconds: { field: 'micros', per: 1_000_000n, arg: 'double' },
  to_milliseconds: { field: 'micros', per: 1000n, arg: 'double' },
  to_microseconds: { field: 'micros', per: 1n, arg: 'int64' },
};

/** Whether a call builds an interval (DuckDB's parser writes `interval 'n' unit` as one of these). */
export function isIntervalFunction(name: string): boolean {
  return name in TO_INTERVAL;
}

function interval(months: number, days: number, micros: bigint): Interval {
  if (!fitsInt32(months) || !fitsInt32(days) || micros > INT64_MAX || micros < -INT64_MAX - 1n) outOfRange('Interval value out of range');
  return { t: 'interval', months, days, micros };
}

function toInterval(name: string, x: Value): Value | null {
  const f = TO_INTERVAL[name]!;
  let n: bigint;
  if (f.arg === 'double') {
    const d = x.t === 'double' ? x.v : x.t === 'int' ? Number(x.v) : null;
    if (d === null) return null;
    const micros = nearbyint(d * Number(f.per));
    if (!Number.isFinite(micros) || Math.abs(micros) >= 2 ** 63) return outOfRange(`Interval value ${d} out of range`);
    return interval(0, 0, BigInt(micros));
  }
  if (x.t !== 'int') return null;
  n = x.v;
  if (f.arg === 'int32' && !fitsInt32(n)) return outOfRange(`${n} does not fit INTEGER`);
  n *= f.per;
  return f.field === 'months' ? interval(Number(n), 0, 0n) : f.field === 'days' ? interval(0, Number(n), 0n) : interval(0, 0, n);
}

const UNIT_OF: Record<string, keyof typeof TO_INTERVAL> = {};
for (const [fn, names] of [
  ['to_millennia', 'millennium millenniums millennia mil mils millenium'],
  ['to_centuries', 'century centuries cent c'],
  ['to_decades', 'decade decades dec decs'],
  ['to_years', 'year years yr yrs y'],
  ['to_quarters', 'quarter quarters'],
  ['to_months', 'month months mon mons'],
  ['to_weeks', 'week weeks w'],
  ['to_days', 'day days d'],
  ['to_hours', 'hour hours hr hrs h'],
  ['to_minutes', 'minute minutes min mins m'],
  ['to_seconds', 'second seconds sec secs s'],
  ['to_milliseconds', 'millisecond milliseconds ms msec msecs msecond mseconds'],
  ['to_microseconds', 'microsecond microseconds us usec usecs usecond useconds'],
] as const) {
  for (const n of names.split(' ')) UNIT_OF[n] = fn;
}

/** `'1 year 2 months'`, `'-3 days'`, `'2 weeks ago'`: integer quantities with unit names; null for anything else. */
function parseInterval(text: string): Value | null {
  const words = text.trim().toLowerCase().split(/\s+/);
  let ago = false;
  if (words.at(-1) === 'ago') {
    ago = true;
    words.pop();
  }
  if (words.length === 0 || words.length % 2 !== 0) return null;
  let acc = interval(0, 0, 0n);
  for (let i = 0; i < words.length; i += 2) {
    if (!/^[+-]?\d{1,18}$/.test(words[i]!)) return null;
    const fn = UNIT_OF[words[i + 1]!];
    if (fn === undefined) return null;
    const part = toInterval(fn, { t: 'int', v: BigInt(words[i]!), sqlType: 'BIGINT' });
    if (part === null || part.t !== 'interval') return null;
    acc = addIntervals(acc, part, 1);
  }
  return ago ? negateInterval(acc) : acc;
}

function addIntervals(a: Interval, b: Interval, sign: 1 | -1): Interval {
  return interval(a.months + sign * b.months, a.days + sign * b.days, a.micros + BigInt(sign) * b.micros);
}

function negateInterval(a: Interval): Interval {
  return interval(-a.months, -a.days, -a.micros);
}

// ---- date and timestamp arithmetic -------------------------------------------------------------

/** DuckDB's `Interval::Add(date_t, interval)` (the date part), then the time part with the day carried. */
function addToTimestamp(micros: bigint, iv: Interval): Value {
  let days = Number(floorDiv(micros, MICROS_PER_DAY));
  let time = micros - BigInt(days) * MICROS_PER_DAY;
  days = addMonths(days, iv.months);
  days += iv.days;
  const wholeDays = iv.micros / MICROS_PER_DAY; // toward zero, as C++
  days += Number(wholeDays);
  if (!fitsInt32(days) || Math.abs(days) >= DATE_INFINITY) outOfRange('Date out of range');
  time += iv.micros - wholeDays * MICROS_PER_DAY;
  if (time >= MICROS_PER_DAY) {
    time -= MICROS_PER_DAY;
    days++;
  } else if (time < 0n) {
    time += MICROS_PER_DAY;
    days--;
  }
  const result = BigInt(days) * MICROS_PER_DAY + time;
  if (result >= INT64_MAX || result <= -INT64_MAX) outOfRange('Timestamp out of range');
  return { t: 'timestamp', micros: result };
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function addDays(days: number, n: bigint): Value {
  if (!fitsInt32(n)) throw new ExpressionError(`Binder Error: No function matches '+(DATE, ${n})': the day count must be an INTEGER`);
  const r = days + Number(n);
  if (!fitsInt32(r) || Math.abs(r) >= DATE_INFINITY) outOfRange('Date out of range');
  return { t: 'date', days: r };
}

function arith(op: string, a: Value, b: Value): Value | null {
  const plus = op === '+';
  if (op !== '+' && op !== '-') {
    if (op === '*' && a.t === 'int' && b.t === 'int') return { t: 'int', v: a.v * b.v, sqlType: 'BIGINT' };
    return null;
  }
  // DATE ± INTERVAL, TIMESTAMP ± INTERVAL, INTERVAL + DATE/TIMESTAMP
  if (b.t === 'interval' && (a.t === 'date' || a.t === 'timestamp')) {
    if (a.t === 'date' && Math.abs(a.days) === DATE_INFINITY) return null; // ±infinity: no text form to fold into
    const iv = plus ? b : negateInterval(b);
    return addToTimestamp(a.t === 'date' ? BigInt(a.days) * MICROS_PER_DAY : a.micros, iv);
  }
  if (plus && a.t === 'interval' && (b.t === 'date' || b.t === 'timestamp')) return arith('+', b, a);
  if (a.t === 'interval' && b.t === 'interval') return addIntervals(a, b, plus ? 1 : -1);
  // DATE ± INTEGER, INTEGER + DATE, DATE - DATE
  if (a.t === 'date' && b.t === 'int') return addDays(a.days, plus ? b.v : -b.v);
  if (plus && a.t === 'int' && b.t === 'date') return addDays(b.days, a.v);
  if (!plus && a.t === 'date' && b.t === 'date') return { t: 'int', v: BigInt(a.days - b.days), sqlType: 'BIGINT' };
  if (a.t === 'int' && b.t === 'int') return { t: 'int', v: plus ? a.v + b.v : a.v - b.v, sqlType: 'BIGINT' };
  return null;
}

// ---- casts --------------------------------------------------------------------------------------

/** `std::nearbyint`: to nearest, ties to even. */
function nearbyint(d: number): number {
  const r = Math.round(d);
  return Math.abs(d - Math.trunc(d)) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

function castValue(x: Value, type: string): Value | null {
  switch (type) {
    case 'DATE':
      if (x.t === 'date') return x;
      if (x.t === 'string') return tryTemporal(() => ({ t: 'date', days: Number(parseTemporal(x.v, 'day', 'DATE', 'CAST')) }));
      if (x.t === 'timestamp') return { t: 'date', days: Number(floorDiv(x.micros, MICROS_PER_DAY)) };
      return null;
    case 'TIMESTAMP':
      if (x.t === 'timestamp') return x;
      if (x.t === 'string') return tryTemporal(() => ({ t: 'timestamp', micros: parseTemporal(x.v, 'us', 'TIMESTAMP', 'CAST') }));
      if (x.t === 'date') return Math.abs(x.days) === DATE_INFINITY ? null : { t: 'timestamp', micros: BigInt(x.days) * MICROS_PER_DAY };
      return null;
    case 'INTERVAL':
      if (x.t === 'interval') return x;
      return x.t === 'string' ? parseInterval(x.v) : null;
    case 'DOUBLE':
      if (x.t === 'double') return x;
      if (x.t === 'int') return { t: 'double', v: Number(x.v) };
      if (x.t === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(x.v)) return { t: 'double', v: Number(x.v) };
      return null;
    case 'INTEGER':
    case 'BIGINT': {
      let v: bigint;
      if (x.t === 'int') v = x.v;
      else if (x.t === 'double') {
        const r = nearbyint(x.v);
        if (!Number.isFinite(r) || Math.abs(r) >= 2 ** 63) return outOfRange(`Could not convert ${x.v} to ${type}`);
        v = BigInt(r);
      } else if (x.t === 'string' && /^\s*[+-]?\d+\s*$/.test(x.v)) v = BigInt(x.v.trim());
      else return null;
      if (type === 'INTEGER' && !fitsInt32(v)) return outOfRange(`Could not convert ${v} to INT32`);
      return { t: 'int', v, sqlType: type };
    }
    default:
      return null;
  }
}

function tryTemporal(f: () => Value): Value | null {
  try {
    return f();
  } catch (e) {
    if (e instanceof ExpressionError) return null; // not a date DuckDB would take either way: left to the evaluator
    throw e;
  }
}

// ---- the folder ---------------------------------------------------------------------------------

function constantValue(c: SqlConstant): Value | null {
  switch (c.type) {
    case 'INTEGER':
      return { t: 'int', v: c.value, sqlType: c.sqlType };
    case 'DOUBLE':
      return { t: 'double', v: c.value };
    case 'DECIMAL':
      return { t: 'double', v: Number(c.value) / 10 ** c.scale };
    case 'VARCHAR':
      return { t: 'string', v: c.value };
    default:
      return null;
  }
}

/** The value of a constant expression of the forms above, or null. */
function evaluate(e: SqlExpr): Value | null {
  switch (e.kind) {
    case 'constant':
      return constantValue(e.constant);
    case 'cast': {
      const x = evaluate(e.arg);
      return x === null ? null : castValue(x, e.type);
    }
    case 'arith': {
      if (e.args.length === 1) {
        const x = evaluate(e.args[0]!);
        if (x === null) return null;
        if (x.t === 'interval') return negateInterval(x);
        if (x.t === 'int') return { ...x, v: -x.v };
        if (x.t === 'double') return { t: 'double', v: -x.v };
        return null;
      }
      const a = evaluate(e.args[0]!);
      const b = a === null ? null : evaluate(e.args[1]!);
      return a === null || b === null ? null : arith(e.op, a, b);
    }
    case 'call': {
      if (e.distinct || e.star) return null;
      const name = e.name.toLowerCase();
      if (name === 'trunc' && e.args.length === 1) {
        const x = evaluate(e.args[0]!);
        return x !== null && x.t === 'double' ? { t: 'double', v: Math.trunc(x.v) } : x !== null && x.t === 'int' ? x : null;
      }
      if (isIntervalFunction(name) && e.args.length === 1) {
        const x = evaluate(e.args[0]!);
        return x === null ? null : toInterval(name, x);
      }
      return null;
    }
    default:
      return null;
  }
}

function pad(v: number, w: number): string {
  const s = String(Math.abs(v)).padStart(w, '0');
  return v < 0 ? `-${s}` : s;
}

function dateText(days: number): string {
  civil(days);
  return `${pad(CIVIL[0]!, 4)}-${pad(CIVIL[1]!, 2)}-${pad(CIVIL[2]!, 2)}`;
}

function timestampText(micros: bigint): string {
  const days = floorDiv(micros, MICROS_PER_DAY);
  let rest = micros - days * MICROS_PER_DAY;
  const us = rest % 1_000_000n;
  rest /= 1_000_000n;
  const s = Number(rest % 60n);
  const m = Number((rest / 60n) % 60n);
  const h = Number(rest / 3600n);
  return `${dateText(Number(days))} ${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}.${String(us).padStart(6, '0')}`;
}

function typed(text: string, type: string, at: number | null): SqlExpr {
  return { kind: 'cast', arg: { kind: 'constant', constant: { type: 'VARCHAR', value: text }, at }, type, at };
}

/**
 * `e` folded, when it is date / interval arithmetic of constants (an `arith` node or an interval
 * function): `CAST('…' AS DATE)`, `CAST('…' AS TIMESTAMP)` or a BIGINT constant. null when `e` is
 * not such an expression — or its value is an interval, which the caller refuses.
 */
export function foldTemporal(e: SqlExpr): SqlExpr | null {
  if (e.kind !== 'arith' && !(e.kind === 'call' && isIntervalFunction(e.name.toLowerCase()))) return null;
  if (!involvesTemporal(e)) return null;
  const v = evaluate(e);
  if (v === null) return null;
  switch (v.t) {
    case 'date':
      return typed(dateText(v.days), 'DATE', e.at);
    case 'timestamp':
      return typed(timestampText(v.micros), 'TIMESTAMP', e.at);
    case 'int':
      return { kind: 'cast', arg: { kind: 'constant', constant: { type: 'INTEGER', value: v.v, sqlType: 'BIGINT' }, at: e.at }, type: 'BIGINT', at: e.at };
    default:
      return null;
  }
}

/** Whether `e` holds a date, timestamp or interval (so plain number arithmetic keeps its typing). */
function involvesTemporal(e: SqlExpr): boolean {
  if (e.kind === 'cast') return e.type === 'DATE' || e.type === 'TIMESTAMP' || e.type === 'INTERVAL' || involvesTemporal(e.arg);
  if (e.kind === 'call') return isIntervalFunction(e.name.toLowerCase()) || e.args.some(involvesTemporal);
  if (e.kind === 'arith') return e.args.some(involvesTemporal);
  return false;
}
