import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Field, Int32, Int64, makeVector, Struct, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MissingColumnError, UnsortedInputError, UnsupportedTypeError, UsageError } from '../../core/errors.ts';
import { ProjectedScan } from '../../core/scan/projected-scan.ts';
import type { ScanSortColumn } from '../../core/scan/scan.ts';
import { writeSortedParquet } from '../datagen/sorted-parquet.ts';
import { footerTail } from './parquet-footer.ts';
import { ParquetScan } from './parquet-scan.ts';
import { declareParquetSortOrder, readParquetFile, writeParquetFile } from './parquet.ts';
import { T_I32, T_LIST, T_STRUCT, T_TRUE, ThriftReader, ThriftWriter, tlist, tstruct, twith, type TStruct } from './thrift.ts';

let dir: string;
let duck: DuckDBConnection;
let n = 0;
const file = (): string => join(dir, `f${n++}.parquet`);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-sorted-'));
  duck = await (await DuckDBInstance.create(':memory:')).connect();
});
afterAll(async () => {
  duck.closeSync();
  await rm(dir, { recursive: true, force: true });
});

const asc = (column: string): ScanSortColumn => ({ column, descending: false, nullsFirst: false });

/** Rewrite a file's footer with `declare(rowGroup)` as that row group's sorting_columns (leaf, desc, nulls first). */
async function declareRaw(path: string, declare: (rg: number) => [number, boolean, boolean][] | null, options: { dropStats?: boolean } = {}): Promise<void> {
  const bytes = new Uint8Array(await readFile(path));
  const len = new DataView(bytes.buffer, bytes.byteOffset).getUint32(bytes.length - 8, true);
  const start = bytes.length - 8 - len;
  const raw = new ThriftReader(bytes, start, bytes.length - 8).struct();
  const rgs = tlist(raw, 4)!;
  const items = (rgs.items as TStruct[]).map((rg, r) => {
    const d = declare(r);
    const list = d === null ? null : { elemType: T_STRUCT, items: d.map(([c, desc, nf]): TStruct => [{ id: 1, type: T_I32, value: c }, { id: 2, type: T_TRUE, value: desc }, { id: 3, type: T_TRUE, value: nf }]) };
    const cols = tlist(rg, 1)!;
    const chunks = (cols.items as TStruct[]).map((c) => (options.dropStats ? twith(c, [[3, T_STRUCT, twith(tstruct(c, 3)!, [[12, T_STRUCT, null]])]]) : c));
    return twith(rg, [[1, T_LIST, { elemType: cols.elemType, items: chunks }], [4, T_LIST, list]]);
  });
  const w = new ThriftWriter();
  w.struct(twith(raw, [[4, T_LIST, { elemType: rgs.elemType, items }]]));
  const tail = footerTail(w.bytes());
  const out = new Uint8Array(start + tail.length);
  out.set(bytes.subarray(0, start));
  out.set(tail, start);
  await writeFile(path, out);
}

async function sortedOnOf(path: string): Promise<readonly ScanSortColumn[] | undefined> {
  return (await ParquetScan.open(path)).sortedOn;
}

const ints = (xs: ArrayLike<number>) => makeVector(Int32Array.from(xs));

describe('ParquetScan.sortedOn from sorting_columns', () => {
  it('is undefined without sorting_columns', async () => {
    const p = file();
    await writeParquetFile(p, new Table({ k: ints([1, 2, 3]) }), { rowGroupSize: 1 });
    expect(await sortedOnOf(p)).toBeUndefined();
  });

  it('claims one ascending column over many row groups; the footer stays valid for DuckDB', async () => {
    const p = file();
    const k = Int32Array.from({ length: 1000 }, (_, i) => Math.floor(i / 3)); // ties across boundaries
    await writeParquetFile(p, new Table({ k: makeVector(k), v: ints(k.map((x) => -x)) }), { rowGroupSize: 100, sortedOn: [{ column: 'k' }] });
    const scan = await ParquetScan.open(p);
    expect(scan.numContainers).toBe(10);
    expect(scan.sortedOn).toEqual([asc('k')]);
    const r = await duck.runAndReadAll(`SELECT count(*), sum(k), min(v) FROM '${p}'`);
    expect(r.getRows()).toEqual([[1000n, BigInt(k.reduce((s, x) => s + x, 0)), -333]]);
    expect((await readParquetFile(p)).getChild('k')!.toArray()).toEqual(k);
  });

  it('claims several columns when the next column decides tied boundaries', async () => {
    // a ties across every boundary (a = i // 150, row groups of 100); b = i rises throughout
    const a = Array.from({ length: 600 }, (_, i) => Math.floor(i / 150));
    const p = file();
    await writeParquetFile(p, new Table({ a: ints(a), b: ints(a.map((_, i) => i)) }), { rowGroupSize: 100, sortedOn: [{ column: 'a' }, { column: 'b' }] });
    expect(await sortedOnOf(p)).toEqual([asc('a'), asc('b')]);
    // b restarts with each a: within a row group (a, b) is sorted, but b's bounds overlap at a tied boundary
    const q = file();
    await writeParquetFile(q, new Table({ a: ints(a), b: ints(a.map((_, i) => i % 150)) }), { rowGroupSize: 100, sortedOn: [{ column: 'a' }, { column: 'b' }] });
    expect(await sortedOnOf(q)).toEqual([asc('a')]);
  });

  it('claims DESC NULLS FIRST and ASC NULLS LAST, with NULLs spanning row groups', async () => {
    const k = Array.from({ length: 500 }, (_, i) => (i % 4 === 0 ? null : (i * 7919) % 1000));
    const s = k.map((x) => (x === null ? null : `s${String(x).padStart(4, '0')}`));
    const table = new Table({ k: vectorFromArray(k, new Int32()), s: vectorFromArray(s, new Utf8()) });
    const p = file();
    expect(await writeSortedParquet(p, table, [{ column: 'k', descending: true, nullsFirst: true }], { rowGroupSize: 50 })).toEqual([
      { column: 'k', descending: true, nullsFirst: true },
    ]);
    expect(await sortedOnOf(p)).toEqual([{ column: 'k', descending: true, nullsFirst: true }]);
    const got = [...(await readParquetFile(p)).getChild('k')!] as (number | null)[];
    expect(got.slice(0, 125).every((x) => x === null)).toBe(true);
    expect(got.slice(125)).toEqual((k.filter((x) => x !== null) as number[]).sort((x, y) => y - x));
    const q = file();
    await writeSortedParquet(q, table, [{ column: 's' }, { column: 'k' }], { rowGroupSize: 50 });
    expect(await sortedOnOf(q)).toEqual([asc('s'), asc('k')]);
  });

  it('orders strings byte-wise (UTF-8), not by UTF-16 code units', async () => {
    const p = file();
    // U+FF5E < U+1F600 in UTF-8 bytes (DuckDB's order); the other way round in UTF-16 code units
    const table = new Table({ s: vectorFromArray(['\u{1F600}', '\uFF5E', 'a'], new Utf8()) });
    await writeSortedParquet(p, table, [{ column: 's' }], { rowGroupSize: 1 });
    expect([...(await readParquetFile(p)).getChild('s')!]).toEqual(['a', '\uFF5E', '\u{1F600}']);
    expect(await sortedOnOf(p)).toEqual([asc('s')]);
  });

  it('claims nothing when row groups overlap, and a prefix when only a later column does', async () => {
    // each row group sorted, but the second starts below the first's max
    const p = file();
    await writeParquetFile(p, new Table({ k: ints([1, 5, 9, 4, 6, 8]), v: ints([0, 0, 0, 0, 0, 0]) }), { rowGroupSize: 3 });
    await declareRaw(p, () => [[0, false, false]]);
    expect(await sortedOnOf(p)).toBeUndefined();
    // max(rg0) == min(rg1) is a tie, fine for k; v then overlaps (9 > 1): only k
    const q = file();
    await writeParquetFile(q, new Table({ k: ints([1, 5, 9, 9, 9, 10]), v: ints([0, 0, 9, 1, 2, 0]) }), { rowGroupSize: 3 });
    await declareRaw(q, () => [[0, false, false], [1, false, false]]);
    expect(await sortedOnOf(q)).toEqual([asc('k')]);
  });

  it('claims across row groups only with statistics', async () => {
    const p = file();
    await writeParquetFile(p, new Table({ k: ints([1, 2, 3, 4]) }), { rowGroupSize: 2 });
    await declareRaw(p, () => [[0, false, false]], { dropStats: true });
    expect(await sortedOnOf(p)).toBeUndefined();
    const one = file();
    await writeParquetFile(one, new Table({ k: ints([1, 2, 3, 4]) }));
    await declareRaw(one, () => [[0, false, false]], { dropStats: true });
    expect(await sortedOnOf(one)).toEqual([asc('k')]);
  });

  it('needs every row group to declare the order: common prefix, or nothing', async () => {
    const p = file();
    await writeParquetFile(p, new Table({ k: ints([1, 2, 3, 4]), v: ints([1, 2, 3, 4]) }), { rowGroupSize: 2 });
    await declareRaw(p, (rg) => (rg === 0 ? [[0, false, false], [1, false, false]] : [[0, false, false]]));
    expect(await sortedOnOf(p)).toEqual([asc('k')]);
    await declareRaw(p, (rg) => (rg === 0 ? [[0, false, false]] : null));
    expect(await sortedOnOf(p)).toBeUndefined();
    await declareRaw(p, (rg) => (rg === 0 ? [[0, false, false]] : [[0, true, false]]));
    expect(await sortedOnOf(p)).toBeUndefined();
    // stats say DESC does not hold across the boundary: k rises
    await declareRaw(p, () => [[0, true, false]]);
    expect(await sortedOnOf(p)).toBeUndefined();
  });

  it('stops the claim at a leaf of a nested column, a bad index or a repeated column', async () => {
    const p = file();
    const nested = new Table({
      st: vectorFromArray([{ x: 1 }, { x: 2 }], new Struct([new Field('x', new Int32(), true)])),
      k: ints([1, 2]),
    });
    await writeParquetFile(p, nested);
    await declareRaw(p, () => [[0, false, false], [1, false, false]]);
    expect(await sortedOnOf(p)).toBeUndefined();
    await declareRaw(p, () => [[1, false, false], [0, false, false]]);
    expect(await sortedOnOf(p)).toEqual([asc('k')]);
    await declareRaw(p, () => [[1, false, false], [1, true, false]]);
    expect(await sortedOnOf(p)).toEqual([asc('k')]);
    await declareRaw(p, () => [[7, false, false]]);
    expect(await sortedOnOf(p)).toBeUndefined();
  });

  it('claims a float column only in a single row group (a NaN may hide in any chunk)', async () => {
    const f = new Table({ f: makeVector(Float64Array.from([0.5, 1.5, 2.5, 3.5])) });
    const one = file();
    await writeParquetFile(one, f, { sortedOn: [{ column: 'f' }] });
    expect(await sortedOnOf(one)).toEqual([asc('f')]);
    const many = file();
    await writeParquetFile(many, f, { rowGroupSize: 2, sortedOn: [{ column: 'f' }] });
    expect(await sortedOnOf(many)).toBeUndefined();
  });

  it('is kept by a projection up to its first dropped column', async () => {
    const p = file();
    const a = Array.from({ length: 300 }, (_, i) => i);
    await writeParquetFile(p, new Table({ a: ints(a), b: ints(a), c: ints(a) }), { rowGroupSize: 100, sortedOn: [{ column: 'a' }, { column: 'b' }] });
    const scan = await ParquetScan.open(p);
    expect(new ProjectedScan(scan, ['a', 'c']).sortedOn).toEqual([asc('a')]);
    expect(new ProjectedScan(scan, ['b', 'a']).sortedOn).toEqual([asc('a'), asc('b')]);
    expect(new ProjectedScan(scan, ['b', 'c']).sortedOn).toEqual([]);
    // a projected decode hands the decoder a sub-file without sorting_columns (their leaf indices
    // would point past its columns): no fallback to whole row groups
    let rows = 0;
    for await (const b of new ProjectedScan(scan, ['c']).batches()) rows += b.numRows;
    expect(rows).toBe(300);
    expect(scan.handle.fallbackDecodes).toBe(0);
  });
});

describe('writing sorting_columns', () => {
  it('refuses rows out of the declared order and writes nothing', async () => {
    const p = file();
    const t = new Table({ k: ints([1, 3, 2]) });
    await expect(writeParquetFile(p, t, { sortedOn: [{ column: 'k' }] })).rejects.toThrow(UnsortedInputError);
    await expect(writeParquetFile(p, t, { sortedOn: [{ column: 'k' }] })).rejects.toThrow(/row 2 sorts before row 1/);
    expect(existsSync(p)).toBe(false);
  });

  it('refuses unknown and nested columns before writing', async () => {
    const p = file();
    await expect(writeParquetFile(p, new Table({ k: ints([1]) }), { sortedOn: [{ column: 'x' }] })).rejects.toThrow(MissingColumnError);
    const nested = new Table({ st: vectorFromArray([{ x: 1 }], new Struct([new Field('x', new Int32(), true)])) });
    await expect(writeParquetFile(p, nested, { sortedOn: [{ column: 'st' }] })).rejects.toThrow(UnsupportedTypeError);
    expect(existsSync(p)).toBe(false);
  });

  it('checks the order across streamed batches', async () => {
    const p = file();
    const t = new Table([new Table({ k: ints([1, 2]) }).batches[0]!, new Table({ k: ints([2, 1]) }).batches[0]!]);
    await expect(writeParquetFile(p, t, { sortedOn: [{ column: 'k' }] })).rejects.toThrow(/row 3 sorts before row 2/);
    expect(existsSync(p)).toBe(false);
  });

  it('declares an order on a file DuckDB wrote (COPY … ORDER BY), which DuckDB still reads', async () => {
    const p = file();
    await duck.run(`COPY (SELECT (i // 10)::BIGINT AS k, i::BIGINT AS id FROM range(5000) t(i) ORDER BY k, id) TO '${p}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
    expect(await sortedOnOf(p)).toBeUndefined();
    await declareParquetSortOrder(p, [{ column: 'k' }, { column: 'id' }]);
    const scan = await ParquetScan.open(p);
    expect(scan.numContainers).toBeGreaterThan(1);
    expect(scan.sortedOn).toEqual([asc('k'), asc('id')]);
    expect((await duck.runAndReadAll(`SELECT count(*), max(k) FROM '${p}'`)).getRows()).toEqual([[5000n, 499n]]);
    await declareParquetSortOrder(p, []);
    expect(await sortedOnOf(p)).toBeUndefined();
    await expect(declareParquetSortOrder(p, [{ column: 'nope' }])).rejects.toThrow(MissingColumnError);
    // DESC on k: k ties at each boundary, and id's bounds overlap there (each row group spans
    // many k, so its ids do not rise from one row group to the next): only k is claimed
    const q = file();
    await duck.run(`COPY (SELECT (i // 10)::BIGINT AS k, i::BIGINT AS id FROM range(5000) t(i) ORDER BY k DESC, id) TO '${q}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
    await declareParquetSortOrder(q, [{ column: 'k', descending: true }, { column: 'id' }]);
    expect(await sortedOnOf(q)).toEqual([{ column: 'k', descending: true, nullsFirst: false }]);
  });

  it('writeSortedParquet sorts stably and declares what it sorted on', async () => {
    const p = file();
    const k = [3, 1, 2, 1, 3, 2];
    const t = new Table({ k: makeVector(BigInt64Array.from(k.map(BigInt))), pos: ints(k.map((_, i) => i)), v: makeVector(Float64Array.from(k)) });
    expect(t.schema.fields[0]!.type).toBeInstanceOf(Int64);
    await writeSortedParquet(p, t, [{ column: 'k' }], { rowGroupSize: 2 });
    const back = await readParquetFile(p);
    expect([...back.getChild('pos')!]).toEqual([1, 3, 2, 5, 0, 4]);
    expect(await sortedOnOf(p)).toEqual([asc('k')]);
    await expect(writeSortedParquet(file(), t, [])).rejects.toThrow(UsageError);
    expect([...back.getChild('v')!]).toEqual([1, 1, 2, 2, 3, 3]);
  });
});
