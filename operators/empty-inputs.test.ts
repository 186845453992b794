/**
 * Zero-row inputs built in memory: `vectorFromArray([])` gives a Data whose `children` is
 * undefined (not `[]`), which byte accounting and zone maps once iterated and crashed on; a
 * zero-row string batch may have no offsets buffer at all, which key normalisation itself read
 * past (core/keys/normalize.test.ts; the joins skip empty batches before normalising). Every
 * algorithm x join type must treat such a side as empty.
 */
import { Binary, Field, Int32, LargeUtf8, makeData, RecordBatch, Schema, Struct, Table, Utf8, vectorFromArray, type DataType } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Engine } from '../composition.ts';
import { JOIN_TYPES, type JoinType } from '../core/types.ts';

const empty = () => new Table({ k: vectorFromArray([], new Int32()) });
const two = () => new Table({ k: vectorFromArray([1, 2], new Int32()) });

/** Rows of `left JOIN right` when exactly one side is empty (`emptySide`), by DuckDB's rules. */
function expected(type: JoinType, emptySide: 'left' | 'right'): number {
  const keepsLeft = ['left', 'full', 'left-anti', 'left-mark'].includes(type);
  const keepsRight = ['right', 'full', 'right-anti', 'right-mark'].includes(type);
  return emptySide === 'right' ? (keepsLeft ? 2 : 0) : keepsRight ? 2 : 0;
}

describe('an empty in-memory side', () => {
  for (const join of ['hash', 'nested-loop']) {
    it(`${join}: every join type, either side empty, both empty`, async () => {
      const engine = await Engine.create({ join });
      for (const type of JOIN_TYPES) {
        expect((await engine.join({ type, on: 'k=k' }, two(), empty())).table.numRows, `${type}, right empty`).toBe(expected(type, 'right'));
        expect((await engine.join({ type, on: 'k=k' }, empty(), two())).table.numRows, `${type}, left empty`).toBe(expected(type, 'left'));
        expect((await engine.join({ type, on: 'k=k' }, empty(), empty())).table.numRows, `${type}, both empty`).toBe(0);
      }
    });
  }
});

describe('an empty in-memory side, the IEJoin (inner / left / right / full: the join types it runs)', () => {
  it('iejoin: either side empty, both empty', async () => {
    const engine = await Engine.create({ join: 'iejoin' });
    const spec = (type: JoinType) => ({ type, range: 'k <= k', filter: 'l.k >= r.k' });
    for (const type of ['inner', 'left', 'right', 'full'] as const) {
      expect((await engine.join(spec(type), two(), empty())).table.numRows, `${type}, right empty`).toBe(expected(type, 'right'));
      expect((await engine.join(spec(type), empty(), two())).table.numRows, `${type}, left empty`).toBe(expected(type, 'left'));
      expect((await engine.join(spec(type), empty(), empty())).table.numRows, `${type}, both empty`).toBe(0);
    }
  });
});

describe('an empty in-memory side, the ASOF join (inner / left / right / full)', () => {
  it('asof: either side empty, both empty, with and without an equi-key', async () => {
    const engine = await Engine.create({ join: 'asof' });
    for (const on of [undefined, 'k=k']) {
      const spec = (type: JoinType) => ({ type, range: 'k >= k', ...(on === undefined ? {} : { on }) });
      for (const type of ['inner', 'left', 'right', 'full'] as const) {
        expect((await engine.join(spec(type), two(), empty())).table.numRows, `${type}, right empty`).toBe(expected(type, 'right'));
        expect((await engine.join(spec(type), empty(), two())).table.numRows, `${type}, left empty`).toBe(expected(type, 'left'));
        expect((await engine.join(spec(type), empty(), empty())).table.numRows, `${type}, both empty`).toBe(0);
      }
    }
  });
});

/** One zero-row batch of `type` built without buffers (no offsets), as an empty batch may come. */
function bufferlessEmpty(type: DataType): Table {
  const schema = new Schema([new Field('k', type, true)]);
  const child = makeData({ type: type as Utf8, length: 0 });
  return new Table([new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 0, children: [child] }))]);
}

describe('an empty string side without offsets', () => {
  for (const join of ['hash', 'nested-loop']) {
    it(`${join}: Utf8, LargeUtf8 and Binary keys, every join type`, async () => {
      const engine = await Engine.create({ join });
      for (const type of [new Utf8(), new LargeUtf8(), new Binary()]) {
        const values = type instanceof Binary ? [Uint8Array.of(1), Uint8Array.of(2)] : ['a', 'b'];
        const two = new Table({ k: vectorFromArray(values, type as never) });
        for (const t of JOIN_TYPES) {
          expect((await engine.join({ type: t, on: 'k=k' }, two, bufferlessEmpty(type))).table.numRows, `${type} ${t}, right empty`).toBe(expected(t, 'right'));
          expect((await engine.join({ type: t, on: 'k=k' }, bufferlessEmpty(type), two)).table.numRows, `${type} ${t}, left empty`).toBe(expected(t, 'left'));
        }
      }
    });
  }
});
