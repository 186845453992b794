/**
 * Zero-row inputs built in memory: `vectorFromArray([])` gives a Data whose `children` is
 * undefined (not `[]`), which byte accounting and zone maps once iterated and crashed on. Every
 * algorithm x join type must treat such a side as empty.
 */
import { Int32, Table, vectorFromArray } from 'apache-arrow';
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
