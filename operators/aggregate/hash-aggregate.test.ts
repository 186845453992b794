/**
 * The hash aggregate against DuckDB 1.5.6: the same Arrow tables loaded into DuckDB, the same
 * GROUP BY run there, results compared as multisets (adapters/duckdb/compare.ts) — every group
 * type, every aggregate over every value type it accepts, NULLs, duplicates, skew, empty inputs
 * and batches, batch sizes 1/3/odd, more groups than the table's first capacity, int64 sums past
 * 2^63 and 2^64, DISTINCT aggregates, SELECT DISTINCT. Double sums are compared exactly (DuckDB
 * runs on one thread, summing in input order as joinlab does), and so are the avg doubles,
 * including the cases where DuckDB's x87 long-double division rounds differently from a plain
 * double division. Output Arrow types are checked exactly, not only by value family.
 */
import { Binary, Bool, DateDay, DateMillisecond, Decimal, Dictionary, Field, Float32, Float64, Int16, Int32, Int64, Int8, LargeUtf8, List, makeData, makeVector, RecordBatch, Schema, Table, Timestamp, TimeUnit, Type, Uint16, Uint32, Uint64, Uint8, Utf8, vectorFromArray } from 'apache-arrow';
import type { DataType, Vector } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import type { AggregateCall, AggregateSpec } from '../../core/aggregate.ts';
import { ExpressionError, MemoryLimitError, MissingColumnError, UnsupportedTypeError, UsageError } from '../../core/errors.ts';
import { quoteIdent } from '../../core/expr/sql.ts';
import { wordsOf } from '../../core/expr/exact.ts';
import { MemoryPool } from '../../core/memory/pool.ts';
import { Rng } from '../../core/random.ts';
import { LOGICAL_TYPES, randomColumn, rebatch, type LogicalType } from '../../adapters/datagen/random-tables.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { decimalAvgScale, exactAvg } from './avg-finalize.ts';
import { hashAggregate } from './hash-aggregate.ts';

// ---- data --------------------------------------------------------------------------------------------

const TWO63 = 2n ** 63n;

function bitmap(valid: boolean[]): { nullBitmap: Uint8Array | undefined; nullCount: number } {
  const bm = new Uint8Array((valid.length + 7) >> 3);
  let nulls = 0;
  valid.forEach((v, i) => (v ? (bm[i >> 3]! |= 1 << (i & 7)) : nulls++));
  return nulls === 0 ? { nullBitmap: undefined, nullCount: 0 } : { nullBitmap: bm, nullCount: nulls };
}

type ValueType =
  | 'i8' | 'i16' | 'i32' | 'i64' | 'u8' | 'u16' | 'u32' | 'u64' | 'f32' | 'f64'
  | 'dec4' | 'dec9' | 'dec18' | 'dec38' | 'dec32' | 'dec64' | 'bool'
  | 'utf8' | 'large-utf8' | 'dict-utf8' | 'binary' | 'date' | 'date64' | 'ts-ms' | 'ts-ns-tz' | 'dict-i64' | 'dict-f64';

const VALUE_TYPES: readonly ValueType[] = [
  'i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64', 'f32', 'f64', 'dec4', 'dec9', 'dec18', 'dec38', 'dec32', 'dec64', 'bool',
  'utf8', 'large-utf8', 'dict-utf8', 'binary', 'date', 'date64', 'ts-ms', 'ts-ns-tz', 'dict-i64', 'dict-f64',
];

/** A random bigint in [lo, hi] (test data only). */
function bigIn(rng: Rng, lo: bigint, hi: bigint): bigint {
  const span = hi - lo + 1n;
  let r = 0n;
  for (let k = 0; k < 5; k++) r = (r << 30n) | BigInt(rng.int(0, 2 ** 30 - 1));
  return lo + (r % span);
}

/** Values for aggregating: small domains (duplicates), extremes for the wide types, NULLs. */
function valueColumn(rng: Rng, t: ValueType, n: number, nullRate: number, wide: boolean): Vector {
  const valid = Array.from({ length: n }, () => !rng.chance(nullRate));
  const v = bitmap(valid);
  const small = () => rng.int(-20, 20);
  const words128 = (xs: bigint[]) => {
    const out = new Uint32Array(4 * n);
    xs.forEach((x, i) => out.set(wordsOf(x), 4 * i));
    return out;
  };
  const strings = () => Array.from({ length: n }, (_, i) => (valid[i] ? ['', 'a', 'ab', 'b', 'é', 'zz', 'A', '日本', 'a\u0000b', 'abc'][rng.int(0, 9)]! + (rng.chance(0.3) ? String(rng.int(0, 50)) : '') : null));
  switch (t) {
    case 'i8':
      return makeVector(makeData({ type: new Int8(), length: n, ...v, data: Int8Array.from({ length: n }, () => (wide ? rng.int(-128, 127) : small())) }));
    case 'i16':
      return makeVector(makeData({ type: new Int16(), length: n, ...v, data: Int16Array.from({ length: n }, () => (wide ? rng.int(-32768, 32767) : small())) }));
    case 'i32':
      return makeVector(makeData({ type: new Int32(), length: n, ...v, data: Int32Array.from({ length: n }, () => (wide ? rng.int(-(2 ** 31), 2 ** 31 - 1) : small())) }));
    case 'u8':
      return makeVector(makeData({ type: new Uint8(), length: n, ...v, data: Uint8Array.from({ length: n }, () => (wide ? rng.int(0, 255) : rng.int(0, 20))) }));
    case 'u16':
      return makeVector(makeData({ type: new Uint16(), length: n, ...v, data: Uint16Array.from({ length: n }, () => (wide ? rng.int(0, 65535) : rng.int(0, 20))) }));
    case 'u32':
      return makeVector(makeData({ type: new Uint32(), length: n, ...v, data: Uint32Array.from({ length: n }, () => (wide ? rng.int(0, 2 ** 32 - 1) : rng.int(0, 20))) }));
    case 'i64':
      return makeVector(makeData({ type: new Int64(), length: n, ...v, data: BigInt64Array.from({ length: n }, () => (wide ? (rng.chance(0.5) ? bigIn(rng, TWO63 - 2n ** 40n, TWO63 - 1n) : bigIn(rng, -TWO63, TWO63 - 1n)) : BigInt(small()))) }));
    case 'u64':
      return makeVector(makeData({ type: new Uint64(), length: n, ...v, data: BigUint64Array.from({ length: n }, () => (wide ? bigIn(rng, 2n ** 64n - 2n ** 50n, 2n ** 64n - 1n) : BigInt(rng.int(0, 20)))) }));
    case 'f32':
    case 'f64': {
      const out = t === 'f32' ? new Float32Array(n) : new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const x = rng.next();
        // binary fractions and a few specials: -0.0, NaN, +-Infinity, arbitrary doubles
        out[i] = x < 0.05 ? -0 : x < 0.08 ? NaN : x < 0.09 ? (rng.chance(0.5) ? Infinity : -Infinity) : wide ? (rng.next() - 0.5) * 1e6 : rng.int(-40, 40) / 8;
      }
      return makeVector(makeData({ type: t === 'f32' ? new Float32() : new Float64(), length: n, ...v, data: out }));
    }
    case 'dec4':
      return makeVector(makeData({ type: new Decimal(1, 4, 128), length: n, ...v, data: words128(Array.from({ length: n }, () => BigInt(wide ? rng.int(-9999, 9999) : small()))) }));
    case 'dec9':
      return makeVector(makeData({ type: new Decimal(2, 9, 128), length: n, ...v, data: words128(Array.from({ length: n }, () => (wide ? bigIn(rng, -(10n ** 9n) + 1n, 10n ** 9n - 1n) : BigInt(small())))) }));
    case 'dec18':
      return makeVector(makeData({ type: new Decimal(3, 18, 128), length: n, ...v, data: words128(Array.from({ length: n }, () => (wide ? bigIn(rng, -(10n ** 18n) + 1n, 10n ** 18n - 1n) : BigInt(small())))) }));
    case 'dec38':
      // large but summable: |v| < 10^33 so thousands of rows stay inside 128 bits
      return makeVector(makeData({ type: new Decimal(5, 38, 128), length: n, ...v, data: words128(Array.from({ length: n }, () => (wide ? bigIn(rng, -(10n ** 33n), 10n ** 33n) : BigInt(small())))) }));
    case 'dec32':
      return makeVector(makeData({ type: new Decimal(2, 9, 32), length: n, ...v, data: Int32Array.from({ length: n }, () => (wide ? rng.int(-999_999_999, 999_999_999) : small())) }));
    case 'dec64':
      return makeVector(makeData({ type: new Decimal(4, 18, 64), length: n, ...v, data: new Uint32Array(BigInt64Array.from({ length: n }, () => (wide ? bigIn(rng, -(10n ** 18n) + 1n, 10n ** 18n - 1n) : BigInt(small()))).buffer) }));
    case 'date64':
      return makeVector(makeData({ type: new DateMillisecond(), length: n, ...v, data: BigInt64Array.from({ length: n }, () => BigInt(rng.int(-1000, 30000)) * 86_400_000n) }));
    case 'dict-i64':
    case 'dict-f64': {
      // a dictionary of numbers (with a NULL entry) and codes into it
      const entries = t === 'dict-i64' ? makeVector(BigInt64Array.from({ length: 12 }, (_, i) => (wide ? TWO63 - 1n - BigInt(i) : BigInt(i - 6)))) : vectorFromArray([0.5, -2.25, NaN, -0, 8, 1e300, null, 3.75], new Float64());
      const codes = Int32Array.from({ length: n }, () => rng.int(0, entries.length - 1));
      const type = new Dictionary(entries.type, new Int32());
      return makeVector(makeData({ type, length: n, ...v, data: codes, dictionary: entries }));
    }
    case 'bool': {
      const bits = new Uint8Array((n + 7) >> 3);
      for (let i = 0; i < n; i++) if (rng.chance(0.5)) bits[i >> 3]! |= 1 << (i & 7);
      return makeVector(makeData({ type: new Bool(), length: n, ...v, data: bits }));
    }
    case 'utf8':
      return vectorFromArray(strings(), new Utf8());
    case 'large-utf8':
      return vectorFromArray(strings(), new LargeUtf8());
    case 'dict-utf8':
      return vectorFromArray(strings(), new Dictionary(new Utf8(), new Int32()));
    case 'binary':
      return vectorFromArray(strings().map((s) => (s === null ? null : new TextEncoder().encode(s))), new Binary());
    case 'date':
      return makeVector(makeData({ type: new DateDay(), length: n, ...v, data: Int32Array.from({ length: n }, () => rng.int(-1000, 30000)) }));
    case 'ts-ms':
      return makeVector(makeData({ type: new Timestamp(TimeUnit.MILLISECOND), length: n, ...v, data: BigInt64Array.from({ length: n }, () => BigInt(rng.int(-1e6, 1e6)) * 1_000_000n + BigInt(rng.int(0, 999))) }));
    case 'ts-ns-tz':
      return makeVector(makeData({ type: new Timestamp(TimeUnit.NANOSECOND, 'UTC'), length: n, ...v, data: BigInt64Array.from({ length: n }, () => BigInt(rng.int(-1e6, 1e6)) * 1_000_000_000n + BigInt(rng.int(0, 999)) * 1000n) }));
  }
}

function tableOf(columns: Record<string, Vector>, batchSize: number): Table {
  return rebatch(new Table(columns), batchSize);
}

/** A table whose batches include empty ones (between, first and last). */
function withEmptyBatches(t: Table): Table {
  const out: RecordBatch[] = [t.batches[0]!.slice(0, 0)];
  for (const b of t.batches) out.push(b, b.slice(0, 0));
  return new Table(t.schema, out);
}

async function* batchesOf(t: Table): AsyncIterable<RecordBatch> {
  for (const b of t.batches) yield b;
}

// ---- expectations ------------------------------------------------------------------------------------

/** The Arrow type joinlab must return for `call` over a column of `input` type. */
function expectedType(call: AggregateCall, input: DataType | null): string {
  switch (call.fn) {
    case 'count_star':
    case 'count':
      return 'Int64';
    case 'avg':
      return 'Float64';
    case 'sum': {
      const t = input!.typeId === Type.Dictionary ? (input as Dictionary).dictionary : input!;
      if (t.typeId === Type.Float) return 'Float64';
      return String(new Decimal(t.typeId === Type.Decimal ? (t as Decimal).scale : 0, 38, 128));
    }
    default: {
      const t = input!.typeId === Type.Dictionary ? (input as Dictionary).dictionary : input!;
      return String(t);
    }
  }
}

function callSql(c: AggregateCall): string {
  const arg = c.fn === 'count_star' ? '*' : `${c.distinct ? 'DISTINCT ' : ''}${quoteIdent(c.column!)}`;
  return `${c.fn === 'count_star' ? 'count' : c.fn}(${arg}) AS ${quoteIdent(c.as)}`;
}

function specSql(spec: AggregateSpec, table = 't'): string {
  const cols = [...spec.groupBy.map(quoteIdent), ...spec.aggregates.map(callSql)];
  const group = spec.groupBy.length ? ` GROUP BY ${spec.groupBy.map(quoteIdent).join(', ')}` : '';
  return `SELECT ${cols.join(', ')} FROM ${table}${group}`;
}

/** Every aggregate DuckDB accepts over each of `columns`, named fn_column[_d]. */
function allCalls(table: Table, columns: readonly string[], distinct: boolean): AggregateCall[] {
  const calls: AggregateCall[] = [{ fn: 'count_star', column: null, distinct: false, as: 'n' }];
  for (const name of columns) {
    const t = table.schema.fields.find((f) => f.name === name)!.type;
    const vt = t.typeId === Type.Dictionary ? (t as Dictionary).dictionary : t;
    const numeric = vt.typeId === Type.Int || vt.typeId === Type.Float || vt.typeId === Type.Decimal;
    const fns: AggregateCall['fn'][] = ['count', 'min', 'max'];
    if (numeric || vt.typeId === Type.Bool) fns.push('sum');
    if (numeric) fns.push('avg');
    for (const fn of fns) {
      calls.push({ fn, column: name, distinct: false, as: `${fn}_${name}` });
      if (distinct && fn !== 'min' && fn !== 'max') calls.push({ fn, column: name, distinct: true, as: `${fn}_${name}_d` });
    }
  }
  return calls;
}

// ---- the differential harness --------------------------------------------------------------------------

describe('hash aggregate vs DuckDB', () => {
  let duck: DuckDBSession;
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
  });
  afterAll(() => duck?.close());

  async function ours(table: Table, spec: AggregateSpec, batchSize = 2048): Promise<Table> {
    return hashAggregate(batchesOf(table), table.schema, spec, { pool: new MemoryPool(), batchSize });
  }

  /** `from`: a FROM source already in DuckDB holding `table`'s rows (else `table` is loaded as t). */
  async function check(table: Table, spec: AggregateSpec, what: string, batchSize = 2048, from?: string): Promise<Table> {
    const got = await ours(table, spec, batchSize);
    if (from === undefined) await duck.loadTable('t', table);
    const want = await duck.query(specSql(spec, from));
    const cmp = compareResults(got, want);
    if (!cmp.equal) throw new Error(`${what}: ${specSql(spec)}\n${formatComparison(cmp)}`);
    // exact output types: group columns as the input, aggregates by the DuckDB rules
    const fields = got.schema.fields;
    spec.groupBy.forEach((g, k) => expect(String(fields[k]!.type), `${what}: group column ${g}`).toBe(String(table.schema.fields.find((f) => f.name === g)!.type)));
    spec.aggregates.forEach((a, k) => {
      const input = a.column === null ? null : table.schema.fields.find((f) => f.name === a.column)!.type;
      expect(`${fields[spec.groupBy.length + k]!.name}: ${String(fields[spec.groupBy.length + k]!.type)}`, what).toBe(`${a.as}: ${expectedType(a, input)}`);
    });
    for (const b of got.batches) expect(b.numRows).toBeLessThanOrEqual(batchSize);
    return got;
  }

  it('groups by every key type, with every aggregate over every value type', async () => {
    const rng = new Rng(20240611);
    const n = 700;
    const rid = makeVector(Int32Array.from({ length: n }, (_, i) => i));
    const values = Object.fromEntries(VALUE_TYPES.map((t) => [`v_${t}`, valueColumn(rng, t, n, 0.15, rng.chance(0.5))]));
    const valueNames = Object.keys(values);
    // the values go into DuckDB once; each key column joins them by row id
    await duck.loadTable('v', new Table({ rid, ...values }));
    let i = 0;
    for (const kt of LOGICAL_TYPES) {
      const g = randomColumn(rng, { name: 'g', type: kt, domain: kt === 'bool' ? 2 : 25, nullRate: 0.1, skew: 0.3 }, n);
      await duck.loadTable('k', new Table({ rid, g }));
      const batch = [1, 3, 97, 256, 1000][i++ % 5]!;
      const table = tableOf({ g, ...values }, batch);
      await check(table, { groupBy: ['g'], aggregates: allCalls(table, valueNames, false) }, `key ${kt}, batches of ${batch}`, [1, 7, 2048][i % 3]!, '(SELECT * FROM k JOIN v USING (rid)) t');
    }
  });

  it('groups by several columns of mixed types, NULL keys grouping together', async () => {
    const rng = new Rng(7);
    const n = 1500;
    const pairs: [LogicalType, LogicalType, LogicalType][] = [
      ['int32', 'utf8', 'bool'],
      ['dict-utf8', 'float64', 'date32'],
      ['uint64', 'decimal', 'ts-ns'],
      ['large-utf8', 'binary', 'int8'],
    ];
    for (const [a, b, c] of pairs) {
      const table = tableOf(
        {
          a: randomColumn(rng, { name: 'a', type: a, domain: 6, nullRate: 0.2 }, n),
          b: randomColumn(rng, { name: 'b', type: b, domain: 5, nullRate: 0.2, skew: 0.5 }, n),
          c: randomColumn(rng, { name: 'c', type: c, domain: 4, nullRate: 0.3 }, n),
          x: valueColumn(rng, 'i64', n, 0.1, true),
          y: valueColumn(rng, 'f64', n, 0.1, false),
          s: valueColumn(rng, 'utf8', n, 0.1, false),
        },
        333,
      );
      await check(table, { groupBy: ['a', 'b', 'c'], aggregates: allCalls(table, ['x', 'y', 's'], true) }, `keys ${a}, ${b}, ${c}`, 100);
      // SELECT DISTINCT a, b, c
      await check(table, { groupBy: ['a', 'b', 'c'], aggregates: [] }, `distinct ${a}, ${b}, ${c}`, 50);
    }
  });

  it('aggregates without GROUP BY: one row, also over empty input and empty batches', async () => {
    const rng = new Rng(99);
    const n = 500;
    const values = Object.fromEntries(VALUE_TYPES.map((t) => [`v_${t}`, valueColumn(rng, t, n, 0.2, true)]));
    const table = withEmptyBatches(tableOf(values, 61));
    const calls = allCalls(table, Object.keys(values), true);
    const got = await check(table, { groupBy: [], aggregates: calls }, 'no group by');
    expect(got.numRows).toBe(1);

    const empty = new Table(table.schema, [table.batches[0]!.slice(0, 0)]);
    const none = await check(empty, { groupBy: [], aggregates: calls }, 'no group by, empty input');
    expect(none.numRows).toBe(1);
    const row = none.batches[0]!;
    expect(Number(row.getChild('n')!.get(0))).toBe(0);
    expect(row.getChild('sum_v_i64')!.get(0)).toBeNull();
    expect(row.getChild('min_v_utf8')!.get(0)).toBeNull();
    expect(row.getChild('avg_v_f64')!.get(0)).toBeNull();
    // a table with no batches at all
    const noBatches = await ours(new Table(table.schema), { groupBy: [], aggregates: calls });
    expect(noBatches.numRows).toBe(1);

    // all-NULL columns
    const nulls = tableOf({ x: valueColumn(rng, 'i32', 50, 1, false), s: valueColumn(rng, 'utf8', 50, 1, false) }, 7);
    await check(nulls, { groupBy: [], aggregates: allCalls(nulls, ['x', 's'], true) }, 'all NULL');
  });

  it('grouped empty input gives no rows; empty batches are skipped', async () => {
    const rng = new Rng(5);
    const t = tableOf({ g: valueColumn(rng, 'utf8', 40, 0.2, false), x: valueColumn(rng, 'i32', 40, 0.2, false) }, 3);
    const empty = new Table(t.schema, [t.batches[0]!.slice(0, 0)]);
    const spec: AggregateSpec = { groupBy: ['g'], aggregates: allCalls(t, ['x'], true) };
    expect((await check(empty, spec, 'empty grouped')).numRows).toBe(0);
    expect((await ours(new Table(t.schema), spec)).numRows).toBe(0);
    await check(withEmptyBatches(t), spec, 'with empty batches', 3);
  });

  it('many groups: past the initial capacity, with rehashing, for int, string and two-column keys', async () => {
    const rng = new Rng(31337);
    const n = 40_000;
    const ids = Float64Array.from({ length: n }, () => rng.int(0, 15_000));
    const k64 = makeVector(makeData({ type: new Int64(), length: n, data: BigInt64Array.from(ids, (x) => BigInt(x) * 1_000_003n - 7n) }));
    const ks = vectorFromArray(Array.from(ids, (x) => (x % 97 === 0 ? null : `key-${x % 9000}`)), new Utf8());
    const x = valueColumn(rng, 'i32', n, 0.05, true);
    const table = tableOf({ k64, ks, x }, 4096);
    const aggs: AggregateCall[] = [
      { fn: 'count_star', column: null, distinct: false, as: 'n' },
      { fn: 'sum', column: 'x', distinct: false, as: 's' },
      { fn: 'avg', column: 'x', distinct: false, as: 'a' },
      { fn: 'max', column: 'x', distinct: false, as: 'mx' },
      { fn: 'count', column: 'x', distinct: true, as: 'cd' },
    ];
    const byInt = await check(table, { groupBy: ['k64'], aggregates: aggs }, 'int64 keys');
    expect(byInt.numRows).toBeGreaterThan(10_000);
    await check(table, { groupBy: ['ks'], aggregates: aggs }, 'string keys', 3000);
    await check(table, { groupBy: ['ks', 'k64'], aggregates: aggs.slice(0, 2) }, 'two keys');
  });

  it('sums int64 and uint64 exactly past 2^63 and 2^64, and wide decimals', async () => {
    const rng = new Rng(4242);
    const n = 3000;
    const table = tableOf(
      {
        g: randomColumn(rng, { name: 'g', type: 'int8', domain: 5, nullRate: 0.1 }, n),
        i64: valueColumn(rng, 'i64', n, 0.05, true),
        u64: valueColumn(rng, 'u64', n, 0.05, true),
        d38: valueColumn(rng, 'dec38', n, 0.05, true),
        d18: valueColumn(rng, 'dec18', n, 0.05, true),
        i32: valueColumn(rng, 'i32', n, 0.05, true),
      },
      257,
    );
    const got = await check(table, { groupBy: ['g'], aggregates: allCalls(table, ['i64', 'u64', 'd38', 'd18', 'i32'], true).filter((c) => c.fn !== 'min' && c.fn !== 'max') }, 'wide sums');
    // the sums really are past the int64 range
    const s = got.getChild('sum_u64')!;
    expect(String(s.type)).toBe(String(new Decimal(0, 38, 128)));
    const maxAbs = Math.max(...Array.from({ length: got.numRows }, (_, i) => {
      const w = new Uint32Array((s.data[0]!.values as Uint32Array).buffer, (s.data[0]!.values as Uint32Array).byteOffset + 16 * i, 4);
      return w[2]! + w[3]!;
    }));
    expect(maxAbs).toBeGreaterThan(0);
  });

  it('carries its sum limbs exactly over millions of rows (no DuckDB: a BigInt reference)', async () => {
    const rng = new Rng(606);
    const n = 4096;
    const reps = 600; // 2.46M rows: every limb of every layout passes 2^52 and carries
    const cols = {
      i64: valueColumn(rng, 'i64', n, 0, true),
      u64: valueColumn(rng, 'u64', n, 0, true),
      i32: makeVector(Int32Array.from({ length: n }, () => (rng.chance(0.9) ? 2 ** 31 - 1 - rng.int(0, 99) : -rng.int(0, 2 ** 31)))),
      u32: makeVector(Uint32Array.from({ length: n }, () => 2 ** 32 - 1 - rng.int(0, 999))),
      d38: valueColumn(rng, 'dec38', n, 0, true),
    };
    const batch = new Table(cols).batches[0]!;
    const exactSum = (name: keyof typeof cols): bigint => {
      const v = batch.getChild(name)!;
      let sum = 0n;
      for (let i = 0; i < n; i++) {
        const x = v.get(i) as unknown;
        sum += typeof x === 'bigint' ? x : typeof x === 'number' ? BigInt(x) : BigInt.asIntN(128, [...(x as Uint32Array)].reduceRight((a, w) => (a << 32n) | BigInt(w), 0n));
      }
      return sum * BigInt(reps);
    };
    const names = Object.keys(cols) as (keyof typeof cols)[];
    const spec: AggregateSpec = {
      groupBy: [],
      aggregates: names.flatMap((c) => [
        { fn: 'sum' as const, column: c, distinct: false, as: `s_${c}` },
        { fn: 'avg' as const, column: c, distinct: false, as: `a_${c}` },
      ]),
    };
    const input = (async function* () {
      for (let r = 0; r < reps; r++) yield batch;
    })();
    const got = await hashAggregate(input, batch.schema, spec, { pool: new MemoryPool() });
    for (const c of names) {
      const words = got.getChild(`s_${c}`)!.data[0]!.values as Uint32Array;
      const want = exactSum(c);
      expect(BigInt.asIntN(128, [...words.subarray(0, 4)].reduceRight((a, w) => (a << 32n) | BigInt(w), 0n)), c).toBe(want);
      const scale = c === 'd38' ? decimalAvgScale(5) : 1;
      expect(got.getChild(`a_${c}`)!.get(0), c).toBe(longDoubleAvg(want, n * reps, scale));
    }
  });

  it('accepts a decimal sum of exactly 2^127 - 1 or -2^127 and refuses 2^127', async () => {
    const sumOf = async (xs: bigint[]) => {
      const words = new Uint32Array(4 * xs.length);
      xs.forEach((x, i) => words.set(wordsOf(x), 4 * i));
      const t = new Table({ d: makeVector(makeData({ type: new Decimal(0, 38, 128), length: xs.length, data: words })) });
      const out = await ours(t, { groupBy: [], aggregates: [{ fn: 'sum', column: 'd', distinct: false, as: 's' }] });
      return BigInt.asIntN(128, [...(out.getChild('s')!.data[0]!.values as Uint32Array)].reduceRight((a, w) => (a << 32n) | BigInt(w), 0n));
    };
    const h = 2n ** 126n;
    expect(await sumOf([h, h - 1n])).toBe(2n ** 127n - 1n);
    expect(await sumOf([-h, -h])).toBe(-(2n ** 127n));
    await expect(sumOf([h, h])).rejects.toThrow(ExpressionError);
    await expect(sumOf([-h, -h, -1n])).rejects.toThrow(ExpressionError);
    expect(await sumOf([h, h, -h, -h, 5n])).toBe(5n);
  });

  it('reports a sum past 128 bits as an overflow, as DuckDB does', async () => {
    const big = 10n ** 38n - 1n;
    const words = new Uint32Array(4 * 3);
    for (let i = 0; i < 3; i++) words.set(wordsOf(big), 4 * i);
    const t = new Table({ d: makeVector(makeData({ type: new Decimal(0, 38, 128), length: 3, data: words })) });
    await duck.loadTable('t', t);
    await expect(duck.query('SELECT sum(d) FROM t')).rejects.toThrow(/Overflow in HUGEINT addition/);
    await expect(ours(t, { groupBy: [], aggregates: [{ fn: 'sum', column: 'd', distinct: false, as: 's' }] })).rejects.toThrow(ExpressionError);
  });

  it("matches DuckDB's avg doubles where its long-double division rounds twice", async () => {
    // groups whose sum / count lies within half a 64-bit ulp of a midpoint between two doubles
    const cases: [number, number][] = [[188610, 2111], [159095, 2151], [10827, 2159], [211522, 2167], [50153, 2179]];
    const g: number[] = [];
    const x: number[] = [];
    cases.forEach(([sum, count], k) => {
      const q = Math.floor(sum / count);
      const rem = sum - q * count;
      for (let i = 0; i < count; i++) {
        g.push(k);
        x.push(i < rem ? q + 1 : q);
      }
    });
    const n = g.length;
    const cols: Record<string, Vector> = { g: makeVector(Int32Array.from(g)) };
    cols.i8 = makeVector(Int8Array.from(x));
    cols.i16 = makeVector(Int16Array.from(x));
    cols.i32 = makeVector(Int32Array.from(x));
    cols.i64 = makeVector(BigInt64Array.from(x, BigInt));
    cols.u8 = makeVector(Uint8Array.from(x));
    cols.u16 = makeVector(Uint16Array.from(x));
    cols.u32 = makeVector(Uint32Array.from(x));
    cols.u64 = makeVector(BigUint64Array.from(x, BigInt));
    const dec = (scale: number, precision: number) => {
      const w = new Uint32Array(4 * n);
      x.forEach((v, i) => w.set(wordsOf(BigInt(v)), 4 * i));
      return makeVector(makeData({ type: new Decimal(scale, precision, 128), length: n, data: w }));
    };
    cols.d4 = dec(1, 4);
    cols.d9 = dec(2, 9);
    cols.d18 = dec(0, 18);
    cols.d38 = dec(7, 38);
    cols.f64 = makeVector(Float64Array.from(x));
    const table = tableOf(cols, 1024);
    const names = Object.keys(cols).filter((c) => c !== 'g');
    const got = await check(table, { groupBy: ['g'], aggregates: names.map((c) => ({ fn: 'avg' as const, column: c, distinct: false, as: `avg_${c}` })) }, 'double rounding');
    // the INTEGER avg is the double-rounded value, SMALLINT's the correctly rounded one
    const first = [...Array(got.numRows).keys()].find((i) => got.getChild('g')!.get(i) === 0)!;
    expect(got.getChild('avg_i32')!.get(first)).toBe(89.34628138323069);
    expect(got.getChild('avg_i16')!.get(first)).toBe(89.3462813832307);
  });

  it('DISTINCT aggregates dedupe (group, value) pairs, NULLs left out', async () => {
    const rng = new Rng(1001);
    const n = 2000;
    const table = tableOf(
      {
        g: randomColumn(rng, { name: 'g', type: 'utf8', domain: 12, nullRate: 0.1, skew: 0.4 }, n),
        a: valueColumn(rng, 'i32', n, 0.2, false),
        b: valueColumn(rng, 'dec9', n, 0.2, false),
        c: valueColumn(rng, 'f64', n, 0.2, false),
        d: valueColumn(rng, 'dict-utf8', n, 0.2, false),
        e: valueColumn(rng, 'u64', n, 0.2, true),
      },
      99,
    );
    await check(table, { groupBy: ['g'], aggregates: allCalls(table, ['a', 'b', 'c', 'd', 'e'], true) }, 'distinct');
    await check(table, { groupBy: [], aggregates: allCalls(table, ['a', 'd'], true) }, 'distinct, no group by');
  });

  it('keeps the input types of group columns (dictionary, time zone, large strings)', async () => {
    const rng = new Rng(3);
    const n = 300;
    const table = tableOf(
      { d: valueColumn(rng, 'dict-utf8', n, 0.1, false), z: valueColumn(rng, 'ts-ns-tz', n, 0.1, false), l: valueColumn(rng, 'large-utf8', n, 0.1, false) },
      64,
    );
    const got = await check(table, { groupBy: ['d', 'z', 'l'], aggregates: [{ fn: 'count_star', column: null, distinct: false, as: 'n' }] }, 'types', 17);
    expect(got.schema.fields[0]!.type.typeId).toBe(Type.Dictionary);
    expect((got.schema.fields[1]!.type as Timestamp).timezone).toBe('UTC');
  });

  it('checks the spec against the schema before reading', async () => {
    const rng = new Rng(8);
    const list = makeVector(makeData({ type: new List(new Field('item', new Int32())), length: 1, valueOffsets: Int32Array.of(0, 1), child: makeData({ type: new Int32(), length: 1, data: Int32Array.of(1) }) }));
    const t = new Table({ s: valueColumn(rng, 'utf8', 1, 0, false), b: valueColumn(rng, 'bool', 1, 0, false), d: valueColumn(rng, 'date', 1, 0, false), l: list });
    let read = false;
    const input = (async function* () {
      read = true;
      yield* t.batches;
    })();
    const run = (spec: AggregateSpec) => hashAggregate(input, t.schema, spec, { pool: new MemoryPool() });
    const agg = (fn: AggregateCall['fn'], column: string | null): AggregateSpec => ({ groupBy: [], aggregates: [{ fn, column, distinct: false, as: 'x' }] });
    await expect(run({ groupBy: ['nope'], aggregates: [] })).rejects.toThrow(MissingColumnError);
    await expect(run(agg('sum', 'nope'))).rejects.toThrow(MissingColumnError);
    await expect(run(agg('sum', 's'))).rejects.toThrow(ExpressionError);
    await expect(run(agg('sum', 's'))).rejects.toThrow(/column 's' has type Utf8/);
    await expect(run(agg('avg', 'd'))).rejects.toThrow(ExpressionError);
    await expect(run(agg('avg', 'b'))).rejects.toThrow(ExpressionError);
    await expect(run(agg('sum', 'l'))).rejects.toThrow(ExpressionError);
    await expect(run(agg('min', 'l'))).rejects.toThrow(UnsupportedTypeError);
    await expect(run({ groupBy: ['l'], aggregates: [] })).rejects.toThrow(UnsupportedTypeError);
    await expect(run(agg('count_star', 's'))).rejects.toThrow(UsageError);
    await expect(run({ groupBy: [], aggregates: [] })).rejects.toThrow(UsageError);
    await expect(run({ groupBy: ['s'], aggregates: [{ fn: 'count', column: 'b', distinct: false, as: 's' }] })).rejects.toThrow(/'s' appears twice/);
    expect(read).toBe(false);
    // count of any type needs only NULLs; sum(BOOLEAN) is a HUGEINT
    const ok = await hashAggregate(batchesOf(t), t.schema, { groupBy: [], aggregates: [{ fn: 'count', column: 'l', distinct: false, as: 'c' }, { fn: 'sum', column: 'b', distinct: false, as: 's' }] }, { pool: new MemoryPool() });
    expect(Number(ok.getChild('c')!.get(0))).toBe(1);
    expect(String(ok.schema.fields[1]!.type)).toBe(String(new Decimal(0, 38, 128)));
  });

  it('fails with MemoryLimitError under a small memory limit, and frees its reservations', async () => {
    const rng = new Rng(12);
    const n = 50_000;
    const t = tableOf({ k: makeVector(Int32Array.from({ length: n }, (_, i) => i)), s: valueColumn(rng, 'utf8', n, 0, false) }, 5000);
    const spec: AggregateSpec = { groupBy: ['k'], aggregates: [{ fn: 'max', column: 's', distinct: false, as: 'm' }, { fn: 'sum', column: 'k', distinct: false, as: 'x' }] };
    for (const limit of [1000, 200_000, 1_000_000]) {
      const pool = new MemoryPool(limit);
      await expect(hashAggregate(batchesOf(t), t.schema, spec, { pool })).rejects.toThrow(MemoryLimitError);
      expect(pool.reserved).toBe(0);
    }
    const pool = new MemoryPool(64 * 2 ** 20);
    const ok = await hashAggregate(batchesOf(t), t.schema, spec, { pool });
    expect(ok.numRows).toBe(n);
    expect(pool.reserved).toBe(0);
    expect(pool.peak).toBeGreaterThan(n * 8);
  });

  it('stops when the signal is aborted', async () => {
    const t = tableOf({ k: makeVector(Int32Array.from({ length: 100 }, (_, i) => i % 7)) }, 10);
    const ac = new AbortController();
    ac.abort();
    await expect(hashAggregate(batchesOf(t), t.schema, { groupBy: ['k'], aggregates: [] }, { pool: new MemoryPool(), signal: ac.signal })).rejects.toThrow(/cancelled/);
  });

  it('runs through Engine.aggregate with the configured batch size and reports metrics', async () => {
    const rng = new Rng(77);
    const n = 1000;
    const t = tableOf({ g: randomColumn(rng, { name: 'g', type: 'int32', domain: 300, nullRate: 0.1 }, n), x: valueColumn(rng, 'f64', n, 0.1, false), unused: valueColumn(rng, 'utf8', n, 0, false) }, 128);
    const engine = await Engine.create({ batchSize: 64 });
    const spec: AggregateSpec = { groupBy: ['g'], aggregates: [{ fn: 'sum', column: 'x', distinct: false, as: 's' }, { fn: 'count_star', column: null, distinct: false, as: 'n' }] };
    const { table, metrics } = await engine.aggregate(t, spec);
    expect(metrics.rows).toBe(n);
    expect(metrics.groups).toBe(table.numRows);
    expect(metrics.peakReservedBytes).toBeGreaterThan(0);
    expect(metrics.elapsedMs).toBeGreaterThanOrEqual(0);
    for (const b of table.batches) expect(b.numRows).toBeLessThanOrEqual(64);
    await duck.loadTable('t', t);
    const cmp = compareResults(table, await duck.query(specSql(spec)));
    expect(cmp.equal, formatComparison(cmp)).toBe(true);
    const count = await engine.aggregate(t, { groupBy: [], aggregates: [{ fn: 'count_star', column: null, distinct: false, as: 'n' }] });
    expect(Number(count.table.getChild('n')!.get(0))).toBe(n);
    await expect(engine.aggregate(t, { groupBy: ['missing'], aggregates: [] })).rejects.toThrow(MissingColumnError);
  });
});

// ---- the avg finaliser against exact rational arithmetic -------------------------------------------------

/** round(n / d) to `bits` significant bits, ties to even, as q * 2^e (n, d > 0; BigInt: test only). */
function roundRational(n: bigint, d: bigint, bits: number): [bigint, number] {
  let e = n.toString(2).length - d.toString(2).length - bits;
  const scaled = (x: number): [bigint, bigint] => (x >= 0 ? [n, d << BigInt(x)] : [n << BigInt(-x), d]);
  for (;;) {
    const [a, b] = scaled(e);
    const q = a / b;
    if (q >= 1n << BigInt(bits)) e++;
    else if (q < 1n << BigInt(bits - 1)) e--;
    else break;
  }
  const [a, b] = scaled(e);
  let q = a / b;
  const r = a - q * b;
  if (2n * r > b || (2n * r === b && (q & 1n) === 1n)) q++;
  return [q, e];
}

/** x87: round53(round64(round64(S) / round64(count * scale))). */
function longDoubleAvg(S: bigint, count: number, scale: number): number {
  if (S === 0n) return 0;
  const neg = S < 0n;
  const [lq, le] = roundRational(neg ? -S : S, 1n, 64);
  let sm = scale;
  let se = 0;
  while (!Number.isInteger(sm)) {
    sm *= 2;
    se--;
  }
  const [dq, de] = roundRational(BigInt(count) * BigInt(sm), 1n, 64);
  const [q, qe] = roundRational(lq, dq, 64);
  const [m, me] = roundRational(q, 1n, 53);
  const v = Number(m) * 2 ** (me + qe + le - de - se);
  return neg ? -v : v;
}

describe('avg finaliser (x87 long double emulation)', () => {
  it('agrees with exact rational arithmetic on random sums, counts and decimal scales', () => {
    const rng = new Rng(2718);
    for (let it = 0; it < 20_000; it++) {
      const bits = [8, 30, 52, 53, 54, 63, 64, 65, 90, 126][it % 10]!;
      let S = bigIn(rng, 0n, 2n ** BigInt(bits) - 1n);
      if (rng.chance(0.5)) S = -S;
      const count = rng.int(1, [10, 2048, 5000, 1e6, 2 ** 40][(it >> 1) % 5]!);
      const scale = decimalAvgScale([0, 0, 1, 2, 5, 9, 18, 19, 25, 38][(it >> 2) % 10]!);
      const got = exactAvg(wordsOf(S), 0, count, scale, 'long-double');
      const want = longDoubleAvg(S, count, scale);
      if (got !== want) throw new Error(`avg(${S} / ${count} * ${scale}): ${got}, expected ${want}`);
    }
  });

  it('finds the double-rounded quotient next to midpoints (the fast path must step aside)', () => {
    const rng = new Rng(161);
    let differing = 0;
    for (let it = 0; it < 20_000; it++) {
      const count = rng.int(2049, 100_000);
      const S = BigInt(rng.int(0, 2 ** 31)) * BigInt(count) + BigInt(rng.int(0, count - 1));
      const want = longDoubleAvg(S, count, 1);
      expect(exactAvg(wordsOf(S), 0, count, 1, 'long-double')).toBe(want);
      if (want !== Number(S) / count) differing++;
    }
    expect(differing).toBeGreaterThan(0);
  });

  it('divides in plain doubles for the SMALLINT / DECIMAL(p <= 4) rule', () => {
    expect(exactAvg(wordsOf(188610n), 0, 2111, 1, 'double')).toBe(188610 / 2111);
    expect(exactAvg(wordsOf(-188610n), 0, 2111, 10, 'double')).toBe(-188610 / (2111 * 10));
  });
});
