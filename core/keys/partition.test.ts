import { describe, expect, it } from 'vitest';
import { groupRowsByPartition } from './partition.ts';

const groups = (g: { start: Int32Array; rows: Int32Array }, partitions: number): number[][] =>
  Array.from({ length: partitions }, (_, p) => [...g.rows.subarray(g.start[p]!, g.start[p + 1]!)]);

describe('groupRowsByPartition', () => {
  const pid = Int32Array.from([2, 0, 2, 1, 0, 2, 0]);

  it('groups every row, ascending within each partition; empty partitions have empty ranges', () => {
    const g = groupRowsByPartition(pid, 4, null, pid.length);
    expect([...g.start]).toEqual([0, 3, 4, 7, 7]);
    expect(groups(g, 4)).toEqual([[1, 4, 6], [3], [0, 2, 5], []]);
  });

  it('leaves out the rows the skip mask marks (and only counts the rest)', () => {
    const skip = Uint8Array.from([0, 1, 0, 0, 0, 1, 0]);
    const g = groupRowsByPartition(pid, 3, skip, pid.length);
    expect(g.start[3]).toBe(5);
    expect(g.rows.length).toBe(5);
    expect(groups(g, 3)).toEqual([[4, 6], [3], [0, 2]]);
  });

  it('writes into `out` when given (a view of its first rows) and reads only the first n ids', () => {
    const out = new Int32Array(16).fill(-7);
    const g = groupRowsByPartition(pid, 3, null, 4, out);
    expect(g.rows.buffer).toBe(out.buffer);
    expect(groups(g, 3)).toEqual([[1], [3], [0, 2]]);
    expect(out[4]).toBe(-7);
  });

  it('no rows: all ranges empty', () => {
    const g = groupRowsByPartition(new Int32Array(0), 2, null, 0);
    expect([...g.start]).toEqual([0, 0, 0]);
    expect(g.rows.length).toBe(0);
  });
});
