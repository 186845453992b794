/**
 * extract / date_part / year() … against DuckDB: every part, on DATE values spread over ±3000
 * years (BC dates, leap days, ISO weeks 52/53 and the week-one edge around New Year, ±infinity,
 * NULLs) and on TIMESTAMP_S/MS/(US)/NS values (negative times of day before 1970, nanoseconds
 * beyond 2^53), compared row by row with `SELECT date_part('part', x)`; each one-part function
 * (`year(x)`, `dayofweek(x)`, …) against DuckDB's function of that name; and the typing and errors
 * (BIGINT, a NULL part, an unknown specifier, a refused one).
 */
import { DateDay, Int32, makeData, makeVector, type RecordBatch, Table, type Timestamp, TimestampMicrosecond, TimestampMillisecond, TimestampNanosecond, TimestampSecond, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { ExpressionError, UnsupportedExpressionError } from '../errors.ts';
import { Rng } from '../random.ts';
import { call, col, type Expr, lit } from './ast.ts';
import { daysFromCivil } from './calendar.ts';
import { DATE_PART_FUNCTIONS } from './date-part-nodes.ts';
import { compileProjection } from './project.ts';
import { exprToSql } from './sql.ts';

const PARTS = ['year', 'month', 'day', 'decade', 'century', 'millennium', 'quarter', 'dow', 'isodow', 'doy', 'week', 'isoyear', 'yearweek', 'era', 'hour', 'minute', 'second', 'millisecond', 'microsecond'];

let duck: DuckDBSession;
beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(async () => {
  await duck.close();
});

function dates(rng: Rng): (number | null)[] {
  const out: (number | null)[] = [null, 0, -1, 2147483647, -2147483647];
  for (const y of [-1, 0, 1, 4, 100, 400, 1900, 1969, 1970, 2000, 2004, 2020, 2021, 2024, 9999]) {
    for (const [m, d] of [[1, 1], [1, 4], [1, 5], [2, 28], [2, 29], [3, 1], [12, 28], [12, 29], [12, 30], [12, 31]] as const) out.push(daysFromCivil(y, m, d));
  }
  while (out.length < 400) out.push(rng.chance(0.05) ? null : rng.int(-1_800_000, 1_800_000));
  return out;
}

/** A validity bitmap (1 = valid). */
function validity(values: readonly unknown[]): Uint8Array {
  const bm = new Uint8Array((values.length + 7) >> 3);
  values.forEach((v, i) => {
    if (v !== null) bm[i >> 3]! |= 1 << (i & 7);
  });
  return bm;
}

/** A DATE column from day numbers (Arrow's builders take milliseconds). */
function dateVector(days: (number | null)[]) {
  const data = Int32Array.from(days, (d) => d ?? 0);
  return makeVector(makeData({ type: new DateDay(), length: days.length, nullCount: days.filter((d) => d === null).length, nullBitmap: validity(days), data }));
}

function timestampVector(type: Timestamp, values: (bigint | null)[]) {
  const data = BigInt64Array.from(values, (v) => v ?? 0n);
  return makeVector(makeData({ type, length: values.length, nullCount: values.filter((v) => v === null).length, nullBitmap: validity(values), data: data as never }));
}

function timestamps(rng: Rng, perSecond: bigint, wide: boolean): (bigint | null)[] {
  const out: (bigint | null)[] = [null, 0n, -1n, -1001n, perSecond * 86_400n - 1n, -perSecond * 86_400n];
  // within DuckDB's TIMESTAMP (microseconds below 2^63) once scaled
  const span = wide ? 2n ** 62n : perSecond === 1n ? 2n ** 42n : 2n ** 52n;
  while (out.length < 300) {
    const r = BigInt(Math.floor(rng.next() * 2 ** 30)) * BigInt(Math.floor(rng.next() * 2 ** 30)) * (rng.chance(0.5) ? 1n : -1n);
    out.push(rng.chance(0.05) ? null : r % span);
  }
  return out;
}

async function load(name: string, column: ReturnType<typeof makeVector>, n: number): Promise<RecordBatch> {
  const t = new Table({ rid: vectorFromArray(Array.from({ length: n }, (_, i) => i), new Int32()), x: column });
  await duck.loadTable(name, t);
  return t.batches[0]!;
}

function joinlabValues(e: Expr, batch: RecordBatch): unknown[] {
  return [...makeVector(compileProjection(e, batch.schema).evaluate(batch))].map((v) => (v === undefined ? null : v));
}

async function same(es: readonly Expr[], batch: RecordBatch, table: string): Promise<void> {
  const rows = await duck.queryRows(`SELECT ${es.map((e) => exprToSql(e, 'l')).join(', ')} FROM ${table} AS l ORDER BY l.rid`);
  es.forEach((e, i) => {
    const want = rows.map((r) => r[i] ?? null);
    expect(joinlabValues(e, batch), exprToSql(e, 'l')).toEqual(want);
  });
}

const x = col('left', 'x');

describe('date parts against DuckDB', () => {
  it('every part of DATE values (BC, leap days, ISO weeks, infinity, NULL)', async () => {
    const days = dates(new Rng(1));
    const batch = await load('dates', dateVector(days), days.length);
    await same(PARTS.map((p) => call('date_part', lit(p), x)), batch, 'dates');
  });

  const units: [string, Timestamp, bigint, boolean][] = [
    ['s', new TimestampSecond(), 1n, false],
    ['ms', new TimestampMillisecond(), 1000n, false],
    ['us', new TimestampMicrosecond(), 1_000_000n, false],
    ['ns', new TimestampNanosecond(), 1_000_000_000n, true],
  ];
  for (const [unit, type, perSecond, wide] of units) {
    it(`every part of TIMESTAMP values in ${unit}`, async () => {
      const values = timestamps(new Rng(unit.length * 7 + Number(perSecond % 97n)), perSecond, wide);
      const batch = await load(`ts_${unit}`, timestampVector(type, values), values.length);
      // nanosecond() of TIMESTAMP_S / MS goes through DuckDB's cast to TIMESTAMP_NS, which overflows
      // beyond ±292 years: compared on (US) and NS only
      const extra = perSecond >= 1_000_000n ? [call('nanosecond', x)] : [];
      await same([...PARTS.map((p) => call('date_part', lit(p), x)), ...extra, call('year', x)], batch, `ts_${unit}`);
    });
  }

  it('the one-part functions, and date_part specifiers in other spellings', async () => {
    const days = dates(new Rng(2)).slice(0, 120);
    const batch = await load('dates2', dateVector(days), days.length);
    await same([...Object.keys(DATE_PART_FUNCTIONS).map((f) => call(f, x)), ...['YEAR', 'yrs', 'mon', 'dayofmonth', 'weekday', 'w', 'c'].map((p) => call('date_part', lit(p), x))], batch, 'dates2');
  });

  it('types, NULL parts and errors', () => {
    const batch = new Table({ x: dateVector([0]) }).batches[0]!;
    expect(String(compileProjection(call('year', x), batch.schema).type)).toBe('Int64');
    expect(joinlabValues(call('date_part', lit(null), x), batch)).toEqual([null]);
    expect(() => compileProjection(call('date_part', lit('fortnight'), x), batch.schema)).toThrow(ExpressionError);
    expect(() => compileProjection(call('date_part', lit('epoch'), x), batch.schema)).toThrow(UnsupportedExpressionError);
    expect(() => compileProjection(call('year', lit(1)), batch.schema)).toThrow(/DATE or TIMESTAMP/);
  });
});
