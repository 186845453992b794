/**
 * `writeBatches`: every output format is written incrementally from an async source, reads back
 * to the same rows, and leaves neither the file nor a temp file when the source fails; the
 * Parquet writer fits its row group to the memory pool.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeVector, RecordBatch, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryLimitError } from '../../core/errors.ts';
import { MemoryPool } from '../../core/memory/pool.ts';
import { readTable, writeBatches } from './index.ts';
import { ParquetFileHandle } from './parquet.ts';

const dir = mkdtempSync(join(tmpdir(), 'joinlab-wb-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function batch(start: number, n: number): RecordBatch {
  const t = new Table({
    k: makeVector(Int32Array.from({ length: n }, (_, i) => start + i)),
    s: vectorFromArray(Array.from({ length: n }, (_, i) => (i % 5 === 0 ? null : `v${start + i}`)), new Utf8()),
  });
  return t.batches[0]!;
}
const schema = batch(0, 1).schema;

async function* source(batches: number, rows: number, failAfter = Infinity): AsyncGenerator<RecordBatch> {
  for (let b = 0; b < batches; b++) {
    if (b === failAfter) throw new Error('source failed');
    // each batch is built on its own (its own schema object), as operators produce them
    yield batch(b * rows, rows);
  }
}

const leftovers = () => readdirSync(dir).filter((f) => f.includes('.tmp-'));

describe('writeBatches', () => {
  for (const ext of ['parquet', 'arrow', 'csv']) {
    it(`${ext}: 7 batches written one by one read back the same (csv: row count)`, async () => {
      const path = join(dir, `out.${ext}`);
      expect(await writeBatches(path, schema, source(7, 1000))).toBe(7000);
      if (ext !== 'csv') {
        const t = await readTable(path);
        expect(t.numRows).toBe(7000);
        expect(t.getChild('k')!.get(6999)).toBe(6999);
        expect(t.getChild('s')!.get(5)).toBeNull();
        expect(t.getChild('s')!.get(6)).toBe('v6');
      }
      expect(leftovers()).toEqual([]);
    });

    it(`${ext}: a source that throws leaves no file and no temp file, and its own error`, async () => {
      const path = join(dir, `fail.${ext}`);
      await expect(writeBatches(path, schema, source(7, 1000, 3))).rejects.toThrow('source failed');
      expect(readdirSync(dir).filter((f) => f.startsWith('fail.') || f.startsWith('.fail.'))).toEqual([]);
    });

    it(`${ext}: no batches still writes a valid empty file with the schema`, async () => {
      const path = join(dir, `empty.${ext}`);
      expect(await writeBatches(path, schema, source(0, 0))).toBe(0);
      if (ext !== 'csv') {
        const t = await readTable(path);
        expect(t.numRows).toBe(0);
        expect(t.schema.fields.map((f) => f.name)).toEqual(['k', 's']);
      }
    });
  }

  it('parquet: the open row group is reserved in the pool, shrunk to fit, and refused below 1024 rows', async () => {
    const path = join(dir, 'pool.parquet');
    const pool = new MemoryPool(2_000_000);
    await writeBatches(path, schema, source(10, 10_000), { pool, parquet: { rowGroupSize: 100_000 } });
    expect(pool.reserved).toBe(0);
    expect(pool.peak).toBeGreaterThan(0);
    expect(pool.peak).toBeLessThanOrEqual(2_000_000);
    const h = await ParquetFileHandle.open(path);
    expect(h.rowGroups.length).toBeGreaterThan(1); // 100K rows would not fit in 2 MB
    const tiny = new MemoryPool(1000);
    await expect(writeBatches(join(dir, 'tiny.parquet'), schema, source(2, 10_000), { pool: tiny })).rejects.toThrow(MemoryLimitError);
    expect(leftovers()).toEqual([]);
  });
});
