/**
 * `readTable` puts what it reads in shared memory (an IPC file read straight into a
 * `SharedArrayBuffer`, a Parquet file's decoded bytes copied there once), so a join at `threads` > 1
 * hands its morsels to the workers without copying them (`morselBytesCopied` = 0).
 */
import { Table, Utf8, vectorFromArray, type Data } from 'apache-arrow';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { isShared } from '../../core/parallel/wire.ts';
import { WorkerPool } from '../../core/parallel/worker-pool.ts';
import { compareResults } from '../duckdb/compare.ts';
import { readTable, writeTable } from './index.ts';

const n = 20_000;
const probeSide = new Table({
  k: vectorFromArray(Int32Array.from({ length: n }, (_, i) => (i * 7919) % 1500)),
  s: vectorFromArray(Array.from({ length: n }, (_, i) => (i % 11 === 0 ? null : `row ${i}`)), new Utf8()),
});
const buildSide = new Table({ k: vectorFromArray(Int32Array.from({ length: 1000 }, (_, i) => i)), v: vectorFromArray(Int32Array.from({ length: 1000 }, (_, i) => i * 2)) });

function buffersShared(d: Data): boolean {
  const views = [d.valueOffsets, d.values, d.nullBitmap].filter((v): v is NonNullable<typeof v> => v !== undefined && v !== null && v.byteLength > 0);
  return views.every(isShared) && d.children.every(buffersShared);
}

describe('tables read from files are in shared memory', () => {
  afterAll(() => WorkerPool.closeAll());

  for (const file of ['probe.arrow', 'probe.parquet']) {
    it(`${file}: every buffer shared, the same rows, and a join at threads=2 copies no morsel`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'joinlab-shared-read-'));
      try {
        await writeTable(join(dir, file), probeSide);
        const read = await readTable(join(dir, file));
        expect(compareResults(probeSide, read).equal).toBe(true);
        for (const b of read.batches) for (const d of b.data.children) expect(buffersShared(d)).toBe(true);
        const engine = await Engine.create({ join: 'hash', 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0, threads: 2, batchSize: 1024, 'hash.build': 'right' });
        const want = await engine.join({ type: 'inner', on: 'k=k' }, probeSide, buildSide);
        const got = await engine.join({ type: 'inner', on: 'k=k' }, read, buildSide);
        expect(compareResults(want.table, got.table).equal).toBe(true);
        expect(want.metrics.operators.join!.counters.morselBytesCopied).toBeGreaterThan(0);
        expect(got.metrics.operators.join!.details.threads).toBe('2');
        expect(got.metrics.operators.join!.counters.morselBytesCopied ?? 0).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
