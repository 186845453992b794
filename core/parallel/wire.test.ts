import { vectorFromArray, Dictionary, Field, makeData, Float64, Int32, Int64, List, makeBuilder, RecordBatch, Schema, Struct, Table, Utf8, Utf8View, Bool, Decimal, type DataType } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Rng } from '../random.ts';
import { decodeBatch, decodeSchema, encodeBatch, encodeSchema, isShared, shareBatch, shareTable } from './wire.ts';

const FIELDS: [string, DataType][] = [
  ['i32', new Int32()],
  ['i64', new Int64()],
  ['f64', new Float64()],
  ['b', new Bool()],
  ['s', new Utf8()],
  ['v', new Utf8View()],
  ['dec', new Decimal(2, 18, 128)],
  ['d', new Dictionary(new Utf8(), new Int32())],
  ['l', new List(new Field('item', new Int32(), true))],
  ['st', new Struct([new Field('x', new Int32(), true), new Field('y', new Utf8(), true)])],
];
const SCHEMA = new Schema(FIELDS.map(([n, t]) => new Field(n, t, true)));

function value(type: DataType, r: Rng): unknown {
  if (r.next() < 0.2) return null;
  const s = () => 'x'.repeat(r.int(0, 20)) + r.int(0, 99);
  switch (type.constructor) {
    case Int32:
      return r.int(-1000, 1000);
    case Int64:
      return BigInt(r.int(-1e9, 1e9)) * 1000n;
    case Float64:
      return r.next() * 100;
    case Bool:
      return r.next() < 0.5;
    case Decimal:
      return null;
    case List:
      return Array.from({ length: r.int(0, 3) }, () => r.int(0, 9));
    case Struct:
      return { x: r.int(0, 9), y: s() };
    default:
      return ['red', 'green', 'blue'][r.int(0, 2)] ?? s();
  }
}

function batchOf(rows: number, seed: number): RecordBatch {
  const r = new Rng(seed);
  const columns = FIELDS.map(([, type]) => {
    const b = makeBuilder({ type, nullValues: [null] });
    for (let i = 0; i < rows; i++) b.append((type instanceof Utf8View || type instanceof Utf8 ? (r.next() < 0.2 ? null : 'v'.repeat(r.int(0, 30)) + i) : value(type, r)) as never);
    return b.finish().flush();
  });
  return new RecordBatch(SCHEMA, makeData({ type: new Struct(SCHEMA.fields), length: rows, nullCount: 0, children: columns }));
}

const rowsOf = (b: RecordBatch) => JSON.stringify(new Table(b).toArray().map((r) => r.toJSON()), (_k, v) => (typeof v === 'bigint' ? v.toString() : v));

describe('batch wire', () => {
  it('a slice of a large column copies only its own rows (strings rebased), and decodes equal', () => {
    const n = 100_000;
    const t = new Table({
      s: vectorFromArray(Array.from({ length: n }, (_, i) => (i % 11 === 0 ? null : `value-${i}`)), new Utf8()),
      k: vectorFromArray(BigInt64Array.from({ length: n }, (_, i) => BigInt(i))),
      b: vectorFromArray(Array.from({ length: n }, (_, i) => i % 3 === 0)),
    });
    const whole = t.batches[0]!;
    const piece = whole.slice(60_003, 61_003);
    const { wire, transfer } = encodeBatch(piece, 'copy');
    const bytes = transfer.reduce((a, b) => a + b.byteLength, 0);
    // 1000 rows: ~12 KB of strings, 8 KB of int64, and the bitmaps up to the rows (~7.5 KB each);
    // the whole columns are ~1.8 MB
    expect(bytes).toBeLessThan(100_000);
    const back = decodeBatch(wire, piece.schema);
    expect(back.toArray().map((r) => JSON.stringify(r.toJSON(), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)))).toEqual(
      piece.toArray().map((r) => JSON.stringify(r.toJSON(), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))),
    );
  });

  it('a slice of a column without NULLs (a zero-length validity bitmap) is cut too, and bitmaps start at the slice', () => {
    // Arrow JS gives a NULL-free column a zero-length bitmap: it once made the encoder keep every
    // view whole, so each 64K-row morsel of a 10M-row string table copied the whole column
    const n = 200_000;
    const t = new Table({
      s: vectorFromArray(Array.from({ length: n }, (_, i) => `key-${i}`), new Utf8()),
      f: vectorFromArray(Float64Array.from({ length: n }, (_, i) => i / 2)),
      nb: vectorFromArray(Array.from({ length: n }, (_, i) => (i % 7 === 0 ? null : i % 2 === 0))),
    });
    expect(t.batches[0]!.data.children[0]!.nullBitmap?.byteLength ?? 0).toBe(0);
    for (const [from, len] of [
      [150_005, 1_003],
      [150_008, 64],
      [3, 5],
    ] as const) {
      const piece = t.batches[0]!.slice(from, from + len);
      const { wire, transfer } = encodeBatch(piece, 'copy');
      // the rows' own bytes: ~11 B of string + 4 B of offset + 8 B of float + 2 bits per row
      expect(transfer.reduce((a, b) => a + b.byteLength, 0)).toBeLessThan(len * 24 + 64);
      expect(wire.columns.every((c) => c.offset === 0)).toBe(true);
      expect(rowsOf(decodeBatch(structuredClone(wire, { transfer }), piece.schema))).toBe(rowsOf(piece));
    }
  });

  const schema = decodeSchema(encodeSchema(SCHEMA));

  it('the schema survives its round trip', () => {
    expect(schema.fields.map((f) => `${f.name}:${f.type}`)).toEqual(SCHEMA.fields.map((f) => `${f.name}:${f.type}`));
  });

  it.each(['copy', 'transfer'] as const)('%s: a batch and its slices come back equal, through structured clone', (mode) => {
    for (const [start, len] of [
      [0, 300],
      [17, 101],
      [299, 1],
      [5, 0],
    ] as const) {
      const whole = batchOf(300, 7);
      const batch = whole.slice(start, start + len);
      const expected = rowsOf(batch);
      const { wire, transfer } = encodeBatch(batch, mode);
      const received = structuredClone(wire, { transfer });
      expect(rowsOf(decodeBatch(received, schema))).toBe(expected);
      if (mode === 'copy') expect(rowsOf(batch)).toBe(expected); // the sender's batch is intact
      // a copy is as large as the slice, not the buffers it was cut from
      if (mode === 'copy') for (const b of transfer) expect(b.byteLength).toBeLessThanOrEqual(whole.data.children.reduce((n, c) => n + (c.values?.byteLength ?? 0), 0) + 1e4);
    }
  });

  it('transfer moves each buffer once, however many views share it', () => {
    const batch = batchOf(64, 3);
    const { transfer } = encodeBatch(batch, 'transfer');
    expect(new Set(transfer).size).toBe(transfer.length);
  });

  it('shared batches cross without copies and stay equal', () => {
    const batch = batchOf(200, 11).slice(3, 150);
    const shared = shareBatch(batch);
    expect(rowsOf(shared)).toBe(rowsOf(batch));
    const { wire, transfer } = encodeBatch(shared, 'copy');
    expect(transfer).toEqual([]);
    const back = decodeBatch(structuredClone(wire), schema);
    expect(isShared(back.data.children[0]!.values)).toBe(true);
    expect(rowsOf(back)).toBe(rowsOf(batch));
    expect(shareTable(new Table([batch])).numRows).toBe(147);
  });

  it('shareTable of a table sliced out of one column copies each batch\'s own rows, and a shared dictionary once', () => {
    // every batch of such a table keeps views to the end of the column (all of its string bytes):
    // copying those whole once took 15 GB to share a 10M-row string table of 153 batches
    const n = 100_000;
    const dict = vectorFromArray(Array.from({ length: n }, (_, i) => `d${i % 500}`), new Dictionary(new Utf8(), new Int32()));
    const whole = new Table({
      s: vectorFromArray(Array.from({ length: n }, (_, i) => (i % 11 === 0 ? null : `value-${i}`)), new Utf8()),
      f: vectorFromArray(Float64Array.from({ length: n }, (_, i) => i / 2)),
      b: vectorFromArray(Array.from({ length: n }, (_, i) => (i % 5 === 0 ? null : i % 3 === 0))),
      d: dict,
    }).batches[0]!;
    const batches = Array.from({ length: 10 }, (_, i) => whole.slice(i * 10_000 + (i === 0 ? 0 : 3), (i + 1) * 10_000));
    const table = new Table(batches);
    const shared = shareTable(table);
    expect(rowsOf(new Table(shared.batches).batches[0]!)).toBe(rowsOf(batches[0]!));
    expect(shared.toArray().map((r) => JSON.stringify(r.toJSON()))).toEqual(table.toArray().map((r) => JSON.stringify(r.toJSON())));
    const sizes = new Map<SharedArrayBuffer, number>();
    for (const b of shared.batches) {
      for (const d of [...b.data.children, ...b.data.children[3]!.dictionary!.data]) {
        for (const v of [d.valueOffsets, d.values, d.nullBitmap]) {
          if (v === undefined || v === null || v.byteLength === 0) continue;
          expect(isShared(v)).toBe(true);
          sizes.set(v.buffer as SharedArrayBuffer, v.buffer.byteLength);
        }
      }
    }
    const total = [...sizes.values()].reduce((a, b) => a + b, 0);
    // the rows' own bytes: ~11 B of string + 4 B of offset + 8 B of float + 4 B of code + bits,
    // and the 500-entry dictionary once (the whole columns copied per batch: ~14 MB)
    expect(total).toBeLessThan(n * 30);
  });
});
