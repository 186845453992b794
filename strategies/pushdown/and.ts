/**
 * Combinators over `KeyFilter`s: AND (DataFusion publishes `bounds AND membership`) and the
 * constant FALSE filter.
 *
 * AND semantics: a row / container passes only if every operand lets it pass. Each operand may
 * only say "maybe", so their conjunction may only say "maybe" too. `null` operands mean "keep
 * everything" and are dropped; an AND of nothing is `null`. Operands run in the given order on the
 * rows the previous ones kept (put the cheap ones — bounds — first), so a membership probe only
 * sees rows that survived the range check.
 *
 * Per row (`perRow`, `pushdown.rowFilter: auto`) an AND keeps each operand's own row part.
 *
 * FALSE is what a build partition with rows but no non-NULL key publishes: NULL keys never reach
 * a KeyFilter (the composer keeps or drops them), and a NULL-free probe row cannot equal a build
 * row that has a NULL, so nothing a filter sees can match.
 */
import type { KeyFilter } from '../../core/pushdown.ts';
import type { KeyColumn } from '../../core/keys/types.ts';

/** The conjunction of `filters` (nulls ignored), or null when none is left. */
export function andFilters(filters: readonly (KeyFilter | null)[]): KeyFilter | null {
  const parts = filters.filter((f): f is KeyFilter => f !== null);
  if (parts.length === 0) return null;
  if (parts.length === 1) return parts[0]!;
  const flat: KeyFilter[] = [];
  for (const p of parts) {
    if (p === FALSE_FILTER) return FALSE_FILTER;
    if (p instanceof AndFilter) flat.push(...p.parts);
    else flat.push(p);
  }
  return new AndFilter(flat);
}

class AndFilter implements KeyFilter {
  readonly description: string;
  readonly needsHashes: boolean;
  constructor(readonly parts: readonly KeyFilter[]) {
    this.description = parts.map((p) => p.description).join(' AND ');
    this.needsHashes = parts.some((p) => p.needsHashes);
  }
  mayContain(stats: Parameters<KeyFilter['mayContain']>[0]): boolean {
    for (const p of this.parts) if (!p.mayContain(stats)) return false;
    return true;
  }

  perRow(): KeyFilter | null {
    return andFilters(this.parts.map(rowPartOf));
  }
  /** Scratch for the rows still live between operands (compacted in place; tests are synchronous). */
  #live = new Int32Array(0);

  test(keys: readonly KeyColumn[], hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    const n = keys.length > 0 ? keys[0]!.length : 0;
    const count = rows === null ? n : rows.length;
    if (this.#live.length < count) this.#live = new Int32Array(count);
    let live = rows;
    for (let i = 0; i < this.parts.length; i++) {
      if (i > 0) {
        live = liveRows(live, keep, n, this.#live);
        if (live.length === 0) return;
      }
      this.parts[i]!.test(keys, hashes, live, keep);
    }
  }
}

/** The part of `f` to run per row under `pushdown.rowFilter: auto` (see `KeyFilter.perRow`). */
export function rowPartOf(f: KeyFilter): KeyFilter | null {
  return f.perRow === undefined ? f : f.perRow();
}

/**
 * The listed rows (all `n` rows when `rows` is null) whose `keep` entry is not 0, ascending. One
 * branch-free pass: every row is written and the count advances by `(-keep) >>> 31` (1 for any
 * nonzero byte) — filters keep unpredictable halves, where a branch (and V8 compiles `x ? 1 : 0` as
 * one) mispredicts. Written into `into` when it is large enough (it may be `rows` itself: the
 * compaction never overtakes its input), else into a new array; the result is a view of its head.
 */
export function liveRows(rows: Int32Array | null, keep: Uint8Array, n: number, into?: Int32Array): Int32Array {
  const count = rows === null ? n : rows.length;
  const out = into !== undefined && into.length >= count ? into : new Int32Array(count);
  let j = 0;
  if (rows === null) {
    for (let i = 0; i < count; i++) {
      out[j] = i;
      j += -keep[i]! >>> 31;
    }
  } else {
    for (let i = 0; i < count; i++) {
      const r = rows[i]!;
      out[j] = r;
      j += -keep[r]! >>> 31;
    }
  }
  return j === out.length ? out : out.subarray(0, j);
}

/**
 * `liveRows(null, keep, n)` when the number of kept rows is already known (`countKept`): an array of
 * exactly `kept` rows (one spare slot absorbs the branch-free loop's last unconditional write).
 */
export function keptRows(keep: Uint8Array, n: number, kept: number): Int32Array {
  const out = new Int32Array(kept + 1);
  let j = 0;
  for (let i = 0; i < n; i++) {
    out[j] = i;
    j += -keep[i]! >>> 31;
  }
  return out.subarray(0, kept);
}

/** The number of nonzero entries of keep[0, n) (branch-free). */
export function countKept(keep: Uint8Array, n: number): number {
  let k = 0;
  for (let i = 0; i < n; i++) k += -keep[i]! >>> 31;
  return k;
}

export const FALSE_FILTER: KeyFilter = Object.freeze({
  description: 'false',
  needsHashes: false,
  mayContain: () => false,
  test(keys: readonly KeyColumn[], _hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    if (rows === null) keep.fill(0, 0, keys.length > 0 ? keys[0]!.length : keep.length);
    else for (let i = 0; i < rows.length; i++) keep[rows[i]!] = 0;
  },
});
