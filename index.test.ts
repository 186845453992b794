/**
 * The library entry's way to declare an in-memory input sorted: `sortedTable` (a `MemoryScan`
 * with `sortedOn`) goes into `Engine.join` as any Scan does, and joins like the bare table.
 */
import { makeVector, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { describeSortOrder, Engine, MemoryScan, MissingColumnError, sortedTable } from './index.ts';

describe('sortedTable', () => {
  const left = new Table({ k: makeVector(Int32Array.from([1, 2, 2, 3])), v: vectorFromArray(['a', 'b', 'c', 'd'], new Utf8()) });
  const right = new Table({ k: makeVector(Int32Array.from([2, 3, 4])) });

  it('is a Scan declaring the order, accepted by Engine.join', async () => {
    const scan = sortedTable(left, [{ column: 'k' }], 'left');
    expect(scan).toBeInstanceOf(MemoryScan);
    expect(describeSortOrder(scan.sortedOn!)).toBe('k ASC NULLS LAST');
    const engine = await Engine.create({ join: 'hash' });
    const plain = await engine.join({ type: 'inner', on: 'k=k', select: ['v'] }, left, right);
    const declared = await engine.join({ type: 'inner', on: 'k=k', select: ['v'] }, scan, sortedTable(right, [{ column: 'k' }]));
    expect(declared.table.numRows).toBe(3);
    expect([...declared.table.getChild('v')!].sort()).toEqual([...plain.table.getChild('v')!].sort());
  });

  it('refuses a column the table does not have', () => {
    expect(() => sortedTable(left, [{ column: 'x' }])).toThrow(MissingColumnError);
  });
});
