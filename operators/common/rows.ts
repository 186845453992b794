/**
 * Row lists from per-row flags: the ascending row indices whose flag is (or is not) set — what the
 * joins turn "matched" bytes and NULL masks into before gathering or pairing those rows.
 */

/** Rows r in [0, n) with `flags[r]` nonzero (`value` 1) or zero (`value` 0); `null` flags are all zero. */
export function rowsWhere(flags: Uint8Array | null, n: number, value: 0 | 1): Int32Array {
  if (flags === null) return value === 0 ? Int32Array.from({ length: n }, (_, i) => i) : new Int32Array(0);
  let count = 0;
  for (let r = 0; r < n; r++) count += flags[r] === 0 ? 1 - value : value;
  const out = new Int32Array(count);
  let j = 0;
  for (let r = 0; r < n; r++) if ((flags[r] === 0 ? 0 : 1) === value) out[j++] = r;
  return out;
}
