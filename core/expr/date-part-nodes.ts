/**
 * `extract(part FROM x)`, `date_part('part', x)` and the one-part functions (`year(x)`, `month(x)`,
 * …) on DATE and TIMESTAMP_S/MS/(US)/NS values: BIGINT results, as DuckDB gives them
 * (extension/core_functions/scalar/date/date_part.cpp, 1.5). Computed per batch from the day
 * number (and, for timestamps, the units into the day) with calendar.ts — no Date object, no value
 * boxed per row; a timestamp at or beyond 2^53 units (nanoseconds more than 104 days from 1970)
 * takes a BigInt split, the one slow path.
 *
 * Specifiers (DuckDB's `TryGetDatePartSpecifier`, case-insensitive, with its aliases): year,
 * month, day, decade, century, millennium, quarter, dow (Sunday 0), isodow (Monday 1), doy, week
 * (ISO), isoyear, yearweek, era, hour, minute, second, millisecond (seconds * 1000 + ms),
 * microsecond; the function `nanosecond(x)` (no specifier names it in 1.5). On a DATE the time
 * parts are 0. `epoch` and `julian` (DOUBLE results) and
 * the time-zone parts are refused (UnsupportedExpressionError), an unknown specifier is DuckDB's
 * Conversion Error at compile time. ±infinity (a DATE of ±(2^31 - 1) days, a TIMESTAMP of
 * ±(2^63 - 1)) gives NULL, as DuckDB's `IsFinite` check does. DuckDB has no date parts of its own
 * for TIMESTAMP_NS but `nanosecond`: the others read it through its cast to TIMESTAMP, which
 * divides by 1000 toward zero (so -1 ns is 1970), and so does this node; TIMESTAMP_S / MS scale
 * exactly. (Where DuckDB's implicit cast overflows — a TIMESTAMP_S beyond ±2^63 microseconds, or
 * `nanosecond()` of a TIMESTAMP_S / MS, cast to TIMESTAMP_NS, beyond ±292 years — it raises;
 * joinlab reads the value.)
 */
import { ExpressionError, UnsupportedExpressionError } from '../errors.ts';
import { CIVIL, centuryOf, civil, dayOfYear, decadeOf, ISO_YEAR, isoDayOfWeek, isoWeek, millenniumOf } from './calendar.ts';
import { numClass } from './column-types.ts';
import { exactValue, type ExactVec, TWO53 } from './exact.ts';
import { type Ctx, f64, Node, type TemporalUnit, u8, type VClass } from './node-base.ts';
import { intType } from './numeric-types.ts';

export type DatePart =
  | 'year'
  | 'month'
  | 'day'
  | 'decade'
  | 'century'
  | 'millennium'
  | 'quarter'
  | 'dow'
  | 'isodow'
  | 'doy'
  | 'week'
  | 'isoyear'
  | 'yearweek'
  | 'era'
  | 'hour'
  | 'minute'
  | 'second'
  | 'millisecond'
  | 'microsecond'
  | 'nanosecond';

const SPECIFIERS: Record<string, DatePart> = {};
function names(part: DatePart, ...aliases: string[]): void {
  for (const a of aliases) SPECIFIERS[a] = part;
}
names('year', 'year', 'yr', 'y', 'years', 'yrs');
names('month', 'month', 'mon', 'months', 'mons');
names('day', 'day', 'days', 'd', 'dayofmonth');
names('decade', 'decade', 'dec', 'decades', 'decs');
names('century', 'century', 'cent', 'centuries', 'c');
names('millennium', 'millennium', 'mil', 'millenniums', 'millennia', 'mils', 'millenium');
names('microsecond', 'microseconds', 'microsecond', 'us', 'usec', 'usecs', 'usecond', 'useconds');
names('millisecond', 'milliseconds', 'millisecond', 'ms', 'msec', 'msecs', 'msecond', 'mseconds');
names('second', 'second', 'sec', 'seconds', 'secs', 's');
names('minute', 'minute', 'min', 'minutes', 'mins', 'm');
names('hour', 'hour', 'hr', 'hours', 'hrs', 'h');
names('dow', 'dow', 'dayofweek', 'weekday');
names('isodow', 'isodow');
names('week', 'week', 'weeks', 'w', 'weekofyear');
names('doy', 'doy', 'dayofyear');
names('quarter', 'quarter', 'quarters');
names('yearweek', 'yearweek');
names('isoyear', 'isoyear');
names('era', 'era');

const REFUSED = new Set(['epoch', 'julian', 'jd', 'timezone', 'timezone_hour', 'timezone_minute']);

/** The one-part functions DuckDB has (`year(x)` is `date_part('year', x)`). */
export const DATE_PART_FUNCTIONS: Readonly<Record<string, DatePart>> = {
  year: 'year',
  month: 'month',
  day: 'day',
  dayofmonth: 'day',
  decade: 'decade',
  century: 'century',
  millennium: 'millennium',
  quarter: 'quarter',
  dayofweek: 'dow',
  weekday: 'dow',
  isodow: 'isodow',
  dayofyear: 'doy',
  week: 'week',
  weekofyear: 'week',
  isoyear: 'isoyear',
  yearweek: 'yearweek',
  era: 'era',
  hour: 'hour',
  minute: 'minute',
  second: 'second',
  millisecond: 'millisecond',
  microsecond: 'microsecond',
  nanosecond: 'nanosecond',
};

/** The part a specifier names (DuckDB's aliases, any case); throws for an unknown or a refused one. */
export function datePartOf(specifier: string, label: string): DatePart {
  const s = specifier.toLowerCase();
  const part = SPECIFIERS[s];
  if (part !== undefined) return part;
  if (REFUSED.has(s)) throw new UnsupportedExpressionError(`date_part '${specifier}' (a DOUBLE or time-zone part) is not supported, in ${label}`);
  throw new ExpressionError(`Conversion Error: extract specifier "${specifier}" not recognized, in ${label}`);
}

export const BIGINT: VClass = numClass(intType('i64'));

const UNIT_PER_SECOND: Record<TemporalUnit, number> = { day: 1, 'date-ms': 1000, s: 1, ms: 1000, us: 1_000_000, ns: 1_000_000_000 };
const DATE_INFINITY = 2147483647;
const TS_INFINITY = 2n ** 63n - 1n;

/** The part of a date given as its day number. */
function ofDays(part: DatePart, days: number): number {
  switch (part) {
    case 'year':
      civil(days);
      return CIVIL[0]!;
    case 'month':
      civil(days);
      return CIVIL[1]!;
    case 'day':
      civil(days);
      return CIVIL[2]!;
    case 'decade':
      civil(days);
      return decadeOf(CIVIL[0]!);
    case 'century':
      civil(days);
      return centuryOf(CIVIL[0]!);
    case 'millennium':
      civil(days);
      return millenniumOf(CIVIL[0]!);
    case 'quarter':
      civil(days);
      return ((CIVIL[1]! - 1) / 3 | 0) + 1;
    case 'dow':
      return isoDayOfWeek(days) % 7;
    case 'isodow':
      return isoDayOfWeek(days);
    case 'doy':
      return dayOfYear(days);
    case 'week':
      return isoWeek(days);
    case 'isoyear':
      isoWeek(days);
      return ISO_YEAR[0]!;
    case 'yearweek': {
      const w = isoWeek(days);
      const y = ISO_YEAR[0]!;
      return y * 100 + (y > 0 ? w : -w);
    }
    case 'era':
      civil(days);
      return CIVIL[0]! > 0 ? 1 : 0;
    default:
      return 0; // time parts of a date
  }
}

/** The part of a time of day given as `rest` units into the day (`perSecond` units a second). */
function ofTime(part: DatePart, rest: number, perSecond: number): number {
  const perMinute = 60 * perSecond;
  switch (part) {
    case 'hour':
      return Math.floor(rest / (3600 * perSecond));
    case 'minute':
      return Math.floor(rest / perMinute) % 60;
    case 'second':
      return Math.floor(rest / perSecond) % 60;
    case 'millisecond':
      return Math.floor(((rest % perMinute) * 1000) / perSecond);
    case 'microsecond':
      return perSecond >= 1_000_000 ? Math.floor((rest % perMinute) / (perSecond / 1_000_000)) : (rest % perMinute) * (1_000_000 / perSecond);
    default: {
      // nanosecond: DuckDB gives microseconds * 1000 below nanosecond precision
      const within = rest % perMinute;
      return perSecond === 1_000_000_000 ? within : (perSecond >= 1_000_000 ? Math.floor(within / (perSecond / 1_000_000)) : within * (1_000_000 / perSecond)) * 1000;
    }
  }
}

const TIME_PARTS = new Set<DatePart>(['hour', 'minute', 'second', 'millisecond', 'microsecond', 'nanosecond']);

/** One part of a DATE or TIMESTAMP argument, as BIGINT. */
export class DatePartNode extends Node {
  private fBuf?: Float64Array;
  private nullBuf?: Uint8Array;
  private readonly perSecond: number;
  private readonly perDay: number;
  /** TIMESTAMP_NS read as DuckDB's implicit cast to TIMESTAMP does: nanoseconds / 1000, toward zero. */
  private readonly nsToMicros: boolean;

  constructor(
    private readonly arg: Node,
    private readonly part: DatePart,
    private readonly unit: TemporalUnit,
    label: string,
  ) {
    super(BIGINT, label);
    this.nsToMicros = unit === 'ns' && part !== 'nanosecond';
    this.perSecond = UNIT_PER_SECOND[this.nsToMicros ? 'us' : unit];
    this.perDay = 86400 * this.perSecond;
  }

  override get mayRaise(): boolean {
    return this.arg.mayRaise;
  }

  override exact(ctx: Ctx): ExactVec {
    const n = ctx.n;
    const x = this.arg.exact(ctx);
    const xf = x.f;
    const f = (this.fBuf = f64(this.fBuf, n));
    const part = this.part;
    let nulls = x.nulls;
    let own: Uint8Array | null = null;
    const infinite = (k: number): void => {
      if (own === null) {
        own = this.nullBuf = u8(this.nullBuf, n);
        if (nulls !== null) own.set(nulls.subarray(0, n));
        else own.fill(0, 0, n);
        nulls = own;
      }
      own[k] = 1;
    };
    if (this.unit === 'day') {
      for (let k = 0; k < n; k++) {
        if (x.nulls !== null && x.nulls[k]) continue;
        const d = xf[k]!;
        if (d === DATE_INFINITY || d === -DATE_INFINITY) infinite(k);
        else f[k] = ofDays(part, d);
      }
      return { f, w: null, src: null, nulls };
    }
    const perDay = this.perDay;
    const timePart = TIME_PARTS.has(part);
    for (let k = 0; k < n; k++) {
      if (x.nulls !== null && x.nulls[k]) continue;
      let v = xf[k]!;
      let days: number;
      let rest: number;
      if (this.nsToMicros && v > -TWO53 && v < TWO53) v = (v - (v % 1000)) / 1000 + 0; // exact, toward zero
      if (v > -TWO53 && v < TWO53) {
        rest = v % perDay; // exact (fmod), and so is the division of what is left
        days = (v - rest) / perDay;
        if (rest < 0) {
          days -= 1;
          rest += perDay;
        }
      } else {
        let big = exactValue(x, k);
        if (big === TS_INFINITY || big === -TS_INFINITY) {
          infinite(k);
          continue;
        }
        if (this.nsToMicros) big /= 1000n;
        const pd = BigInt(perDay);
        let r = big % pd;
        let q = big / pd;
        if (r < 0n) {
          r += pd;
          q -= 1n;
        }
        days = Number(q);
        rest = Number(r);
      }
      f[k] = timePart ? ofTime(part, rest, this.perSecond) : ofDays(part, days);
    }
    return { f, w: null, src: null, nulls };
  }
}
