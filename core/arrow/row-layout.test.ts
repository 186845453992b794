/**
 * The row layout gathers exactly what the columnar gather does: every layable type (fixed widths
 * 1..16 bytes, booleans, strings and binary short and long), NULLs in the source and NULL-padded
 * rows (-1), sliced source columns, chunk boundaries, and a layout shared and restored.
 */
import { Table, vectorFromArray, Utf8, type RecordBatch } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { LOGICAL_TYPES, randomTable, type ColumnGen } from '../../adapters/datagen/random-tables.ts';
import { Rng } from '../random.ts';
import { concatBatches, gatherColumns, makeRecordBatch, RowSource } from './gather.ts';
import { RowLayout } from './row-layout.ts';

function randomBatch(seed: number, rows: number): RecordBatch {
  const rng = new Rng(seed);
  const columns: ColumnGen[] = LOGICAL_TYPES.map((type, i) => ({ name: `c${i}_${type}`, type, domain: 1 + rng.int(0, 4999), nullRate: rng.int(0, 2) === 0 ? 0 : 0.2 }));
  const t = randomTable(rng, columns, rows, rows);
  // strings longer than the 12 bytes a row holds inline, NULLs among them
  const long = vectorFromArray(Array.from({ length: rows }, (_, i) => (i % 7 === 3 ? null : `${'x'.repeat(i % 30)}-${i}`)), new Utf8());
  const withLong = t.assign(new Table({ long }));
  return concatBatches(withLong.batches, withLong.schema);
}

const values = (t: Table) => t.toArray().map((r) => JSON.stringify(r.toJSON(), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? Array.from(v) : v)));

describe('RowLayout', () => {
  it('covers the fixed-width, boolean and 32-bit-offset string types, not large strings or dictionaries', () => {
    const batch = randomBatch(1, 10);
    const layout = RowLayout.build(batch, batch.schema.fields.map((_: unknown, c: number) => c));
    const covered = batch.schema.fields.filter((_: unknown, c: number) => layout.covers(c)).map((f: { name: string }) => f.name.replace(/^c\d+_/, ''));
    expect(covered).not.toContain('large-utf8');
    expect(covered).not.toContain('dict-utf8');
    for (const t of ['int8', 'int16', 'int64', 'uint64', 'float32', 'utf8', 'binary', 'bool', 'date32', 'ts-ns', 'decimal', 'long']) expect(covered).toContain(t);
    expect(layout.width % 4).toBe(0);
  });

  for (const seed of [1, 2, 3]) {
    it(`gathers what the columns give, NULL-padded rows included (seed ${seed})`, () => {
      const rows = 3000;
      let batch = randomBatch(seed, rows + 17);
      batch = batch.slice(17, rows + 17); // sliced columns: values from row 0, validity at an offset
      const columns = batch.schema.fields.map((_: unknown, c: number) => c);
      const plain = new RowSource([batch]);
      const laid = new RowSource([batch]);
      laid.layout = RowLayout.build(batch, columns);
      const rng = new Rng(seed * 31);
      // more indices than a chunk, -1 here and there, duplicates
      const count = 2500;
      const idx = Int32Array.from({ length: count }, () => (rng.int(0, 9) === 0 ? -1 : rng.int(0, rows - 1)));
      for (const [start, n] of [
        [0, count],
        [5, 1030],
        [7, 1],
        [0, 0],
      ] as const) {
        const want = new Table(makeRecordBatch(batch.schema, gatherColumns(plain, idx, start, n, columns), n));
        const got = new Table(makeRecordBatch(batch.schema, gatherColumns(laid, idx, start, n, columns), n));
        expect(values(got)).toEqual(values(want));
        for (let c = 0; c < columns.length; c++) expect(got.getChildAt(c)!.nullCount, batch.schema.fields[c]!.name).toBe(want.getChildAt(c)!.nullCount);
      }
      // shared, then restored over the same rows: the same answers
      const restored = new RowSource([batch]);
      restored.layout = RowLayout.restore(laid.layout.share(), batch);
      expect(values(new Table(makeRecordBatch(batch.schema, gatherColumns(restored, idx, 0, count, columns), count)))).toEqual(
        values(new Table(makeRecordBatch(batch.schema, gatherColumns(plain, idx, 0, count, columns), count))),
      );
    });
  }
});

