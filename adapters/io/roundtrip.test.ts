/**
 * Every DuckDB type, written to Parquet by DuckDB, read by joinlab, carried through a join's
 * gather (`Engine`, key `k`, both sides the same file so every row matches once), written back by
 * joinlab as Parquet, Arrow IPC (then to Parquet again) and CSV, and compared by DuckDB: the same
 * column type and the same `::VARCHAR` text for every row, for the column gathered from either
 * side. joinlab's own text for each value (the CLI preview's, adapters/io/text.ts) must equal
 * DuckDB's too. DuckDB cannot produce Arrow IPC here (its arrow extension is not installed), so
 * the IPC leg starts from joinlab's Parquet read; the Arrow-only types are in the second suite.
 *
 * Types joinlab refuses (with an UnsupportedTypeError naming the column) are listed with the
 * reason in REFUSED; there is none among DuckDB's Parquet types.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BinaryView,
  DateMillisecond,
  Decimal,
  Dictionary,
  DurationMillisecond,
  DurationNanosecond,
  DurationSecond,
  Field,
  FixedSizeBinary,
  FixedSizeList,
  Float16,
  Int16,
  Int32,
  Int64,
  IntervalDayTime,
  IntervalMonthDayNano,
  IntervalYearMonth,
  LargeBinary,
  LargeList,
  LargeUtf8,
  List,
  makeData,
  makeVector,
  Null,
  RecordBatch,
  Schema,
  SparseUnion,
  Struct,
  Table,
  TimeMicrosecond,
  TimeMillisecond,
  TimeNanosecond,
  TimeSecond,
  TimestampNanosecond,
  TimestampSecond,
  Uint16,
  Utf8,
  Utf8View,
  vectorFromArray,
  type DataType,
  type Vector,
} from 'apache-arrow';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Engine } from '../../composition.ts';
import { UnsupportedTypeError } from '../../core/errors.ts';
import { writeTable } from './index.ts';
import { readIpcFile, writeIpcFile } from './ipc.ts';
import { readParquetFile, writeParquetFile } from './parquet.ts';
import { ADJUSTED_TO_UTC, EXTENSION_NAME, JSON_EXTENSION, typeSignature, UUID_EXTENSION } from './parquet-types.ts';
import { cellFormatter } from './text.ts';

let dir: string;
let duck: DuckDBInstance;
let con: DuckDBConnection;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-roundtrip-'));
  duck = await DuckDBInstance.create(':memory:');
  con = await duck.connect();
  await con.run("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
});

afterAll(async () => {
  con.closeSync();
  duck.closeSync();
  await rm(dir, { recursive: true, force: true });
});

const ROWS = 40;
const nulls = (expr: string) => `CASE WHEN k % 7 = 3 THEN NULL ELSE ${expr} END`;
const uuid = (k: string) => `('a0eebc99-9c0b-4ef8-bb6d-' || lpad((${k})::VARCHAR, 12, '0'))::UUID`;

/** name -> a DuckDB expression over k = 0..ROWS-1 (NULLs added on every 7th row). */
const DUCKDB_TYPES: Record<string, string> = {
  boolean: 'k % 3 = 0',
  tinyint: '(k * 37 % 256 - 128)::TINYINT',
  smallint: '(k * 1000 - 16000)::SMALLINT',
  integer: "CASE k WHEN 0 THEN -2147483648 WHEN 1 THEN 2147483647 ELSE k * 100000007 % 2147483647 END::INTEGER",
  bigint: 'CASE k WHEN 0 THEN -9223372036854775808 WHEN 1 THEN 9223372036854775807 ELSE k * 1000000007 END::BIGINT',
  utinyint: '(k * 11 % 256)::UTINYINT',
  usmallint: '(k * 4099 % 65536)::USMALLINT',
  uinteger: "CASE k WHEN 1 THEN 4294967295 ELSE k * 2654435761 % 4294967296 END::UINTEGER",
  ubigint: 'CASE k WHEN 1 THEN 18446744073709551615 ELSE k * 3 END::UBIGINT',
  hugeint: '(k - 20)::HUGEINT * 1000000000000000000000000000000::HUGEINT', // DuckDB writes DOUBLE
  uhugeint: 'k::UHUGEINT * 100000000000000000000000000000::UHUGEINT', // DuckDB writes DOUBLE
  float: "CASE k % 6 WHEN 0 THEN 'nan'::FLOAT WHEN 1 THEN '-inf'::FLOAT WHEN 2 THEN -0.0::FLOAT ELSE (k / 7)::FLOAT END",
  double: "CASE k % 6 WHEN 0 THEN 'nan'::DOUBLE WHEN 1 THEN 'inf'::DOUBLE WHEN 2 THEN -0.0 WHEN 4 THEN 1e300 * k ELSE k / 7 END::DOUBLE",
  decimal_4_1: '((k - 20) * 12.3)::DECIMAL(4,1)',
  decimal_9_3: '((k - 20) * 12345.678)::DECIMAL(9,3)',
  decimal_18_6: '((k - 20) * 123456789.012345)::DECIMAL(18,6)',
  decimal_38_10: '(((k - 20)::HUGEINT * 1234567890123456789012345::HUGEINT)::DECIMAL(38,10) + 0.0123456789)::DECIMAL(38,10)',
  varchar: "CASE k % 5 WHEN 0 THEN '' WHEN 1 THEN 'é😀' || k WHEN 2 THEN 'a,b''c\"d' WHEN 3 THEN 'NULL' ELSE repeat('x', k) END",
  blob: "('\\xAA\\x00\\x5C' || k::VARCHAR)::BLOB",
  date: "CASE k WHEN 5 THEN 'infinity'::DATE WHEN 6 THEN '-infinity'::DATE WHEN 8 THEN '-0044-03-15'::DATE ELSE DATE '2024-01-01' + (k * 1000 - 20000)::INTEGER END",
  time: "CASE k WHEN 9 THEN '24:00:00'::TIME ELSE TIME '00:00:00' + to_microseconds(k * 2123456789) END",
  time_ns: "('12:34:' || lpad((k % 60)::VARCHAR, 2, '0') || '.123456789')::TIME_NS",
  timetz: "('12:34:56.789+0' || (k % 10)::VARCHAR)::TIMETZ",
  timestamp: "CASE k WHEN 5 THEN 'infinity'::TIMESTAMP WHEN 6 THEN '-infinity'::TIMESTAMP ELSE TIMESTAMP '2024-01-02 03:04:05.678901' + to_microseconds(k * 98765432100) END",
  timestamp_s: "(TIMESTAMP '1970-01-01' + to_seconds(k * 86399 - 900000))::TIMESTAMP_S",
  timestamp_ms: "(TIMESTAMP '1900-01-01' + to_milliseconds(k * 123456789))::TIMESTAMP_MS",
  timestamp_ns: "('2024-01-02 03:04:05.' || lpad((k * 12345)::VARCHAR, 9, '0'))::TIMESTAMP_NS",
  timestamptz: "(TIMESTAMPTZ '2024-01-02 03:04:05.678+05' + to_microseconds(k * 98765432100))",
  interval: 'to_months(k) + to_days(k * 3) + to_milliseconds(k * 1500)',
  uuid: `CASE k WHEN 0 THEN '00000000-0000-0000-0000-000000000000'::UUID WHEN 1 THEN 'ffffffff-ffff-ffff-ffff-ffffffffffff'::UUID ELSE ${uuid('k')} END`,
  enum: "(['sad', 'ok', 'happy'][k % 3 + 1])::mood", // DuckDB writes VARCHAR
  bit: 'bin(k + 1)::BIT', // DuckDB writes VARCHAR
  varint: '(k * 1000000000000000000000)::VARINT', // DuckDB writes VARCHAR
  json: "json_object('k', k, 'a', ['x', k::VARCHAR])",
  list: "CASE k % 4 WHEN 0 THEN []::INTEGER[] ELSE [k, NULL, k * 2] END",
  list_varchar: "['a b', '', 'c,d', k::VARCHAR, NULL, 'NULL', ' x']",
  list_list: '[[k], [], NULL, [k + 1, k + 2]]',
  array: '[k, k + 1, k + 2]', // cast to INTEGER[3] below: DuckDB's CASE cannot produce an ARRAY
  struct: "{'a': k, 'b': 'x' || k, 'c': [k], 'd': {'e': k % 2 = 0}}",
  map: "MAP {'k' || k: k, 'z': NULL}",
  struct_of_fixups: `{'iv': to_months(k) + to_days(1), 'u': ${uuid('k')}, 't': ('01:02:03+0' || (k % 9)::VARCHAR)::TIMETZ}`,
  list_interval: '[to_months(k), to_days(k) + to_milliseconds(7), NULL]',
  list_uuid: `[${uuid('k')}, NULL]`,
  map_interval: "MAP {k: to_months(k + 1)}",
  union: 'union_value(num := k)::UNION(num INTEGER, str VARCHAR)', // DuckDB writes a STRUCT
};

/** DuckDB Parquet types joinlab refuses, with the reason. (None: every type above round-trips.) */
const REFUSED: Record<string, string> = {};

/** Column types DuckDB sees for `cols` of a Parquet file. */
async function duckTypes(path: string, cols: string): Promise<string[]> {
  const r = await con.runAndReadAll(`SELECT column_type FROM (DESCRIBE SELECT ${cols} FROM read_parquet('${path}'))`);
  return r.getRows().map((row) => String(row[0]));
}

/** `k, x::VARCHAR` rows of a file (ordered by k), as DuckDB renders them. */
async function duckRows(from: string, k: string, x: string): Promise<string[][]> {
  const r = await con.runAndReadAll(`SELECT ${k}, ${x}::VARCHAR FROM ${from} ORDER BY ${k}`);
  return r.getRows().map((row) => row.map((v) => (v === null ? 'NULL' : String(v))));
}

async function exceptAll(a: string, b: string): Promise<number> {
  const r = await con.runAndReadAll(`SELECT count(*) FROM (${a} EXCEPT ALL ${b})`);
  return Number(r.getRows()[0]![0]);
}

/** joinlab's text for every row of column `name` (NULL as 'NULL'), in row order. */
function joinlabText(t: Table, name: string): string[] {
  const field = t.schema.fields.find((f) => f.name === name)!;
  const out: string[] = [];
  for (const d of t.getChild(name)!.data) {
    const text = cellFormatter(d, field, name);
    for (let i = 0; i < d.length; i++) out.push(text(i) ?? 'NULL');
  }
  return out;
}

describe('every DuckDB type: DuckDB Parquet -> joinlab join -> Parquet / Arrow / CSV -> DuckDB', () => {
  it.each(Object.entries(DUCKDB_TYPES))('%s', async (name, expr) => {
    const orig = join(dir, `${name}.parquet`);
    const x = name === 'array' ? `(${nulls(expr)})::INTEGER[3]` : nulls(expr);
    await con.run(`COPY (SELECT k, ${x} AS x FROM range(${ROWS}) t(k)) TO '${orig}' (FORMAT parquet, ROW_GROUP_SIZE 16)`);
    const want = await duckRows(`read_parquet('${orig}')`, 'k', 'x');
    const [wantType] = await duckTypes(orig, 'x');

    // joinlab's read, and its text for every value, against DuckDB's
    const read = await readParquetFile(orig);
    const text = joinlabText(read, 'x');
    const byK = new Map(want.map(([k, v]) => [k, v]));
    const ks = [...read.getChild('k')!].map(String);
    ks.forEach((k, i) => expect(text[i], `joinlab text of ${name} at k=${k}`).toBe(byK.get(k)));

    // through the join: both x columns are gathered (several batches, several row groups)
    const engine = await Engine.create({ batchSize: 7 });
    const { table } = await engine.join({ type: 'inner', on: 'k=k' }, orig, orig);
    expect(table.numRows).toBe(ROWS);
    expect(table.schema.fields.map((f) => f.name)).toEqual(['k', 'x', 'k_right', 'x_right']);
    if (name in REFUSED) return;

    const outParquet = join(dir, `${name}.out.parquet`);
    const outArrow = join(dir, `${name}.out.arrow`);
    await writeParquetFile(outParquet, table);
    await writeIpcFile(outArrow, table);
    const fromArrow = await readIpcFile(outArrow);
    const xField = read.schema.fields[1]!;
    for (const f of [fromArrow.schema.fields[1]!, fromArrow.schema.fields[3]!]) {
      expect(typeSignature(f.type), `${name}: Arrow output type`).toBe(typeSignature(xField.type));
      expect([...f.metadata], `${name}: Arrow output field metadata`).toEqual([...xField.metadata]);
    }
    const outArrowParquet = join(dir, `${name}.arrow.parquet`);
    await writeParquetFile(outArrowParquet, fromArrow);

    for (const out of [outParquet, outArrowParquet]) {
      expect(await duckTypes(out, 'x, x_right'), `${name}: DuckDB's types of ${out}`).toEqual([wantType, wantType]);
      expect(await duckRows(`read_parquet('${out}')`, 'k', 'x'), `${name}: ${out} x`).toEqual(want);
      expect(await duckRows(`read_parquet('${out}')`, 'k_right', 'x_right'), `${name}: ${out} x_right`).toEqual(want);
      const o = `SELECT k, x FROM read_parquet('${orig}')`;
      const b = `SELECT k, x FROM read_parquet('${out}')`;
      expect(await exceptAll(o, b), `${name}: orig EXCEPT ALL out`).toBe(0);
      expect(await exceptAll(b, o), `${name}: out EXCEPT ALL orig`).toBe(0);
    }

    // CSV: exact text DuckDB reads back as the same values, or refused before anything is written
    const csv = join(dir, `${name}.csv`);
    const csvErr = await writeTable(csv, table).then(
      () => null,
      (e: unknown) => e,
    );
    if (csvErr !== null) {
      expect(csvErr, `${name}: CSV`).toBeInstanceOf(UnsupportedTypeError);
      expect((csvErr as Error).message).toMatch(/^column 'x' has type .* not supported in CSV output/);
      expect((await readdir(dir)).filter((f) => f.startsWith(`${name}.csv`))).toEqual([]);
      expect(CSV_REFUSED, `${name}: CSV refused unexpectedly`).toContain(name);
    } else {
      const csvFrom = `read_csv('${csv}', header = true, columns = {'k': 'BIGINT', 'x': '${wantType.replaceAll("'", "''")}', 'k_right': 'BIGINT', 'x_right': '${wantType.replaceAll("'", "''")}'}, allow_quoted_nulls = false, quote = '"', escape = '"')`;
      expect(await duckRows(csvFrom, 'k', 'x'), `${name}: CSV x`).toEqual(want);
      expect(CSV_REFUSED, `${name}: CSV written though listed as refused`).not.toContain(name);
    }
  });
});

/** DuckDB types CSV output refuses: CSV has no nested values (and JSON-ish text would be a guess). */
const CSV_REFUSED = ['list', 'list_varchar', 'list_list', 'array', 'struct', 'map', 'struct_of_fixups', 'list_interval', 'list_uuid', 'map_interval', 'union'];

// ---------------------------------------------------------------------------------------------

/** Canonical text of every row of a vector (joinlab's exact text, NULL as 'NULL'). */
function canon(v: Vector, field: Field): string[] {
  const out: string[] = [];
  for (const d of v.data) {
    const text = cellFormatter(d, field, field.name);
    for (let i = 0; i < d.length; i++) out.push(text(i) ?? 'NULL');
  }
  return out;
}

function fixed(type: DataType, data: ArrayBufferView, length: number, valid?: boolean[]): Vector {
  const nullBitmap = valid ? Uint8Array.from({ length: Math.ceil(length / 8) }, (_, b) => valid.slice(8 * b, 8 * b + 8).reduce((m, v, j) => m | (v ? 1 << j : 0), 0)) : undefined;
  return makeVector(makeData({ type, data, length, nullBitmap, nullCount: valid ? valid.filter((v) => !v).length : 0 } as never));
}

const N = 6;
const VALID = [true, true, false, true, true, true];
const meta = (k: string, v: string) => new Map([[k, v]]);

/** Arrow-only types (IPC inputs): each must come back exactly from every output, or be refused. */
const ARROW_TYPES: [string, Vector, Map<string, string>?][] = [
  ['float16', fixed(new Float16(), new Uint16Array([0x3c00, 0x7e00, 0, 0xfc00, 0x8000, 0x3555]), N, VALID)],
  ['date64', fixed(new DateMillisecond(), BigInt64Array.from([0n, 86400000n, 0n, -86400000n, 864000000000n, 1n * 86400000n]), N, VALID)],
  ['time32_s', fixed(new TimeSecond(), Int32Array.from([0, 1, 0, 86399, 3600, 59]), N, VALID)],
  ['time32_ms', fixed(new TimeMillisecond(), Int32Array.from([0, 1, 0, 86399999, 3600000, 59]), N, VALID)],
  ['time64_ns', fixed(new TimeNanosecond(), BigInt64Array.from([0n, 1n, 0n, 86399999999999n, 3600n, 59n]), N, VALID)],
  ['time64_us_utc', fixed(new TimeMicrosecond(), BigInt64Array.from([0n, 1n, 0n, 5n, 3600n, 86399999999n]), N, VALID), meta(ADJUSTED_TO_UTC, '')],
  ['timestamp_s', fixed(new TimestampSecond(), BigInt64Array.from([0n, -1n, 0n, 253402300799n, -62135596800n, 5n]), N, VALID)],
  ['timestamp_ns_paris', fixed(new TimestampNanosecond('Europe/Paris'), BigInt64Array.from([0n, -1n, 0n, 5n, 6n, 7n]), N, VALID)],
  ['duration_s', fixed(new DurationSecond(), BigInt64Array.from([0n, -1n, 0n, 86400n, 5n, 6n]), N, VALID)],
  ['duration_ms', fixed(new DurationMillisecond(), BigInt64Array.from([0n, -1n, 0n, 86400n, 5n, 6n]), N, VALID)],
  ['duration_ns', fixed(new DurationNanosecond(), BigInt64Array.from([0n, -1n, 0n, 86400n, 5n, 6n]), N, VALID)],
  ['interval_ym', fixed(new IntervalYearMonth(), Int32Array.from([0, 1, 0, 14, 120, 5]), N, VALID)],
  ['interval_dt', fixed(new IntervalDayTime(), Int32Array.from([0, 0, 1, 1500, 0, 0, 3, 86399999, 7, 0, 0, 1]), N, VALID)],
  ['interval_mdn', fixed(new IntervalMonthDayNano(), Int32Array.from([1, 2, 1500000000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 14, 3, 705032704, 1, 0, 0, 1000000, 0, 5, 0, 0, 0]), N, VALID)],
  ['decimal32', fixed(new Decimal(2, 9, 32), Int32Array.from([0, -1, 0, 999999999, -999999999, 150]), N, VALID)],
  ['decimal64', fixed(new Decimal(3, 18, 64), BigInt64Array.from([0n, -1n, 0n, 999999999999999999n, -5n, 150n]), N, VALID)],
  ['decimal256', fixed(new Decimal(5, 60, 256), Uint32Array.from({ length: 8 * N }, (_, i) => (i % 8 === 0 ? i * 977 : i % 8 < 6 ? (i * 2654435761) >>> 0 : 0)), N, VALID)],
  ['fixed_size_binary', fixed(new FixedSizeBinary(3), Uint8Array.from({ length: 3 * N }, (_, i) => (i * 37) & 255), N, VALID)],
  ['uuid', fixed(new FixedSizeBinary(16), Uint8Array.from({ length: 16 * N }, (_, i) => (i * 97) & 255), N, VALID), meta(EXTENSION_NAME, UUID_EXTENSION)],
  ['json', vectorFromArray(['{"a":1}', '[]', null, '"x"', 'null', '{}'], new Utf8()), meta(EXTENSION_NAME, JSON_EXTENSION)],
  ['large_utf8', vectorFromArray(['a', '', null, 'é😀', 'x'.repeat(40), 'b'], new LargeUtf8())],
  ['utf8_view', vectorFromArray(['a', '', null, 'é😀', 'x'.repeat(40), 'b'], new Utf8View())],
  ['large_binary', vectorFromArray([new Uint8Array([1]), new Uint8Array(0), null, new Uint8Array([0, 255]), new Uint8Array(30).fill(7), new Uint8Array([92])], new LargeBinary())],
  ['binary_view', vectorFromArray([new Uint8Array([1]), new Uint8Array(0), null, new Uint8Array([0, 255]), new Uint8Array(30).fill(7), new Uint8Array([92])], new BinaryView())],
  ['dictionary_int16', vectorFromArray(['red', 'green', null, 'red', 'blue', 'green'], new Dictionary(new Utf8(), new Int16()))],
  ['dictionary_uint16', vectorFromArray(['red', 'green', null, 'red', 'blue', 'green'], new Dictionary(new Utf8(), new Uint16()))],
  ['null', makeVector(makeData({ type: new Null(), length: N }))],
  ['large_list', vectorFromArray([[1], [], null, [2, 3], [4], [5]], new LargeList(new Field('item', new Int32(), true)))],
  ['fixed_size_list', vectorFromArray([[1, 2], [3, 4], null, [5, 6], [7, 8], [9, 0]], new FixedSizeList(2, new Field('item', new Int32(), true)))],
  [
    'list_interval_mdn',
    makeVector(
      makeData({
        type: new List(new Field('item', new IntervalMonthDayNano(), true)),
        length: N,
        nullCount: 1,
        nullBitmap: Uint8Array.of(0b111011),
        valueOffsets: Int32Array.from([0, 2, 2, 2, 3, 3, 4]),
        child: makeData({ type: new IntervalMonthDayNano(), length: 4, data: Int32Array.from([1, 2, 3000000, 0, 0, 5, 0, 0, 14, 0, 0, 0, 0, 0, 7000000, 0]) }),
      }),
    ),
  ],
  ['struct_duration', vectorFromArray([{ d: 1n }, { d: null }, null, { d: -5n }, { d: 0n }, { d: 9n }], new Struct([new Field('d', new DurationSecond(), true)]))],
];

/**
 * The DuckDB type each Arrow-only type's CSV text is read back as. Not here: decimal256 (60 digits,
 * DuckDB stops at 38), timestamp_ns_paris (DuckDB's TIMESTAMPTZ holds microseconds), null.
 */
const CSV_AS: Record<string, string> = {
  float16: 'FLOAT',
  date64: 'DATE',
  time32_s: 'TIME',
  time32_ms: 'TIME',
  time64_ns: 'TIME_NS',
  time64_us_utc: 'TIMETZ',
  timestamp_s: 'TIMESTAMP_S',
  interval_ym: 'INTERVAL',
  interval_dt: 'INTERVAL',
  interval_mdn: 'INTERVAL',
  decimal32: 'DECIMAL(9,2)',
  decimal64: 'DECIMAL(18,3)',
  fixed_size_binary: 'BLOB',
  uuid: 'UUID',
  json: 'JSON',
  large_utf8: 'VARCHAR',
  utf8_view: 'VARCHAR',
  large_binary: 'BLOB',
  binary_view: 'BLOB',
  dictionary_int16: 'VARCHAR',
  dictionary_uint16: 'VARCHAR',
};

/** Per output format, Arrow types it refuses (an UnsupportedTypeError before anything is written) and why. */
const ARROW_REFUSED: Record<'parquet' | 'csv', Record<string, string>> = {
  parquet: {},
  csv: {
    duration_s: 'DuckDB has no duration type to read it back as',
    duration_ms: 'DuckDB has no duration type to read it back as',
    duration_ns: 'DuckDB has no duration type to read it back as',
    large_list: 'CSV has no nested values',
    fixed_size_list: 'CSV has no nested values',
    list_interval_mdn: 'CSV has no nested values',
    struct_duration: 'CSV has no nested values',
  },
};

describe('Arrow-only types: IPC -> joinlab join -> IPC / Parquet / CSV -> joinlab', () => {
  it.each(ARROW_TYPES.map(([n, v, m]) => [n, v, m] as const))('%s', async (name, vector, metadata) => {
    const k = vectorFromArray(Array.from({ length: N }, (_, i) => BigInt(i)), new Int64());
    const field = new Field('x', vector.type, true, metadata ?? new Map());
    const t = tableWith(k, field, vector);
    const src = join(dir, `arrow-${name}.arrow`);
    await writeIpcFile(src, t);
    const engine = await Engine.create({ batchSize: 4 });
    const { table } = await engine.join({ type: 'inner', on: 'k=k' }, src, src);
    const want = canon(vector, field);
    const check = (back: Table, what: string) => {
      const order = [...back.getChild('k')!].map(Number);
      for (const col of ['x', 'x_right']) {
        const f = back.schema.fields.find((g) => g.name === col)!;
        expect(typeSignature(f.type), `${name} ${what} ${col} type`).toBe(typeSignature(field.type));
        expect([...f.metadata], `${name} ${what} ${col} metadata`).toEqual([...field.metadata]);
        const got = canon(back.getChild(col)!, f);
        expect(order.map((i, r) => [i, got[r]]), `${name} ${what} ${col}`).toEqual(order.map((i) => [i, want[i]]));
      }
    };
    check(table, 'join output');
    const ipc = join(dir, `arrow-${name}.out.arrow`);
    await writeIpcFile(ipc, table);
    check(await readIpcFile(ipc), 'IPC');
    for (const format of ['parquet', 'csv'] as const) {
      const out = join(dir, `arrow-${name}.out.${format}`);
      const err = await writeTable(out, table).then(
        () => null,
        (e: unknown) => e,
      );
      const reason = ARROW_REFUSED[format][name];
      if (reason !== undefined) {
        expect(err, `${name} -> ${format} (${reason})`).toBeInstanceOf(UnsupportedTypeError);
        expect((await readdir(dir)).filter((f) => f.startsWith(`arrow-${name}.out.${format}`))).toEqual([]);
        continue;
      }
      expect(err, `${name} -> ${format}`).toBeNull();
      if (format === 'parquet') check(await readParquetFile(out), 'Parquet');
      else if (CSV_AS[name] !== undefined) {
        // DuckDB reads the CSV text back, as the DuckDB type that holds it, to the same values
        const ty = CSV_AS[name]!;
        const r = await con.runAndReadAll(
          `SELECT k, x::VARCHAR FROM read_csv('${out}', header = true, columns = {'k': 'BIGINT', 'x': '${ty}', 'k_right': 'BIGINT', 'x_right': '${ty}'}, allow_quoted_nulls = false, quote = '"', escape = '"') ORDER BY k`,
        );
        expect(
          r.getRows().map(([kk, v]) => [Number(kk), v === null ? 'NULL' : String(v)]),
          `${name} -> CSV -> DuckDB ${ty}`,
        ).toEqual(want.map((v, i) => [i, v]));
      }
    }
  });

  it('a union column: the join refuses it up front, naming --select; Parquet and CSV refuse it before writing', async () => {
    const n = 3;
    const ints = makeData({ type: new Int32(), length: n, data: Int32Array.from([1, 2, 3]) });
    const type = new SparseUnion([0], [new Field('i', new Int32(), true)]);
    const u = makeVector(makeData({ type, length: n, nullCount: 0, typeIds: new Int8Array(n), children: [ints] }));
    const t = tableWith(vectorFromArray([1n, 2n, 3n], new Int64()), new Field('x', type, true), u);
    const engine = await Engine.create();
    await expect(engine.join({ type: 'inner', on: 'k=k' }, t, t)).rejects.toThrow(/--select can leave it out/);
    for (const ext of ['parquet', 'csv']) {
      const p = join(dir, `ipc-union.${ext}`);
      await expect(writeTable(p, t)).rejects.toBeInstanceOf(UnsupportedTypeError);
      expect((await readdir(dir)).filter((f) => f.startsWith(`ipc-union.${ext}`))).toEqual([]);
    }
  });

  it.each([
    ['a negative interval part', [1, -2, 0, 0], /negative part/],
    ['nanoseconds that are not whole milliseconds', [0, 0, 1500, 0], /not a whole number of milliseconds/],
  ])('month-day-nano with %s is refused by Parquet output, naming the value', async (_, words, message) => {
    const t = tableWith(vectorFromArray([1n], new Int64()), new Field('iv', new IntervalMonthDayNano(), true), fixed(new IntervalMonthDayNano(), Int32Array.from(words), 1));
    const p = join(dir, 'bad-interval.parquet');
    const err = await writeParquetFile(p, t).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsupportedTypeError);
    expect((err as Error).message).toMatch(/^column 'iv' has type Interval<MONTH_DAY_NANO>/);
    expect((err as Error).message).toMatch(message);
    expect((await readdir(dir)).filter((f) => f.startsWith('bad-interval'))).toEqual([]);
  });

  it('a decimal value wider than Parquet stores for its precision is refused, not truncated', async () => {
    const t = tableWith(vectorFromArray([1n], new Int64()), new Field('d', new Decimal(0, 4, 128), true), fixed(new Decimal(0, 4, 128), Uint32Array.from([0, 1, 0, 0]), 1));
    await expect(writeParquetFile(join(dir, 'bad-decimal.parquet'), t)).rejects.toThrow(/column 'd' .* row 0 does not fit the 4 bytes Parquet stores a DECIMAL\(4,0\) in/);
  });
});

function tableWith(k: Vector, field: Field, x: Vector): Table {
  if (x.data.length !== 1) throw new Error(`expected one chunk, got ${x.data.length}`);
  const schema = new Schema([new Field('k', k.type, true), field]);
  const data = makeData({ type: new Struct(schema.fields), length: k.length, nullCount: 0, children: [k.data[0]!, x.data[0]!] });
  return new Table(schema, [new RecordBatch(schema, data)]);
}
