/**
 * The probe and membership drivers shared by the open-addressing layouts (`linear`, `swiss`). Both
 * resolve probe rows a window at a time — a layout-specific `resolve(list, from, to)` leaves the
 * window's matching rows, in row order, with each one's first build row + 1 — and chain a key's
 * other build rows through `next` (ascending, so output is in build-row order within a probe row).
 *
 * Cursor protocol (core/hashmap.ts): a call stops when `capacity` pairs are written, leaving
 * `cursor.row` at the probe row and `cursor.next` at the build row to continue from; the next call
 * first finishes that chain. The window is about `capacity` rows (16 .. WINDOW) so a tiny-capacity
 * caller does not resolve rows it will not reach.
 */
import type { ProbeCursor } from '../../core/hashmap.ts';

/** Probe rows resolved per window (the size of a layout's scratch lists). */
export const WINDOW = 1024;

/**
 * A window's 32-row hit masks (bit k - base of masks[(k - from) / 32] for row(k)) as the rows they
 * mark, in order, into `out` (row(k) = k, or list[k]); returns the count. Layouts write masks
 * rather than one list entry per row because, in V8, a typed-array store inside a hot loop makes
 * every later load in it re-read the arrays' base pointers and lengths (measured ~1.8x slower).
 */
export function expandMasks(masks: Int32Array, list: Int32Array | null, from: number, to: number, out: Int32Array): number {
  let n = 0;
  for (let i = 0, base = from; base < to; i++, base += 32) {
    for (let mask = masks[i]!; mask !== 0; mask &= mask - 1) {
      const k = base + 31 - Math.clz32(mask & -mask);
      out[n++] = list === null ? k : list[k]!;
    }
  }
  return n;
}

/** A layout's scratch: after `resolve`, matches[0..c) as (row, first build row + 1). */
export interface WindowMatches {
  readonly rows: Int32Array;
  readonly firsts: Int32Array;
}

/** Resolves probe rows row(k), k in [from, to) (row(k) = k, or list[k]); returns the match count. */
export type ResolveWindow = (list: Int32Array | null, from: number, to: number) => number;

/** `JoinHashTable.probe` over windows. `next`: next build row + 1 per build row (null: no duplicates). */
export function probeWindows(
  rows: number,
  cursor: ProbeCursor,
  next: Int32Array | null,
  outProbe: Int32Array,
  outBuild: Int32Array,
  capacity: number,
  resolve: ResolveWindow,
  m: WindowMatches,
): number {
  let r = cursor.row;
  if (r < 0) return 0;
  const window = capacity < 16 ? 16 : capacity > WINDOW ? WINDOW : capacity;
  const mRow = m.rows;
  const mFirst = m.firsts;
  let n = 0;
  let j = cursor.next;
  // finish the chain a previous call stopped in
  if (j >= 0) {
    do {
      if (n === capacity) {
        cursor.next = j;
        return n;
      }
      outProbe[n] = r;
      outBuild[n] = j;
      n++;
      j = next === null ? -1 : next[j]! - 1;
    } while (j >= 0);
    r++;
  }
  while (r < rows) {
    const end = rows - r < window ? rows : r + window;
    const c = resolve(null, r, end);
    for (let i = 0; i < c; i++) {
      const q = mRow[i]!;
      j = mFirst[i]! - 1;
      do {
        if (n === capacity) {
          cursor.row = q;
          cursor.next = j;
          return n;
        }
        outProbe[n] = q;
        outBuild[n] = j;
        n++;
        j = next === null ? -1 : next[j]! - 1;
      } while (j >= 0);
    }
    r = end;
  }
  cursor.row = -1;
  cursor.next = -1;
  return n;
}

/** `JoinHashTable.contains` over windows: out[row] = 1 for matching rows, 0 for the others listed. */
export function containsWindows(count: number, list: Int32Array | null, out: Uint8Array, resolve: ResolveWindow, m: WindowMatches): void {
  const mRow = m.rows;
  for (let base = 0; base < count; base += WINDOW) {
    const end = count - base < WINDOW ? count : base + WINDOW;
    if (list === null) out.fill(0, base, end);
    else for (let k = base; k < end; k++) out[list[k]!] = 0;
    const c = resolve(list, base, end);
    for (let i = 0; i < c; i++) out[mRow[i]!] = 1;
  }
}
