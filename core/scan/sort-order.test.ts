import { Field, Int32, List, makeVector, RecordBatch, Schema, Table, TimeMillisecond, Utf8, vectorFromArray } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { MissingColumnError, UnsortedInputError, UnsupportedTypeError, UsageError } from '../errors.ts';
import { describeSortOrder, resolveSortedOn, SortOrderCheck } from './sort-order.ts';

const schema = new Schema([
  new Field('k', new Int32(), true),
  new Field('s', new Utf8(), true),
  new Field('l', new List(new Field('item', new Int32())), true),
  new Field('t', new TimeMillisecond(), true),
]);

function batch(k: (number | null)[], s?: (string | null)[]): RecordBatch {
  const t = new Table({
    k: vectorFromArray(k, new Int32()),
    s: vectorFromArray(s ?? k.map(() => 'x'), new Utf8()),
  });
  return t.batches[0]!;
}

describe('resolveSortedOn', () => {
  it('fills in ASC NULLS LAST and keeps the flags given', () => {
    expect(resolveSortedOn(schema, [{ column: 'k' }, { column: 's', descending: true, nullsFirst: true }], 'memory:t')).toEqual([
      { column: 'k', descending: false, nullsFirst: false },
      { column: 's', descending: true, nullsFirst: true },
    ]);
  });

  it('treats absent and empty as unknown', () => {
    expect(resolveSortedOn(schema, undefined, 'x')).toBeUndefined();
    expect(resolveSortedOn(schema, [], 'x')).toBeUndefined();
  });

  it('refuses unknown columns, duplicates, bad flags and types without a key order', () => {
    expect(() => resolveSortedOn(schema, [{ column: 'nope' }], 'memory:t')).toThrow(MissingColumnError);
    expect(() => resolveSortedOn(schema, [{ column: 'nope' }], 'memory:t')).toThrow(/'nope' not found in memory:t \(sortedOn\)/);
    expect(() => resolveSortedOn(schema, [{ column: 'k' }, { column: 'k', descending: true }], 'x')).toThrow(UsageError);
    expect(() => resolveSortedOn(schema, [{ column: 'k', descending: 'yes' as unknown as boolean }], 'x')).toThrow(/must be a boolean/);
    expect(() => resolveSortedOn(schema, [{ column: 'l' }], 'x')).toThrow(UnsupportedTypeError);
    expect(() => resolveSortedOn(schema, [{ column: 't' }], 'x')).toThrow(/as a sort column \(sortedOn of x\)/);
    expect(() => resolveSortedOn(schema, 'k' as unknown as [], 'x')).toThrow(UsageError);
  });

  it('describes an order', () => {
    expect(describeSortOrder(resolveSortedOn(schema, [{ column: 'k' }, { column: 's', descending: true, nullsFirst: true }], 'x')!)).toBe(
      'k ASC NULLS LAST, s DESC NULLS FIRST',
    );
  });
});

describe('SortOrderCheck', () => {
  const s2 = new Schema([new Field('k', new Int32(), true), new Field('s', new Utf8(), true)]);

  it('accepts rows in order, within and across batches, ties included', () => {
    const check = new SortOrderCheck(s2, resolveSortedOn(s2, [{ column: 'k' }, { column: 's' }], 'out')!, 'out');
    check.check(batch([1, 1, 2], ['a', 'b', 'a']));
    check.check(batch([2, 3, null], ['a', 'a', 'z']));
    check.check(batch([null], ['z']));
    expect(check.rows).toBe(7);
  });

  it('names the first row out of order, within a batch', () => {
    const check = new SortOrderCheck(s2, resolveSortedOn(s2, [{ column: 'k' }], 'out')!, 'out');
    check.check(batch([1, 2]));
    expect(() => check.check(batch([3, 5, 4]))).toThrow(/out is declared sorted but is not: on \(k ASC NULLS LAST\), row 4 sorts before row 3/);
  });

  it('checks the boundary between batches', () => {
    const check = new SortOrderCheck(s2, resolveSortedOn(s2, [{ column: 'k' }, { column: 's' }], 'out')!, 'out');
    check.check(batch([1, 2], ['a', 'b']));
    expect(() => check.check(batch([2, 3], ['a', 'a']))).toThrow(/row 2 sorts before row 1/);
  });

  it('follows direction and NULL placement', () => {
    const desc = new SortOrderCheck(s2, resolveSortedOn(s2, [{ column: 'k', descending: true, nullsFirst: true }], 'o')!, 'o');
    desc.check(batch([null, null, 9]));
    desc.check(batch([9, 3, -1]));
    expect(() => desc.check(batch([null]))).toThrow(UnsortedInputError);
    const last = new SortOrderCheck(s2, resolveSortedOn(s2, [{ column: 'k' }], 'o')!, 'o');
    last.check(batch([1, null]));
    expect(() => last.check(batch([2]))).toThrow(/row 2 sorts before row 1/);
  });

  it('reads sliced batches at their offset', () => {
    const b = new Table({ k: makeVector(Int32Array.from([5, 1, 2, 3])) }).batches[0]!;
    const sk = new Schema([new Field('k', new Int32(), false)]);
    const check = new SortOrderCheck(sk, resolveSortedOn(sk, [{ column: 'k' }], 'o')!, 'o');
    check.check(b.slice(1, 4));
    check.check(b.slice(0, 0)); // empty: nothing to check
    expect(() => check.check(b.slice(1, 2))).toThrow(/row 3 sorts before row 2/);
    expect(() => new SortOrderCheck(sk, resolveSortedOn(sk, [{ column: 'k' }], 'o')!, 'o').check(b.slice(0, 2))).toThrow(/row 1 sorts before row 0/);
  });
});
