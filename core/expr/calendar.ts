/**
 * Calendar arithmetic on day numbers (days since 1970-01-01, proleptic Gregorian, astronomical
 * years: 1 BC is year 0), without a Date object or an array per call: what `extract` / `date_part`
 * and the plan-time folding of `date ± interval` need. Each formula is DuckDB's (src/common/types/
 * date.cpp, interval.cpp, extension/core_functions/scalar/date/date_part.cpp, 1.5):
 *
 * - civil date from days: H. Hinnant's `civil_from_days` (the same proleptic calendar as DuckDB's
 *   `Date::Convert`), integer arithmetic only;
 * - ISO day of week (Monday 1 … Sunday 7), day of week (Sunday 0), day of year, ISO week and ISO
 *   year (`GetISOYearWeek`: week one starts on the Monday on or before January 4th);
 * - decade `y / 10`, century and millennium (`(y - 1) / 100 + 1` for y > 0, else `y / 100 - 1`),
 *   era, quarter, yearweek `isoyear * 100 ± week` — C++ division truncates toward zero;
 * - adding months (`Interval::Add(date_t, interval_t)`): the month moves, the year carries, and
 *   the day is clamped to the new month's length (Jan 31 + 1 month = Feb 28/29).
 * - a date's text as DuckDB prints it (`YYYY-MM-DD`, ` (BC)` before year 1): one function for
 *   the messages of casts.ts and the text writer of adapters/io (text.ts).
 */

/** [year, month, day] of the last `civil` call (module scratch: calls are synchronous). */
export const CIVIL = new Int32Array(3);

/** Days since the epoch -> CIVIL[0] year, CIVIL[1] month (1-12), CIVIL[2] day (1-31). */
export function civil(days: number): void {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  CIVIL[0] = yoe + era * 400 + (m <= 2 ? 1 : 0);
  CIVIL[1] = m;
  CIVIL[2] = d;
}

/**
 * Days since the epoch -> a new [year, month, day]: `civil` for callers off the hot path (a date's
 * text, an error message), which are simpler with a value than with the scratch.
 */
export function civilFromDays(days: number): [number, number, number] {
  civil(days);
  return [CIVIL[0]!, CIVIL[1]!, CIVIL[2]!];
}

/**
 * Days since the epoch -> DuckDB's text of a date, `YYYY-MM-DD`, and `YYYY-MM-DD (BC)` for years
 * before 1 (no year 0: astronomical year 0 is 1 BC). The infinities are the caller's to name.
 */
export function civilDateText(days: number): string {
  const [y, m, d] = civilFromDays(days);
  return y > 0 ? `${pad4(y)}-${pad2(m)}-${pad2(d)}` : `${pad4(1 - y)}-${pad2(m)}-${pad2(d)} (BC)`;
}

function pad4(v: number): string {
  return String(v).padStart(4, '0');
}

function pad2(v: number): string {
  return String(v).padStart(2, '0');
}

/** Days since the epoch of year-month-day (H. Hinnant's `days_from_civil`). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function isLeapYear(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function monthDays(y: number, m: number): number {
  return m === 2 && isLeapYear(y) ? 29 : MONTH_DAYS[m - 1]!;
}

/** Monday 1 … Sunday 7. */
export function isoDayOfWeek(days: number): number {
  const r = (days + 3) % 7; // 1970-01-01 was a Thursday
  return (r < 0 ? r + 7 : r) + 1;
}

/** Day of the year, 1 … 366. */
export function dayOfYear(days: number): number {
  civil(days);
  return days - daysFromCivil(CIVIL[0]!, 1, 1) + 1;
}

function isoWeekOne(year: number): number {
  const first = daysFromCivil(year, 1, 1);
  const weekday = isoDayOfWeek(first) - 1;
  return first - weekday + (weekday > 3 ? 7 : 0);
}

/** The ISO year of the last `isoWeek` call. */
export const ISO_YEAR = new Int32Array(1);

/** ISO week (1 … 53) of `days`; its ISO year is left in ISO_YEAR[0]. */
export function isoWeek(days: number): number {
  civil(days);
  let year = CIVIL[0]!;
  let monday = isoWeekOne(year);
  let week = Math.floor((days - monday) / 7);
  if (week < 0) {
    monday = isoWeekOne(--year);
    week = Math.floor((days - monday) / 7);
  } else if (week >= 52 && days >= isoWeekOne(year + 1)) {
    year++;
    week = 0;
  }
  ISO_YEAR[0] = year;
  return week + 1;
}

/** C++'s `a / b` on integers (toward zero). */
function cdiv(a: number, b: number): number {
  return Math.trunc(a / b);
}

export function decadeOf(y: number): number {
  return cdiv(y, 10) + 0;
}
export function centuryOf(y: number): number {
  return y > 0 ? cdiv(y - 1, 100) + 1 : cdiv(y, 100) - 1;
}
export function millenniumOf(y: number): number {
  return y > 0 ? cdiv(y - 1, 1000) + 1 : cdiv(y, 1000) - 1;
}

/** `days` + `months` months, the day clamped to the month's length (DuckDB's `Interval::Add` on a date). */
export function addMonths(days: number, months: number): number {
  if (months === 0) return days;
  civil(days);
  let year = CIVIL[0]!;
  let month = CIVIL[1]!;
  const yearDiff = cdiv(months, 12);
  year += yearDiff;
  month += months - yearDiff * 12;
  if (month > 12) {
    year++;
    month -= 12;
  } else if (month <= 0) {
    year--;
    month += 12;
  }
  return daysFromCivil(year, month, Math.min(CIVIL[2]!, monthDays(year, month)));
}
