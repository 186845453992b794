/**
 * Date and timestamp literals: a string compared with a DATE or TIMESTAMP column is converted
 * once, at compile time, to the column's integer unit ('2024-01-31', '2024-01-31 12:00:00.123',
 * UTC; a trailing Z, UTC or +00 is accepted). A date that does not exist, a time of day on a DATE
 * or more fractional digits than the unit holds is an ExpressionError, as in DuckDB.
 */
import { ExpressionError } from '../errors.ts';
import type { TemporalUnit } from './node-base.ts';

const TEMPORAL_RE =
  /^\s*(-?\d{1,6})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(?:Z|UTC|[+-]00(?::?00)?)?\s*$/i;
const UNIT_DIGITS: Record<TemporalUnit, number> = { day: 0, 'date-ms': 3, s: 0, ms: 3, us: 6, ns: 9 };

/** '2024-01-31[ 12:34[:56[.789]]]' (UTC) as an integer count of `unit` since the epoch. */
export function parseTemporal(text: string, unit: TemporalUnit, sql: string, where: string): bigint {
  const bad = (why: string): never => {
    throw new ExpressionError(`cannot compare ${sql} with '${text}': ${why} in ${where}`);
  };
  const m = TEMPORAL_RE.exec(text);
  if (m === null) return bad("expected a date like '2024-01-31' or a timestamp like '2024-01-31 12:00:00'");
  const [y, mo, d, h = '0', mi = '0', s = '0', frac = ''] = m.slice(1) as string[];
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  if (date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d)) bad('no such date');
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) bad('no such time of day');
  const days = BigInt(Math.round(date.getTime() / 86_400_000));
  if (unit === 'day') {
    if (m[4] !== undefined && (Number(h) | Number(mi) | Number(s)) !== 0) bad('a DATE has no time of day');
    if (frac !== '' && /[1-9]/.test(frac)) bad('a DATE has no time of day');
    return days;
  }
  const digits = UNIT_DIGITS[unit];
  if (frac.replace(/0+$/, '').length > digits) bad(`more fractional digits than ${sql} holds`);
  const seconds = days * 86_400n + BigInt(Number(h) * 3600 + Number(mi) * 60 + Number(s));
  const scale = 10n ** BigInt(digits);
  const fraction = BigInt((frac + '000000000').slice(0, digits) || '0');
  return seconds * scale + fraction;
}
