/**
 * The query-level constructs random SQL (random-sql.ts) draws behind the `scalarSubqueries` and
 * `cteTwice` features, as WHERE conjuncts over an outer table `o` of the query:
 *  - scalar subqueries over a random table (aliased `sq`, so `t<o>.k` inside is the outer
 *    column even when it is the same table): uncorrelated, or correlated through one or two
 *    equalities (`sq.k = t<o>.k [AND sq.j = t<o>.j]`), with count(*) / count / sum / min / max / avg,
 *    sometimes a local condition that empties groups, inside arithmetic, under OR, and counts
 *    compared with small numbers (the COUNT bug: a missing group must count 0);
 *  - a CTE `c` read twice — in an IN subquery and a scalar one, in a self-join inside EXISTS, or
 *    in a correlated and an uncorrelated count.
 * Tables `t<i>` have `k` INTEGER, `j` BIGINT, `v<i>` INTEGER, `s<i>` VARCHAR (random-sql.ts).
 */
import type { Rng } from '../../core/random.ts';

export interface SubqueryContext {
  /** Tables in the case. */
  readonly count: number;
  /** `t<t>.<c>` as the outer query names it. */
  col(t: number, c: 'k' | 'j' | 'v' | 's'): string;
}

const CMP = ['<', '<=', '>', '>=', '=', '<>'] as const;

/** A WHERE conjunct over outer table `o` with a scalar subquery. */
export function scalarSubqueryConjunct(rng: Rng, ctx: SubqueryContext, o: number): string {
  const x = rng.int(0, ctx.count - 1);
  const agg = rng.pick(['count(*)', `count(sq.v${x})`, `sum(sq.v${x})`, `min(sq.v${x})`, `max(sq.v${x})`, `avg(sq.v${x})`]);
  const value = rng.pick([agg, agg, `${agg} * 2`, `${agg} + 1`]);
  const local = rng.chance(0.4) ? ` AND sq.v${x} < ${rng.int(0, 20)}` : '';
  const corr = rng.pick([`sq.k = ${ctx.col(o, 'k')}`, `sq.j = ${ctx.col(o, rng.pick(['k', 'j'] as const))}`, `${ctx.col(o, 'k')} = sq.k AND sq.j = ${ctx.col(o, 'j')}`]);
  const outer = ctx.col(o, 'v');
  switch (rng.pick(['uncorrelated', 'correlated', 'correlated', 'count', 'or'] as const)) {
    case 'uncorrelated':
      return `${outer} ${rng.pick(CMP)} (SELECT ${value} FROM t${x} AS sq${rng.chance(0.5) ? ` WHERE sq.v${x} < ${rng.int(0, 20)}` : ''})`;
    case 'correlated':
      return `${outer} ${rng.pick(CMP)} (SELECT ${value} FROM t${x} AS sq WHERE ${corr}${local})`;
    case 'count':
      return `(SELECT ${rng.pick(['count(*)', `count(sq.v${x})`])} FROM t${x} AS sq WHERE ${corr}${local}) ${rng.pick(CMP)} ${rng.int(0, 2)}`;
    case 'or':
      return `(${outer} < ${rng.int(0, 10)} OR ${outer} ${rng.pick(CMP)} (SELECT ${value} FROM t${x} AS sq WHERE ${corr}${local}))`;
  }
}

/** A CTE `c` over a random table, and a WHERE conjunct over outer table `o` that reads it twice. */
export function cteReadTwice(rng: Rng, ctx: SubqueryContext, o: number): { readonly with: string; readonly conjunct: string } {
  const x = rng.int(0, ctx.count - 1);
  const cte = `c AS (SELECT k, j, v${x} AS cv FROM t${x}${rng.chance(0.5) ? ` WHERE v${x} < ${rng.int(0, 20)}` : ''})`;
  const k = ctx.col(o, 'k');
  const conjunct = rng.pick([
    `${k} IN (SELECT c.k FROM c) AND ${ctx.col(o, 'v')} >= (SELECT min(c.cv) FROM c)`,
    `EXISTS (SELECT 1 FROM c AS c1 JOIN c AS c2 ON c1.j = c2.j WHERE c1.k = ${k})`,
    `(SELECT count(*) FROM c WHERE c.k = ${k}) * 2 <= (SELECT count(*) FROM c)`,
  ]);
  return { with: cte, conjunct };
}
