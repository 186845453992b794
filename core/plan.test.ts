import { Field, Int32, List, makeData, makeVector, SparseUnion, Table, vectorFromArray } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Engine } from '../composition.ts';
import { UnsupportedTypeError } from './errors.ts';

/** A sparse union column (apache-arrow reads them from IPC; the join cannot carry them). */
function unionColumn(n: number) {
  const ints = makeData({ type: new Int32(), length: n, data: Int32Array.from({ length: n }, (_, i) => i) });
  const type = new SparseUnion([0], [new Field('i', new Int32(), true)]);
  return makeVector(makeData({ type, length: n, nullCount: 0, typeIds: new Int8Array(n), children: [ints] }));
}

describe('bindJoin: output column types', () => {
  const left = new Table({ k: vectorFromArray([1, 2, 3], new Int32()), u: unionColumn(3) });
  const right = new Table({ k: vectorFromArray([2, 3, 4], new Int32()), u: unionColumn(3) });

  it('an output column the join cannot carry is an UnsupportedTypeError naming it and --select', async () => {
    const engine = await Engine.create();
    const err = await engine.join({ type: 'inner', on: 'k=k' }, left, right).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsupportedTypeError);
    expect((err as Error).message).toMatch(/^column 'u' has type .*Union.*, which is not supported in join output: .*cannot be gathered.*--select can leave it out/);
    // the renamed right column names its input too
    const e2 = await engine.join({ type: 'inner', on: 'k=k', select: 'k,u_right' }, left, right).catch((e: unknown) => e);
    expect((e2 as Error).message).toMatch(/^column 'u_right \(right\.u\)' has type/);
    // before any data is read: bind alone throws
    expect(() => engine.bind({ type: 'left-semi', on: 'k=k' }, left.schema, right.schema)).toThrow(UnsupportedTypeError);
  });

  it('left out with --select, the join runs', async () => {
    const engine = await Engine.create();
    const { table } = await engine.join({ type: 'inner', on: 'k=k', select: 'k,k_right' }, left, right);
    expect(table.numRows).toBe(2);
    // a list column is carried, not refused
    const withList = new Table({ k: vectorFromArray([1, 2], new Int32()), l: vectorFromArray([[1], [2, 3]], new List(new Field('item', new Int32(), true))) });
    const out = await engine.join({ type: 'inner', on: 'k=k' }, withList, withList);
    expect([...out.table.getChild('l')!].map((v) => [...v!])).toEqual([[1], [2, 3]]);
  });
});
