import { copyFile, mkdtemp, readFile, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeVector, Table, Utf8, vectorFromArray, type RecordBatch } from 'apache-arrow';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CancelledError, CorruptFileError, FileNotFoundError, MissingColumnError } from '../../core/errors.ts';
import { writeParquetFile } from './parquet.ts';
import { ParquetScan } from './parquet-scan.ts';
import { betweenPredicate } from '../../core/scan/fixtures/between-predicate.ts';
import { DynamicFilter } from '../../core/scan/scan.ts';

const between = betweenPredicate;

async function collect(it: AsyncIterable<RecordBatch>): Promise<RecordBatch[]> {
  const out: RecordBatch[] = [];
  for await (const b of it) out.push(b);
  return out;
}

function column(batches: RecordBatch[], name: string): unknown[] {
  return batches.flatMap((b) => [...b.getChild(name)!]);
}

let dir: string;
let path: string; // 1000 rows, row groups of 100: row group g holds k in [100g, 100g+99]

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-pscan-'));
  path = join(dir, 'probe.parquet');
  const n = 1000;
  const k = Int32Array.from({ length: n }, (_, i) => i);
  await writeParquetFile(
    path,
    new Table({
      k: makeVector(k),
      payload: vectorFromArray(Array.from(k, (x) => `p${x}`), new Utf8()),
      wide: vectorFromArray(Array.from(k, (x) => 'w'.repeat(50) + x), new Utf8()),
    }),
    { rowGroupSize: 100 },
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ParquetScan', () => {
  it('reports footer metadata without decoding', async () => {
    const scan = await ParquetScan.open(path);
    expect(scan.source).toBe(path);
    expect(scan.numRows).toBe(1000);
    expect(scan.numContainers).toBe(10);
    expect(scan.schema.fields.map((f) => f.name)).toEqual(['k', 'payload', 'wide']);
    expect(scan.metrics.rowsDecoded).toBe(0);
  });

  it('without a filter yields every row', async () => {
    const scan = await ParquetScan.open(path);
    const out = await collect(scan.batches({ columns: ['k'] }));
    expect(column(out, 'k')).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(scan.metrics).toMatchObject({ containersTotal: 10, containersPruned: 0, rowsDecoded: 1000, rowsAfterFilter: 1000 });
  });

  it('prunes exactly the row groups outside the bounds before decoding; metrics add up', async () => {
    const scan = await ParquetScan.open(path);
    const decode = vi.spyOn(scan.handle, 'decodeRowGroups');
    const filter = new DynamicFilter();
    const p = between('k', 250, 420); // overlaps row groups 2, 3, 4
    filter.publish(p);
    const out = await collect(scan.batches({ filter, columns: ['payload'], lateMaterialization: 'off' }));
    expect(p.tested).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(column(out, 'payload')).toEqual(Array.from({ length: 171 }, (_, i) => `p${250 + i}`));
    expect(out[0]!.schema.fields.map((f) => f.name)).toEqual(['payload']);
    // only kept row groups, only requested ∪ predicate columns
    const decoded = decode.mock.calls.flatMap((c) => c[0]);
    expect(decoded).toEqual([2, 3, 4]);
    for (const c of decode.mock.calls) expect([...c[1]!].sort()).toEqual(['k', 'payload']);
    const m = scan.metrics;
    const rgs = scan.handle.rowGroups;
    const bytes = (r: number) => rgs[r]!.columnBytes('k') + rgs[r]!.columnBytes('payload');
    expect(m.containersTotal).toBe(10);
    expect(m.containersPruned).toBe(7);
    expect(m.rowsDecoded).toBe(300);
    expect(m.rowsAfterFilter).toBe(171);
    expect(m.bytesDecoded).toBe(bytes(2) + bytes(3) + bytes(4));
    expect(m.bytesSkipped).toBe([0, 1, 5, 6, 7, 8, 9].reduce((s, r) => s + bytes(r), 0));
    expect(m.bytesDecoded).toBeLessThan(rgs[2]!.uncompressedBytes * 3); // 'wide' was never decoded
    expect(scan.handle.fallbackDecodes).toBe(0);

    // late: the predicate's column first, then the requested one — the same rows and bytes
    const lateScan = await ParquetScan.open(path);
    const lateDecode = vi.spyOn(lateScan.handle, 'decodeRowGroups');
    const lateOut = await collect(lateScan.batches({ filter, columns: ['payload'] }));
    expect(column(lateOut, 'payload')).toEqual(column(out, 'payload'));
    expect(lateDecode.mock.calls.map((c) => [c[0], c[1]])).toEqual([[[2, 3, 4], ['k']], [[2, 3, 4], ['payload']]]); // one run of three small row groups
    expect(lateScan.metrics).toMatchObject({ rowsDecoded: 300, rowsAfterFilter: 171, bytesDecoded: m.bytesDecoded, rowsNotDecoded: 0 });
  });

  it('reads the file by ranges: the footer at open, then only the chunks of kept row groups and needed columns', async () => {
    const size = (await stat(path)).size;
    const scan = await ParquetScan.open(path);
    // the footer (0 when an earlier open of the unchanged file left it parsed)
    const footerOnly = scan.handle.bytesRead;
    expect(footerOnly).toBeLessThan(size / 4);
    const filter = new DynamicFilter();
    filter.publish(between('k', 250, 420));
    await collect(scan.batches({ filter, columns: ['k'] }));
    expect(scan.metrics.bytesRead).toBe(scan.handle.bytesRead);
    // three of ten row groups, two of three columns (k, and nothing else: the predicate reads k)
    expect(scan.handle.bytesRead - footerOnly).toBeLessThan((size - footerOnly) * 0.15);
    const all = await ParquetScan.open(path);
    await collect(all.batches());
    const tail = (await readFile(path)).subarray(size - 8);
    const footerBytes = new DataView(tail.buffer, tail.byteOffset).getUint32(0, true) + 12;
    expect(all.handle.bytesRead).toBeGreaterThan((size - footerBytes) * 0.8);
  });

  it('an unchanged file reopened reuses its parsed footer; a rewritten one is parsed again', async () => {
    const p = join(dir, 'cached.parquet');
    await copyFile(path, p);
    const first = await ParquetScan.open(p);
    expect(first.handle.bytesRead).toBeGreaterThan(0);
    const again = await ParquetScan.open(p);
    expect(again.handle.bytesRead).toBe(0);
    expect(again.schema).toBe(first.schema);
    await rm(p);
    await copyFile(path, p); // a new inode
    const fresh = await ParquetScan.open(p);
    expect(fresh.handle.bytesRead).toBeGreaterThan(0);
    expect((await collect(fresh.batches())).reduce((n, b) => n + b.numRows, 0)).toBe(first.numRows);
  });

  it('a file replaced or deleted after open is a typed error, never a decode of other bytes', async () => {
    const p = join(dir, 'moving.parquet');
    await copyFile(path, p);
    const scan = await ParquetScan.open(p);
    await truncate(p, (await stat(p)).size - 100);
    await expect(collect(scan.batches())).rejects.toThrow(CorruptFileError);
    await expect(collect(scan.batches())).rejects.toThrow(/changed while being read/);
    await rm(p);
    await expect(collect(scan.batches())).rejects.toThrow(FileNotFoundError);
  });

  it('keeps row groups that merely touch the bounds', async () => {
    const scan = await ParquetScan.open(path);
    const filter = new DynamicFilter();
    filter.publish(between('k', 199, 200));
    const out = await collect(scan.batches({ filter }));
    expect(column(out, 'k')).toEqual([199, 200]);
    expect(scan.metrics.containersPruned).toBe(8);
    expect(scan.metrics.rowsDecoded).toBe(200);
  });

  it('decodes kept row groups in bounded runs', async () => {
    const scan = await ParquetScan.open(path, { runRows: 250 });
    const decode = vi.spyOn(scan.handle, 'decodeRowGroups');
    await collect(scan.batches());
    expect(decode.mock.calls.map((c) => c[0])).toEqual([[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]);
  });

  it('honours a filter published after the first container', async () => {
    const scan = await ParquetScan.open(path, { runRows: 1 });
    const filter = new DynamicFilter();
    const seen: number[][] = [];
    for await (const b of scan.batches({ filter, columns: ['k'] })) {
      seen.push([...b.getChild('k')!] as number[]);
      if (seen.length === 1) filter.publish(between('k', 731, 733));
    }
    expect(seen).toEqual([Array.from({ length: 100 }, (_, i) => i), [731, 732, 733]]);
    expect(scan.metrics).toMatchObject({ containersTotal: 10, containersPruned: 8, rowsDecoded: 200, rowsAfterFilter: 103 });
  });

  it('applies a filter published mid-run row-wise to the batches already decoded', async () => {
    const scan = await ParquetScan.open(path, { runRows: 1000, batchSize: 100 }); // one run, 10 batches
    const filter = new DynamicFilter();
    let rows = 0;
    for await (const b of scan.batches({ filter, columns: ['payload'] })) {
      rows += b.numRows;
      if (rows === 100) filter.publish(between('k', 450, 452));
    }
    // 'k' was not decoded for this run, so the new filter cannot be applied to it: rows are kept
    expect(rows).toBe(1000);
    const scan2 = await ParquetScan.open(path, { runRows: 1000, batchSize: 100 });
    const filter2 = new DynamicFilter();
    const seen2: number[] = [];
    for await (const b of scan2.batches({ filter: filter2, columns: ['k'] })) {
      seen2.push(...([...b.getChild('k')!] as number[]));
      if (seen2.length === 100) filter2.publish(between('k', 450, 452)); // k decoded: applies row-wise
    }
    expect(seen2).toEqual([...Array.from({ length: 100 }, (_, i) => i), 450, 451, 452]);
    expect(scan2.metrics).toMatchObject({ containersPruned: 0, rowsDecoded: 1000, rowsAfterFilter: 103 });
  });

  it('throws MissingColumnError for unknown requested or predicate columns', async () => {
    const scan = await ParquetScan.open(path);
    await expect(collect(scan.batches({ columns: ['nope'] }))).rejects.toBeInstanceOf(MissingColumnError);
    const filter = new DynamicFilter();
    filter.publish(between('zz', 0, 1));
    await expect(collect(scan.batches({ filter }))).rejects.toThrow(/column 'zz' not found/);
  });

  it('stops with CancelledError once the signal aborts', async () => {
    const scan = await ParquetScan.open(path, { runRows: 100 });
    const ac = new AbortController();
    let n = 0;
    await expect(
      (async () => {
        for await (const _ of scan.batches({ signal: ac.signal })) {
          n++;
          ac.abort();
        }
      })(),
    ).rejects.toBeInstanceOf(CancelledError);
    expect(n).toBe(1);
  });

  it('on a DuckDB-written file returns what DuckDB returns for the same predicate', async () => {
    const duck = await DuckDBInstance.create(':memory:');
    const con = await duck.connect();
    try {
      const p = join(dir, 'duck.parquet');
      await con.run(
        `COPY (SELECT (i * 7919 % 20000)::BIGINT AS k, i AS id FROM range(20000) t(i) ORDER BY k) TO '${p}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`,
      );
      const r = await con.runAndReadAll(`SELECT count(*)::INTEGER, sum(id)::DOUBLE FROM read_parquet('${p}') WHERE k BETWEEN 5000 AND 6000`);
      const [count, sum] = r.getRowsJS()[0] as [number, number];
      const scan = await ParquetScan.open(p);
      const filter = new DynamicFilter();
      filter.publish(between('k', 5000, 6000));
      const out = await collect(scan.batches({ filter, columns: ['id'] }));
      const ids = column(out, 'id') as bigint[];
      expect(ids.length).toBe(count);
      expect(ids.reduce((s, x) => s + Number(x), 0)).toBe(sum);
      expect(scan.metrics.containersPruned).toBeGreaterThan(scan.numContainers / 2);
      expect(scan.metrics.containersTotal).toBe(scan.numContainers);
    } finally {
      con.closeSync();
      duck.closeSync();
    }
  });
});
