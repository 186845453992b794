/**
 * NOT IN (the null-aware anti join) without a residual filter, for any join that knows, per
 * outer row, whether it matched an inner key: `o.k NOT IN (SELECT i.k FROM inner i)` under SQL's
 * three-valued logic.
 *
 * Without a filter every outer row has the same inner set (the whole inner input), so besides the
 * match flags only two facts about the inner input decide everything:
 *   - the inner input is empty: `o.k NOT IN ()` is TRUE for every o, even a NULL o.k;
 *   - some inner key is NULL: `o.k NOT IN (…, NULL)` is never TRUE (FALSE if matched, else
 *     unknown), so no row survives;
 *   - otherwise o survives iff its key is not NULL and it matched nothing.
 * Emptiness must be judged from what the input holds, not from what reached the join: a dynamic
 * filter may legitimately remove every row of a probe input (the hash join passes the probe's
 * metadata `numRows`). With a residual filter each outer row has its own inner set and needs the
 * pairs themselves (the hash join's operators/hash-join/not-in.ts, the nested-loop join's own loop).
 */

/**
 * NOT IN survivors (1 = returned) among the outer rows, given which matched an inner key
 * (`matched`, 0/1) and which have a NULL key (`outerNulls`, 0/1; null: none).
 */
export function notInSurvivors(matched: Uint8Array, outerNulls: Uint8Array | null, innerEmpty: boolean, innerHasNull: boolean): Uint8Array {
  const keep = new Uint8Array(matched.length);
  if (innerEmpty) return keep.fill(1);
  if (innerHasNull) return keep;
  for (let r = 0; r < matched.length; r++) keep[r] = matched[r] === 0 && !(outerNulls !== null && outerNulls[r] === 1) ? 1 : 0;
  return keep;
}
