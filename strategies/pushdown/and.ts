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
import { rowPartOf, type KeyFilter, type SharedKeyFilter } from '../../core/pushdown/policy.ts';
import { registerKeyFilterKind, restoreKeyFilter, shareAll } from '../../core/pushdown/shared-filters.ts';
import { liveRows } from '../../core/selection.ts';
import type { KeyColumn } from '../../core/keys/types.ts';
import type { KeyValue } from '../../core/scan/key-stats.ts';

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
  readonly label: string;
  readonly needsHashes: boolean;
  /** Present when every operand has it (`KeyFilter.testInt32`). */
  readonly testInt32?: KeyFilter['testInt32'];
  constructor(readonly parts: readonly KeyFilter[]) {
    this.description = parts.map((p) => p.description).join(' AND ');
    this.label = parts.map((p) => p.label ?? p.description).join(' + ');
    this.needsHashes = parts.some((p) => p.needsHashes);
    if (parts.every((p) => p.testInt32 !== undefined)) {
      this.testInt32 = (values, hashes, rows, keep) => this.#cascade(values.length, rows, keep, (p, live) => p.testInt32!(values, hashes, live, keep));
    }
  }

  /** A row passing the AND passes every operand, so any operand's exact set bounds it. */
  exactValues(): readonly KeyValue[] | null {
    for (const p of this.parts) {
      const vs = p.exactValues?.() ?? null;
      if (vs !== null) return vs;
    }
    return null;
  }
  mayContain(stats: Parameters<KeyFilter['mayContain']>[0]): boolean {
    for (const p of this.parts) if (!p.mayContain(stats)) return false;
    return true;
  }

  perRow(): KeyFilter | null {
    return andFilters(this.parts.map(rowPartOf));
  }

  share(): SharedKeyFilter | null {
    const parts = shareAll(this.parts);
    return parts === null ? null : { kind: 'and', state: parts };
  }
  /** Scratch for the rows still live between operands (compacted in place; tests are synchronous). */
  #live = new Int32Array(0);

  test(keys: readonly KeyColumn[], hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    this.#cascade(keys.length > 0 ? keys[0]!.length : 0, rows, keep, (p, live) => p.test(keys, hashes, live, keep));
  }

  /** Each operand on the rows the ones before it kept. */
  #cascade(n: number, rows: Int32Array | null, keep: Uint8Array, test: (p: KeyFilter, live: Int32Array | null) => void): void {
    const count = rows === null ? n : rows.length;
    if (this.#live.length < count) this.#live = new Int32Array(count);
    let live = rows;
    for (let i = 0; i < this.parts.length; i++) {
      if (i > 0) {
        live = liveRows(live, keep, n, this.#live);
        if (live.length === 0) return;
      }
      test(this.parts[i]!, live);
    }
  }
}

export const FALSE_FILTER: KeyFilter = Object.freeze({
  description: 'false',
  needsHashes: false,
  exactValues: () => [],
  mayContain: () => false,
  test(keys: readonly KeyColumn[], _hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    if (rows === null) keep.fill(0, 0, keys.length > 0 ? keys[0]!.length : keep.length);
    else for (let i = 0; i < rows.length; i++) keep[rows[i]!] = 0;
  },
  testInt32(values: Int32Array, _hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    if (rows === null) keep.fill(0, 0, values.length);
    else for (let i = 0; i < rows.length; i++) keep[rows[i]!] = 0;
  },
  share: () => ({ kind: 'false', state: null }),
});

registerKeyFilterKind('false', () => FALSE_FILTER);
registerKeyFilterKind('and', (state, env) => new AndFilter((state as SharedKeyFilter[]).map((s) => restoreKeyFilter(s, env))));
