/**
 * CSV input (csv-read.ts): files with quotes, CRLF inside quoted fields and as line ends, a BOM,
 * header only, empty, NULL spellings, wide and long (odd batch sizes) — each read by joinlab and by
 * DuckDB's `read_csv` (with `allow_quoted_nulls=false`, joinlab's NULL convention) and compared as
 * multisets; type inference, widening on a late mismatch, typed errors naming file and line; our
 * own CSV output reading back; and a join of a CSV input against a Parquet one equal to DuckDB's.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateDay, Float64, Int32, Int64, makeData, makeVector, Table, TimestampMicrosecond, TimestampNanosecond, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorruptFileError, FileNotFoundError } from '../../core/errors.ts';
import { Engine } from '../../composition.ts';
import { compareResults, formatComparison } from '../duckdb/compare.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { CsvReadError, CsvValueError, quotedEmpties, readCsvBatches, readCsvFile, readCsvFileShared, sniffCsv } from './csv-read.ts';
import { writeTable } from './index.ts';
import { openScan } from './open.ts';

let dir: string;
let duck: DuckDBSession;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-csvin-'));
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(async () => {
  await duck.close();
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string | Buffer): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, text);
  return p;
}

const types = (t: Table) => t.schema.fields.map((f) => `${f.name}:${String(f.type)}`);

/** joinlab's read equals DuckDB's `read_csv` of the same file (multiset of rows, value by value). */
async function expectSameAsDuckDB(path: string, batchSize = 8192): Promise<Table> {
  const ours = await readCsvFile(path, { batchSize });
  const theirs = await duck.query(`SELECT * FROM read_csv('${path}', allow_quoted_nulls = false)`);
  const r = compareResults(ours, theirs);
  expect(r.equal, formatComparison(r)).toBe(true);
  for (const b of ours.batches.slice(0, -1)) expect(b.numRows).toBe(batchSize);
  return ours;
}

describe('CSV read compared with DuckDB', () => {
  it('quotes, delimiters and CRLF inside quoted fields, CRLF line ends, a BOM', async () => {
    const p = await file('quotes.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('id,s,n\r\n1,"a,b",2.5\r\n2,"say ""hi""",3\r\n3,"two\r\nlines",-1e3\r\n4,plain,\r\n')]));
    const t = await expectSameAsDuckDB(p);
    expect(types(t)).toEqual(['id:Int32', 's:Utf8', 'n:Float64']);
    expect([...t.getChild('s')!]).toEqual(['a,b', 'say "hi"', 'two\r\nlines', 'plain']);
    expect([...t.getChild('n')!]).toEqual([2.5, 3, -1000, null]);
  });

  it('NULL spellings: empty unquoted is NULL, "" is the empty string; blank lines', async () => {
    const p = await file('nulls.csv', 'a,b,c\n1,"",x\n,,""\n\n3,z,\n');
    const t = await expectSameAsDuckDB(p);
    expect([...t.getChild('a')!]).toEqual([1, null, 3]);
    expect([...t.getChild('b')!]).toEqual(['', null, 'z']);
    expect([...t.getChild('c')!]).toEqual(['x', '', null]);
    // one column: an empty line is a NULL row
    const one = await expectSameAsDuckDB(await file('one.csv', 'k\n1\n\n3\n'));
    expect([...one.getChild('k')!]).toEqual([1, null, 3]);
  });

  it('inferred types: BOOLEAN, INTEGER vs BIGINT, DOUBLE, DATE, TIMESTAMP, VARCHAR', async () => {
    const p = await file('types.csv', 'b,i,big,f,d,ts,s,allnull\nTRUE,1,9000000000,1.5,2024-01-02,2024-01-02 03:04:05,hi,\nf,-2,3,2,1999-12-31,2024-01-02T03:04:05.123456,7,\n,,,,,,,\n');
    const t = await expectSameAsDuckDB(p);
    expect(types(t)).toEqual(['b:Bool', 'i:Int32', 'big:Int64', 'f:Float64', 'd:Date32<DAY>', 'ts:Timestamp<MICROSECOND>', 's:Utf8', 'allnull:Utf8']);
    expect(t.getChild('big')!.get(0)).toBe(9000000000n);
    expect(t.getChild('ts')!.type).toBeInstanceOf(TimestampMicrosecond);
  });

  it('TIMESTAMPTZ: values with an offset are UTC instants', async () => {
    const t = await expectSameAsDuckDB(await file('tz.csv', 'ts\n2024-01-02 03:04:05+02\n2024-06-30T23:59:59.5Z\n1999-12-31 12:00:00-05:30\n'));
    expect(types(t)).toEqual(['ts:Timestamp<MICROSECOND, UTC>']);
    expect(t.getChild('ts')!.get(0)).toBe(Date.UTC(2024, 0, 2, 1, 4, 5));
  });

  it('header only and empty files', async () => {
    const h = await expectSameAsDuckDB(await file('header.csv', 'a,b\n'));
    expect(types(h)).toEqual(['a:Utf8', 'b:Utf8']);
    expect(h.numRows).toBe(0);
    const e = await readCsvFile(await file('empty.csv', ''));
    expect(e.numRows).toBe(0);
    expect(e.schema.fields).toEqual([]);
    const scan = await openScan(join(dir, 'empty.csv'));
    expect(scan.numRows).toBe(0);
  });

  it('wide: 300 columns of mixed types', async () => {
    const cols = 300;
    const head = Array.from({ length: cols }, (_, j) => `c${j}`).join(',');
    const rows = Array.from({ length: 40 }, (_, i) => Array.from({ length: cols }, (_, j) => (j % 3 === 0 ? String(i * j) : j % 3 === 1 ? (i % 5 === 0 ? '' : `${i / 4}`) : `"v${i},${j}"`)).join(','));
    const t = await expectSameAsDuckDB(await file('wide.csv', `${head}\n${rows.join('\n')}\n`), 7);
    expect(t.numCols).toBe(cols);
    expect(t.batches.length).toBe(6);
  });

  it.each([1, 7, 1000, 4096])('long: 10000 rows in batches of %i', async (batchSize) => {
    const lines = ['k,name,amount,day'];
    for (let i = 0; i < 10_000; i++) lines.push(`${i},${i % 13 === 0 ? '' : `"n${i % 97}"`},${(i * 0.25).toString()},2020-01-${String((i % 28) + 1).padStart(2, '0')}`);
    const p = join(dir, 'long.csv');
    await writeFile(p, lines.join('\n'));
    const t = await expectSameAsDuckDB(p, batchSize);
    expect(t.numRows).toBe(10_000);
    expect(t.batches.length).toBe(Math.ceil(10_000 / batchSize));
    expect(types(t)).toEqual(['k:Int32', 'name:Utf8', 'amount:Float64', 'day:Date32<DAY>']);
  });
});

describe('type inference past the sample', () => {
  it('widens a column whose later value does not fit, and never mangles a value', async () => {
    const lines = ['i,d,x'];
    for (let i = 0; i < 50; i++) lines.push(`${i},2024-01-01,${i}`);
    lines.push('99999999999,2024-01-01 10:00:00,oops');
    const p = await file('late.csv', lines.join('\n') + '\n');
    expect((await sniffCsv(p, { sampleRows: 10 })).types).toEqual(['INTEGER', 'DATE', 'INTEGER']);
    const t = await readCsvFile(p, { sampleRows: 10, batchSize: 16 });
    expect(types(t)).toEqual(['i:Int64', 'd:Timestamp<MICROSECOND>', 'x:Utf8']);
    expect(t.getChild('i')!.get(50)).toBe(99999999999n);
    expect(t.getChild('x')!.get(50)).toBe('oops');
    expect(t.getChild('x')!.get(7)).toBe('7');
    // VARCHAR keeps the text as written (no number round trip)
    const q = await readCsvFile(await file('text.csv', 'v\n1\n2\n+03\n1.50\nabc\n'), { sampleRows: 2 });
    expect([...q.getChild('v')!]).toEqual(['1', '2', '+03', '1.50', 'abc']);
  });

  it("onMismatch 'error' names the file, line and column (lines counted across a quoted CRLF)", async () => {
    const p = await file('bad-value.csv', 'id,note\r\n1,"a\r\nb"\r\n2,x\r\nthree,y\r\n');
    const err = await readCsvFile(p, { sampleRows: 2, onMismatch: 'error' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CsvValueError);
    expect(err).toBeInstanceOf(CorruptFileError);
    expect((err as CsvValueError).line).toBe(5);
    expect((err as Error).message).toMatch(/bad-value\.csv: line 5, column 'id': "three" is not a INTEGER/);
    // the streaming reader raises too
    const layout = await sniffCsv(p, { sampleRows: 2 });
    const stream = async () => {
      for await (const _ of readCsvBatches(p, layout)) void _;
    };
    await expect(stream()).rejects.toThrow(/line 5, column 'id'/);
    // a fixed type is never widened
    await expect(readCsvFile(p, { types: { id: 'INTEGER' } })).rejects.toBeInstanceOf(CsvValueError);
  });
});

describe('bad input is a typed error naming file and line', () => {
  it('a ragged row', async () => {
    const p = await file('ragged.csv', 'a,b\n1,2\n"x\ny",4\n5\n');
    const err = await readCsvFile(p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CsvReadError);
    expect((err as CsvReadError).line).toBe(5);
    expect((err as Error).message).toMatch(/ragged\.csv: line 5: a row of a different number of fields than the header/);
  });

  it('an unterminated quote', async () => {
    const p = await file('open-quote.csv', 'a,b\n1,2\n3,"never closed\n4,5\n');
    const err = await readCsvFile(p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CsvReadError);
    expect((err as Error).message).toMatch(/open-quote\.csv: line 3: a quoted field is never closed/);
  });

  it('a quote inside an unquoted field or after a closing quote', async () => {
    const p = await file('stray.csv', 'a,b\n1,"x"y\n');
    await expect(readCsvFile(p)).rejects.toThrow(/stray\.csv: line 2: /);
  });
});

describe('round trip of joinlab CSV output, header option, helpers', () => {
  it('what writeTable writes reads back to the same values and types', async () => {
    const t = new Table({
      i: vectorFromArray([1, null, -3], new Int32()),
      big: vectorFromArray([1n << 40n, null, -5n], new Int64()),
      f: vectorFromArray([0.1, NaN, -Infinity], new Float64()),
      d: vectorFromArray([new Date(Date.UTC(2024, 1, 29)), null, new Date(Date.UTC(1969, 11, 31))], new DateDay()),
      s: vectorFromArray(['', null, 'a "b",\nc'], new Utf8()),
    });
    const p = join(dir, 'ours.csv');
    await writeTable(p, t);
    const back = await readCsvFile(p);
    expect(types(back)).toEqual(['i:Int32', 'big:Int64', 'f:Float64', 'd:Date32<DAY>', 's:Utf8']);
    const r = compareResults(back, t);
    expect(r.equal, formatComparison(r)).toBe(true);
  });

  it('timestamps in nanoseconds and with a time zone read back exactly', async () => {
    const ns = [1_704_164_645_123_456_789n, -1n, 0n];
    const valid = new Uint8Array([0b011]);
    const ts = (type: TimestampNanosecond | TimestampMicrosecond, v: bigint[]) => makeVector(makeData({ type, length: 3, nullCount: 1, nullBitmap: valid, data: BigInt64Array.from(v) }));
    const t = new Table({ ns: ts(new TimestampNanosecond(), ns), tz: ts(new TimestampMicrosecond('UTC'), [1_704_164_645_123_456n, 0n, 0n]) });
    const p = join(dir, 'ts-ours.csv');
    await writeTable(p, t);
    const back = await readCsvFile(p);
    expect(types(back)).toEqual(['ns:Timestamp<NANOSECOND>', 'tz:Timestamp<MICROSECOND, UTC>']);
    expect(back.getChild('ns')!.data[0]!.values[0]).toBe(ns[0]);
    expect(back.getChild('ns')!.data[0]!.values[1]).toBe(-1n);
    const r = compareResults(back, t);
    expect(r.equal, formatComparison(r)).toBe(true);
  });

  it('a missing file or a directory is a typed error', async () => {
    await expect(readCsvFile(join(dir, 'nope.csv'))).rejects.toBeInstanceOf(FileNotFoundError);
    await expect(readCsvFile(dir)).rejects.toThrow(/directory/);
  });

  it('an unchanged file opened again while its table is alive is not parsed again', async () => {
    const p = await file('shared.csv', 'a\n1\n');
    const first = await readCsvFileShared(p, { batchSize: 10 });
    expect(await readCsvFileShared(p, { batchSize: 10 })).toBe(first);
    expect(await readCsvFileShared(p, { batchSize: 11 })).not.toBe(first);
    await writeFile(p, 'a\n1\n2\n');
    const changed = await readCsvFileShared(p, { batchSize: 10 });
    expect(changed).not.toBe(first);
    expect(changed.numRows).toBe(2);
  });

  it('header: false names columns column0..; quotedEmpties', async () => {
    const t = await readCsvFile(await file('nohead.csv', '1,x\n2,y\n'), { header: false });
    expect(types(t)).toEqual(['column0:Int32', 'column1:Utf8']);
    expect(t.numRows).toBe(2);
    expect([...quotedEmpties('"",,"a""b",""\r', ',')]).toEqual([0, 3]);
    const semi = await readCsvFile(await file('semi.csv', 'a;b\n1;"x;y"\n'), { delimiter: ';' });
    expect([...semi.getChild('b')!]).toEqual(['x;y']);
    await expect(readCsvFile(join(dir, 'semi.csv'), { delimiter: ';;' })).rejects.toThrow(/delimiter must be one character/);
  });
});

describe('a CSV input joined with a Parquet input', () => {
  it('equals DuckDB on the same files', async () => {
    const orders = ['oid,cid,amount,note'];
    for (let i = 0; i < 3000; i++) orders.push(`${i},${i % 11 === 0 ? '' : i % 53},${(i * 7) % 101}.5,"n,${i % 3}"`);
    const csv = await file('orders.csv', orders.join('\r\n') + '\r\n');
    const pq = join(dir, 'customers.parquet');
    await duck.run(`COPY (SELECT range::INTEGER AS cid, 'c' || range AS name FROM range(40)) TO '${pq}' (FORMAT parquet)`);
    const engine = await Engine.create({ batchSize: 500 });
    for (const type of ['inner', 'left', 'right-anti'] as const) {
      const { table } = await engine.join({ type, on: 'cid=cid', ...(type === 'right-anti' ? {} : { select: 'oid,amount,note,name' }) }, csv, pq);
      const sql = {
        inner: `SELECT l.oid, l.amount, l.note, r.name FROM read_csv('${csv}', allow_quoted_nulls = false) l JOIN '${pq}' r ON l.cid = r.cid`,
        left: `SELECT l.oid, l.amount, l.note, r.name FROM read_csv('${csv}', allow_quoted_nulls = false) l LEFT JOIN '${pq}' r ON l.cid = r.cid`,
        'right-anti': `SELECT * FROM '${pq}' r WHERE NOT EXISTS (SELECT 1 FROM read_csv('${csv}', allow_quoted_nulls = false) l WHERE l.cid = r.cid)`,
      }[type];
      const expected = await duck.query(sql);
      const r = compareResults(table, expected);
      expect(r.equal, `${type}: ${formatComparison(r)}`).toBe(true);
    }
  });
});
