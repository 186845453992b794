import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Int32, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../core/errors.ts';
import { MemoryScan } from '../../operators/memory-scan/memory-scan.ts';
import { openScan } from './open.ts';
import { ParquetScan } from './parquet-scan.ts';
import { formatOf, openScanFor, readTable, writeTable } from './index.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-io-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const table = () => new Table({ k: vectorFromArray([1, 2, null], new Int32()), s: vectorFromArray(['a', 'b,c', null], new Utf8()) });

describe('dispatch by extension', () => {
  it('formatOf', () => {
    expect(formatOf('a.parquet')).toBe('parquet');
    expect(formatOf('A.PQ')).toBe('parquet');
    expect(formatOf('a.arrow')).toBe('arrow');
    expect(formatOf('a.ipc')).toBe('arrow');
    expect(formatOf('a.feather')).toBe('arrow');
    expect(formatOf('a.csv')).toBe('csv');
    expect(() => formatOf('a.json')).toThrow(UsageError);
    expect(() => formatOf('a.json')).toThrow(/supported: .parquet, .pq, .arrow/);
  });

  it.each(['t.parquet', 't.arrow', 't.feather'])('writeTable/readTable round trip through %s', async (name) => {
    const p = join(dir, name);
    await writeTable(p, table());
    const back = await readTable(p);
    expect([...back.getChild('k')!]).toEqual([1, 2, null]);
    expect([...back.getChild('s')!]).toEqual(['a', 'b,c', null]);
  });

  it('CSV reads back what writeTable wrote; scanning it gives a MemoryScan sourced by its path', async () => {
    const p = join(dir, 't.csv');
    await writeTable(p, table());
    expect(await readFile(p, 'utf8')).toBe('k,s\n1,a\n2,"b,c"\n,\n');
    const back = await readTable(p);
    expect(String(back.schema.fields[0]!.type)).toBe('Int32');
    expect([...back.getChild('k')!]).toEqual([1, 2, null]);
    expect([...back.getChild('s')!]).toEqual(['a', 'b,c', null]);
    const scan = await openScanFor(p);
    expect(scan).toBeInstanceOf(MemoryScan);
    expect(scan.source).toBe(p);
    expect(scan.numRows).toBe(3);
  });

  it('unknown extensions are a UsageError for every entry point', async () => {
    const p = join(dir, 't.txt');
    await writeFile(p, 'x');
    await expect(readTable(p)).rejects.toBeInstanceOf(UsageError);
    await expect(writeTable(p, table())).rejects.toBeInstanceOf(UsageError);
    await expect(openScanFor(p)).rejects.toBeInstanceOf(UsageError);
  });
});

describe('openScan / openScanFor', () => {
  it('a Table -> MemoryScan named memory:<name>', async () => {
    const scan = await openScan(table(), 'left');
    expect(scan).toBeInstanceOf(MemoryScan);
    expect(scan.source).toBe('memory:left');
    expect(scan.numRows).toBe(3);
  });

  it('.parquet -> ParquetScan with row groups as containers', async () => {
    const p = join(dir, 'scan.parquet');
    await writeTable(p, table(), { parquet: { rowGroupSize: 2 } });
    const scan = await openScanFor(p);
    expect(scan).toBeInstanceOf(ParquetScan);
    expect(scan.source).toBe(p);
    expect(scan.numContainers).toBe(2);
    expect(scan.numRows).toBe(3);
  });

  it('.arrow -> MemoryScan over the IPC table, sourced by its path', async () => {
    const p = join(dir, 'scan.arrow');
    await writeTable(p, table());
    const scan = await openScan(p, 'right');
    expect(scan).toBeInstanceOf(MemoryScan);
    expect(scan.source).toBe(p);
    let rows = 0;
    for await (const b of scan.batches({ columns: ['s'] })) rows += b.numRows;
    expect(rows).toBe(3);
  });
});
