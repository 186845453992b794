/**
 * Random key columns for the range joins' differential fuzz tests (the piecewise merge join and
 * the IEJoin): few distinct values so ties and duplicates are common, 20% NULLs, and per type the
 * values that break comparisons — Int32 against Int64 on the other side, -0 / NaN / ±Infinity in
 * Float64, strings that are prefixes of each other; and the inputs cut into tiny batches with
 * empty ones between. Test code only.
 */
import * as arrow from 'apache-arrow';
import type { Rng } from '../../core/random.ts';

export const RANGE_KEY_TYPES = ['int32', 'int32-int64', 'float64', 'utf8'] as const;
export type RangeKeyType = (typeof RANGE_KEY_TYPES)[number];

/** `n` keys of `type` drawn from 1..`maxKey` (side 1 of 'int32-int64' is the Int64 side). */
export function rangeKeyVector(rng: Rng, n: number, type: RangeKeyType, side: 0 | 1, maxKey: number): arrow.Vector {
  const draw = (): number | null => (rng.chance(0.2) ? null : rng.int(1, maxKey));
  switch (type) {
    case 'int32':
      return arrow.vectorFromArray(Array.from({ length: n }, draw), new arrow.Int32());
    case 'int32-int64':
      return side === 0
        ? arrow.vectorFromArray(Array.from({ length: n }, draw), new arrow.Int32())
        : arrow.vectorFromArray(Array.from({ length: n }, () => { const v = draw(); return v === null ? null : BigInt(v); }), new arrow.Int64());
    case 'float64': {
      const specials = [-0, 0, Number.NaN, Infinity, -Infinity, 2.5];
      return arrow.vectorFromArray(Array.from({ length: n }, () => (rng.chance(0.25) ? specials[rng.int(0, specials.length - 1)]! : draw())), new arrow.Float64());
    }
    case 'utf8':
      return arrow.vectorFromArray(Array.from({ length: n }, () => { const v = draw(); return v === null ? null : `k${v}${rng.chance(0.3) ? 'x' : ''}`; }), new arrow.Utf8());
  }
}

/** The rows in batches of 1–5, with empty batches between some of them (none for an empty table). */
export function tinySlices(table: arrow.Table, rng: Rng): arrow.RecordBatch[] {
  if (table.numRows === 0) return [];
  const whole = table.batches.length === 1 ? table.batches[0]! : new arrow.Table(table.schema, table.batches).batches[0]!;
  const out: arrow.RecordBatch[] = [];
  for (let at = 0; at < whole.numRows; ) {
    if (rng.chance(0.2)) out.push(whole.slice(at, at));
    const n = Math.min(whole.numRows - at, rng.int(1, 5));
    out.push(whole.slice(at, at + n));
    at += n;
  }
  return out;
}
