/**
 * Random SQL queries over random tables, for differential testing of `Engine.sql` against DuckDB:
 * shared by the SQL fuzz test (adapters/sql/run.fuzz.test.ts) and `joinlab parity`, which draws a
 * share of its cases from here. A case is derived from (seed, index) alone (like random-cases.ts),
 * so those two numbers reproduce it.
 *
 * Tables t0..t3 of 0–12 rows: `k` INTEGER and `j` BIGINT keys over a small domain (NULLs, duplicates
 * and, in some cases, one hot key: skew), a payload `v<t>` INTEGER, `s<t>` VARCHAR (NULLs, the
 * empty string) and `d<t>` DATE (1993–1996, NULLs). Every query is valid DuckDB SQL; what it contains:
 *  - FROM: a join TREE of 2–4 tables — INNER / LEFT / RIGHT / FULL / CROSS joins, left-deep or
 *    bushy (`a JOIN (b JOIN c ON …) ON …`), keys between a table of each side (one or two
 *    equalities, `k` with `k` or `j`), sometimes USING / NATURAL between two tables, residual ON
 *    conditions — or a comma list of such trees, in a shuffled order, with their keys (cross-table
 *    equalities) in WHERE;
 *  - WHERE: single-table conjuncts (comparisons, IS [NOT] NULL, [NOT] IN lists, OR, arithmetic),
 *    only on tables no outer join pads with NULLs unless `outerWhere`;
 *  - SELECT: qualified columns under unique aliases; ORDER BY (one case in three), by alias or
 *    position, ASC / DESC, NULLS FIRST / LAST: either every output column (a total order: the
 *    rows' sequence is the answer) or a prefix of them (only those columns' sequence is).
 * Behind `features` (each off by default; the planner claims them in CLAIMED_SQL_FEATURES as they
 * land — `joinlab parity` fails on an UnsupportedSqlError only for claimed features):
 *  - `subqueries`: [NOT] EXISTS and [NOT] IN subqueries, correlated through an equality or not
 *    (NOT IN with NULLs on either side included);
 *  - `aggregates`: count(*) / count / sum / min / max / avg (and count(DISTINCT)) with or without
 *    GROUP BY, HAVING, SELECT DISTINCT;
 *  - `expressions`: arithmetic, CASE, COALESCE, CAST in SELECT and in WHERE;
 *  - `rangeJoins`: joins on one inequality (plus a `<>` sometimes) instead of equalities; with
 *    the residual `v < v` / `v >= v` a join draws three times in ten, that is two inequalities,
 *    which `join: auto` runs on the IEJoin (inner and outer joins; docs/iejoin.md);
 *  - `outerWhere`: WHERE conjuncts on tables an outer join pads (e.g. the anti-join pattern
 *    `LEFT JOIN … WHERE r.k IS NULL`) and across tables of one outer-join tree;
 *  - `limit`: LIMIT / OFFSET after a total ORDER BY (the top-k, operators/sort/top-k.ts);
 *  - `functions`: LIKE / ILIKE / ESCAPE, extract / date_part, substring, `||`, concat and date
 *    constants with intervals on the tables' DATE column `d<t>`, in WHERE and SELECT
 *    (random-sql-functions.ts).
 *  - `scalarSubqueries`: scalar subqueries, uncorrelated and correlated, with count / sum / min /
 *    max / avg over empty groups and NULLs, in WHERE, the select list and HAVING
 *    (random-sql-subqueries.ts);
 *  - `cteTwice`: a CTE read twice (random-sql-subqueries.ts);
 *  - `tableAliases`: column aliases on a table reference (`t0 AS t0(j, k)`: k and j trade names);
 *  - `semiAnti`: `SEMI JOIN` / `ANTI JOIN` (their right sides then appear nowhere else);
 *  - `asof`: `ti ASOF [LEFT] JOIN tj ON <0–2 key equalities> AND ti.di OP tj.dj` (or on `v`;
 *    either way round) between two single tables; tj's column is made distinct (a repeat moved on
 *    to the next free value) so the closest row is unique — DuckDB returns an arbitrary one of a
 *    tie — and ti has at most 12 rows, under DuckDB's `asof_loop_join_threshold` (docs/asof.md).
 * A case records the features it actually used, so a runner can tell claimed from unclaimed.
 */
import { DateDay, Int32, Int64, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { Rng } from '../../core/random.ts';
import { quoteIdent, quoteString } from '../../core/expr/sql.ts';
import { caseSeed } from './random-cases.ts';
import { functionConjunct, functionExpression, type FunctionColumns } from './random-sql-functions.ts';
import { cteReadTwice, scalarSubqueryConjunct, type SubqueryContext } from './random-sql-subqueries.ts';
import { SQL_FEATURES, type SqlFeature, type SqlFeatures } from './sql-features.ts';

export { CLAIMED_SQL_FEATURES, SQL_FEATURES, type SqlFeature, type SqlFeatures } from './sql-features.ts';

export interface SqlCaseOptions {
  readonly features?: SqlFeatures;
  /** Most rows per table (default 12). */
  readonly maxRows?: number;
}

export interface SqlCase {
  /** The run seed and case index it was derived from. */
  readonly seed: number;
  readonly index: number;
  readonly tables: Readonly<Record<string, Table>>;
  readonly sql: string;
  /** ORDER BY every output column: the rows' sequence must agree (ties are identical rows). */
  readonly totalOrder: boolean;
  /** The output columns of ORDER BY, in order ([] without ORDER BY). */
  readonly orderColumns: readonly string[];
  /** The features the query uses (a subset of the options'). */
  readonly uses: readonly SqlFeature[];
}

/** Case `index` of the run seeded with `seed`. */
export function randomSqlCase(seed: number, index: number, options: SqlCaseOptions = {}): SqlCase {
  return { seed, index, ...drawSqlCase(new Rng(caseSeed(seed ^ 0x51c0de, index)), options) };
}

interface Tree {
  readonly sql: string;
  /** Table indices in the tree the query can name (not the right side of a SEMI / ANTI JOIN). */
  readonly tables: readonly number[];
  /** Tables an outer join of this tree pads with NULLs. */
  readonly padded: ReadonlySet<number>;
  readonly leaf: boolean;
}

const OPS = ['<', '<=', '>', '>='] as const;
const FLIPPED = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const;

/**
 * `table` with the non-NULL values of its column `name` (DATE or INTEGER) distinct: a repeat moves
 * on to the next free day or integer.
 */
function withDistinctValues(table: Table, name: string): Table {
  const date = String(table.getChild(name)!.type) === 'Date32<DAY>';
  const step = date ? 86_400_000 : 1;
  const seen = new Set<number>();
  const values = [...table.getChild(name)!].map((v) => {
    if (v === null || v === undefined) return null;
    let x = Number(v);
    while (seen.has(x)) x += step;
    seen.add(x);
    return x;
  });
  const vector = date ? vectorFromArray(values.map((x) => (x === null ? null : new Date(x))), new DateDay()) : vectorFromArray(values, new Int32());
  return new Table(Object.fromEntries(table.schema.fields.map((f) => [f.name, f.name === name ? vector : table.getChild(f.name)!])));
}

/** A case drawn from `rng` (the fuzz test draws a stream of them from one generator). */
export function drawSqlCase(rng: Rng, options: SqlCaseOptions = {}): Omit<SqlCase, 'seed' | 'index'> {
  const f = options.features ?? {};
  const uses = new Set<SqlFeature>();
  const count = rng.int(2, 4);
  const maxRows = options.maxRows ?? 12;
  const nullRate = rng.pick([0, 0.15, 0.3]);
  const domain = rng.int(2, 7);
  const hot = rng.pick([0, 0, 0.5]);
  const tables: Record<string, Table> = {};
  for (let t = 0; t < count; t++) tables[`t${t}`] = randomSqlTable(rng, t, rng.chance(0.1) ? 0 : rng.int(1, maxRows), nullRate, domain, hot);

  const T = (t: number) => `t${t}`;
  const col = (t: number, c: 'k' | 'j' | 'v' | 's') => `${T(t)}.${c === 'v' || c === 's' ? `${c}${t}` : c}`;
  const key = () => rng.pick(['k', 'j'] as const);

  /** ON / WHERE keys between a table of `a` and one of `b`. */
  const keysBetween = (a: readonly number[], b: readonly number[]): string[] => {
    if (f.rangeJoins && rng.chance(0.25)) {
      uses.add('rangeJoins');
      const x = rng.pick(a);
      const y = rng.pick(b);
      const range = [`${col(x, rng.pick(['v', 'k'] as const))} ${rng.pick(OPS)} ${col(y, rng.pick(['v', 'k'] as const))}`];
      if (rng.chance(0.3)) range.push(`${col(rng.pick(a), 'k')} <> ${col(rng.pick(b), 'k')}`);
      return range;
    }
    const keys = [`${col(rng.pick(a), 'k')} = ${col(rng.pick(b), key())}`];
    if (rng.chance(0.3)) keys.push(`${col(rng.pick(a), 'j')} = ${col(rng.pick(b), 'j')}`);
    return keys;
  };

  const leafSql = (t: number): string => {
    if (!f.tableAliases || !rng.chance(0.25)) return T(t);
    // k and j trade names (both integer keys): every later `t<t>.k` reads the physical j
    uses.add('tableAliases');
    return rng.chance(0.7) ? `${T(t)} AS ${T(t)}(j, k)` : `(SELECT * FROM ${T(t)}) AS ${T(t)}(j, k)`;
  };
  const tree = (ts: readonly number[]): Tree => {
    if (ts.length === 1) return { sql: leafSql(ts[0]!), tables: ts, padded: new Set(), leaf: true };
    const split = rng.chance(0.6) ? ts.length - 1 : rng.int(1, ts.length - 1);
    const left = tree(ts.slice(0, split));
    const right = tree(ts.slice(split));
    const semi = f.semiAnti && rng.chance(0.2);
    if (semi) uses.add('semiAnti');
    if (!semi && f.asof && left.leaf && right.leaf && rng.chance(0.25)) {
      uses.add('asof');
      const [l, r] = [left.tables[0]!, right.tables[0]!];
      // the inequality on the DATE column or on v (0..20: equal values on both sides are common)
      const t = rng.pick(['d', 'v'] as const);
      tables[T(r)] = withDistinctValues(tables[T(r)]!, `${t}${r}`);
      const type = rng.chance(0.5) ? 'ASOF JOIN' : 'ASOF LEFT JOIN';
      const on = Array.from({ length: rng.int(0, 2) }, () => `${col(l, key())} = ${col(r, key())}`);
      const op = rng.pick(OPS);
      const ineq = rng.chance(0.7) ? `${T(l)}.${t}${l} ${op} ${T(r)}.${t}${r}` : `${T(r)}.${t}${r} ${FLIPPED[op]} ${T(l)}.${t}${l}`;
      on.splice(rng.int(0, on.length), 0, ineq);
      const padded = new Set<number>(type === 'ASOF LEFT JOIN' ? [r] : []);
      return { sql: `${left.sql} ${type} ${right.sql} ON ${on.join(' AND ')}`, tables: [l, r], padded, leaf: false };
    }
    const type = semi ? rng.pick(['SEMI JOIN', 'ANTI JOIN'] as const) : rng.pick(['JOIN', 'JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN', 'CROSS JOIN'] as const);
    const rightSql = right.leaf ? right.sql : `(${right.sql})`;
    const padded = new Set<number>([...left.padded, ...(semi ? [] : right.padded)]);
    if (type === 'LEFT JOIN' || type === 'FULL JOIN') for (const t of right.tables) padded.add(t);
    if (type === 'RIGHT JOIN' || type === 'FULL JOIN') for (const t of left.tables) padded.add(t);
    let sql: string;
    if (type === 'CROSS JOIN') sql = `${left.sql} CROSS JOIN ${rightSql}`;
    else if (left.leaf && right.leaf && rng.chance(0.2)) {
      // USING / NATURAL name columns of two single tables (unambiguous on both sides)
      sql = rng.chance(0.2) ? `${left.sql} NATURAL ${type} ${rightSql}` : `${left.sql} ${type} ${rightSql} USING (${rng.pick(['k', 'j', 'k, j'])})`;
    } else {
      const on = keysBetween(left.tables, right.tables);
      if (rng.chance(0.3)) on.push(`${col(rng.pick(right.tables), 'v')} ${rng.pick(['<', '>=', '<>'])} ${col(rng.pick(left.tables), 'v')}`);
      sql = `${left.sql} ${type} ${rightSql} ON ${on.join(' AND ')}`;
    }
    // a SEMI / ANTI JOIN's right side is visible to its ON condition only
    return { sql, tables: semi ? left.tables : [...left.tables, ...right.tables], padded, leaf: false };
  };

  const all = Array.from({ length: count }, (_, t) => t);
  const where: string[] = [];
  let from: string;
  let padded: Set<number>;
  /** The tables the query can name (all but SEMI / ANTI JOINs' right sides). */
  let order: readonly number[];
  if (rng.chance(0.3)) {
    // a comma list of trees, their keys in WHERE
    const items: number[][] = [];
    for (const t of all) {
      if (items.length === 0 || rng.chance(0.6)) items.push([t]);
      else items.at(-1)!.push(t);
    }
    const trees = items.map(tree);
    // written in a shuffled order: the planner must not depend on it (nor may `*` lose it)
    const written = [...trees];
    for (let i = written.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [written[i], written[j]] = [written[j]!, written[i]!];
    }
    from = written.map((x) => x.sql).join(', ');
    padded = new Set(trees.flatMap((x) => [...x.padded]));
    order = trees.flatMap((x) => x.tables);
    for (let i = 1; i < trees.length; i++) {
      if (rng.chance(0.85)) where.push(...keysBetween(trees.slice(0, i).flatMap((x) => x.tables), trees[i]!.tables));
    }
  } else {
    const x = tree(all);
    from = x.sql;
    padded = new Set(x.padded);
    order = x.tables;
  }

  const usable = order.filter((t) => !padded.has(t));
  const filterable = (): number | null => {
    if (f.outerWhere && padded.size > 0 && rng.chance(0.5)) {
      uses.add('outerWhere');
      return rng.pick([...padded]);
    }
    return usable.length > 0 ? rng.pick(usable) : null;
  };
  const c = () => rng.int(0, domain);
  const fcols = (t: number): FunctionColumns => ({ s: col(t, 's'), d: `${T(t)}.d${t}`, k: col(t, 'k'), v: col(t, 'v') });
  const one = (t: number): string => {
    if (f.functions && rng.chance(0.3)) {
      uses.add('functions');
      return functionConjunct(rng, fcols(t));
    }
    if (f.expressions && rng.chance(0.3)) {
      uses.add('expressions');
      return rng.pick([
        `COALESCE(${col(t, 'k')}, -1) = ${rng.int(-1, domain)}`,
        `CASE WHEN ${col(t, 's')} = 'a' THEN ${col(t, 'v')} ELSE 0 END > ${rng.int(0, 15)}`,
        `CAST(${col(t, 'j')} AS INTEGER) < ${c()}`,
        `CAST(${col(t, 'v')} AS VARCHAR) <> '1'`,
      ]);
    }
    return rng.pick([
      `${col(t, 'v')} < ${rng.int(0, 20)}`,
      `${col(t, 's')} = ${quoteString(rng.pick(['a', 'b', '']))}`,
      `${col(t, 'k')} IS NULL`,
      `${col(t, 'k')} IS NOT NULL`,
      `${col(t, 'k')} IN (${c()}, ${c()})`,
      `${col(t, 'j')} NOT IN (${c()}, ${c()})`,
      `(${col(t, 'v')} >= 5 OR ${col(t, 's')} <> 'c')`,
      `${col(t, 'v')} + ${col(t, 'k')} > ${rng.int(0, 20)}`,
    ]);
  };
  for (let n = rng.int(0, 2); n > 0; n--) {
    const t = filterable();
    if (t !== null) where.push(one(t));
  }
  if (f.outerWhere && padded.size > 0 && rng.chance(0.2)) {
    // the anti-join pattern, or a predicate across the tables of an outer join
    uses.add('outerWhere');
    const p = rng.pick([...padded]);
    const others = order.filter((t) => t !== p);
    where.push(rng.chance(0.5) || others.length === 0 ? `${col(p, 'k')} IS NULL` : `${col(p, 'v')} ${rng.pick(OPS)} ${col(rng.pick(others), 'v')}`);
  }
  if (f.subqueries && rng.chance(0.5)) {
    const o = filterable();
    if (o !== null) {
      uses.add('subqueries');
      const x = rng.int(0, count - 1);
      const not = rng.chance(0.5) ? 'NOT ' : '';
      const extra = rng.chance(0.4) ? ` AND sq.v${x} < ${rng.int(0, 20)}` : '';
      where.push(
        rng.pick([
          `${not}EXISTS (SELECT 1 FROM ${T(x)} AS sq WHERE sq.k = ${col(o, key())}${extra})`,
          `${not}EXISTS (SELECT 1 FROM ${T(x)} AS sq WHERE sq.v${x} > ${rng.int(0, 20)})`,
          `${col(o, key())} ${not}IN (SELECT sq.${key()} FROM ${T(x)} AS sq${rng.chance(0.5) ? ` WHERE sq.s${x} = 'a'` : ''})`,
          `${col(o, 'k')} ${not}IN (SELECT sq.k FROM ${T(x)} AS sq WHERE sq.j = ${col(o, 'j')})`,
        ]),
      );
    }
  }

  const subqueries: SubqueryContext = { count, col };
  if (f.scalarSubqueries && rng.chance(0.5)) {
    const o = filterable();
    if (o !== null) {
      uses.add('scalarSubqueries');
      where.push(scalarSubqueryConjunct(rng, subqueries, o));
    }
  }
  let withClause = '';
  if (f.cteTwice && rng.chance(0.3)) {
    const o = filterable();
    if (o !== null) {
      uses.add('cteTwice');
      const cte = cteReadTwice(rng, subqueries, o);
      withClause = `WITH ${cte.with} `;
      where.push(cte.conjunct);
    }
  }

  // SELECT
  const columns = order.flatMap((t) => [
    { sql: col(t, 'v'), alias: `v${t}` },
    { sql: col(t, 's'), alias: `s${t}` },
    { sql: col(t, 'k'), alias: `k${t}` },
    { sql: col(t, 'j'), alias: `j${t}` },
  ]);
  const some = <T>(xs: readonly T[], p: number): T[] => {
    const out = xs.filter(() => rng.chance(p));
    return out.length > 0 ? out : [rng.pick(xs)];
  };
  let select: { sql: string; alias: string }[];
  let distinct = false;
  let groupBy: string[] = [];
  let having: string | null = null;
  if (f.aggregates && rng.chance(0.5)) {
    uses.add('aggregates');
    if (rng.chance(0.25)) {
      distinct = true;
      select = some(columns, 0.2);
    } else {
      const groups = rng.chance(0.25) ? [] : some(columns, 0.12).slice(0, 2);
      const aggs = Array.from({ length: rng.int(1, 3) }, (_, i) => {
        const t = rng.pick(order);
        const fn = rng.pick([`count(*)`, `count(${col(t, 'v')})`, `sum(${col(t, 'v')})`, `min(${col(t, 's')})`, `max(${col(t, 'k')})`, `avg(${col(t, 'v')})`, `count(DISTINCT ${col(t, 'k')})`]);
        return { sql: fn, alias: `a${i}` };
      });
      select = [...groups, ...aggs];
      groupBy = groups.map((g) => g.sql);
      if (groups.length > 0 && rng.chance(0.3)) having = rng.pick([`count(*) > 1`, `sum(${col(rng.pick(order), 'v')}) >= ${rng.int(0, 30)}`, `min(${col(rng.pick(order), 'k')}) IS NOT NULL`]);
      if (groups.length > 0 && f.scalarSubqueries && rng.chance(0.2)) {
        uses.add('scalarSubqueries');
        const x = rng.int(0, count - 1);
        having = `count(*) * 3 >= (SELECT ${rng.pick(['count(*)', `min(sq.v${x})`, `avg(sq.v${x})`])} FROM t${x} AS sq)`;
      }
    }
  } else {
    select = some(columns, 0.4);
    if (f.scalarSubqueries && rng.chance(0.2)) {
      // an uncorrelated scalar subquery as a value (computed once, a constant of its type)
      uses.add('scalarSubqueries');
      const x = rng.int(0, count - 1);
      select.push({ sql: `${col(rng.pick(order), 'v')} + (SELECT ${rng.pick(['count(*)', `max(sq.v${x})`, `sum(sq.v${x})`])} FROM t${x} AS sq)`, alias: 'q0' });
    }
  }
  if (f.expressions && rng.chance(0.5)) {
    uses.add('expressions');
    const t = () => rng.pick(order);
    const exprs = [
      () => `${col(t(), 'v')} + ${col(t(), 'v')}`,
      () => `${col(t(), 'v')} * 2 - ${col(t(), 'k')}`,
      () => `${col(t(), 'v')} // 3`,
      () => `${col(t(), 'v')} % 4`,
      () => `${col(t(), 'v')} / 2`,
      () => `-${col(t(), 'v')}`,
      () => {
        const x = t();
        return `CASE WHEN ${col(x, 'k')} IS NULL THEN 'none' WHEN ${col(x, 'k')} < 2 THEN 'lo' ELSE 'hi' END`;
      },
      () => `COALESCE(${col(t(), 'k')}, ${col(t(), 'k')}, -1)`,
      () => `CAST(${col(t(), 'j')} AS INTEGER)`,
      () => `CAST(${col(t(), 'v')} AS VARCHAR)`,
    ];
    // under GROUP BY an expression must be grouped on too: only expressions of the grouped columns
    if (groupBy.length === 0 && !select.some((s) => /^(count|sum|min|max|avg)\(/.test(s.sql))) {
      for (let i = rng.int(1, 2); i > 0; i--) select.push({ sql: rng.pick(exprs)(), alias: `e${i}` });
    } else if (groupBy.length > 0) {
      // an expression of a grouped column is allowed next to the aggregates
      const g = groupBy[0]!;
      select.push({ sql: /\.s\d$/.test(g) ? `COALESCE(${g}, 'none')` : `COALESCE(${g}, -1) + 1`, alias: 'e0' });
    }
  }

  if (f.functions && groupBy.length === 0 && !select.some((x) => /^(count|sum|min|max|avg)\(/.test(x.sql)) && rng.chance(0.4)) {
    uses.add('functions');
    for (let i = rng.int(1, 2); i > 0; i--) select.push({ sql: functionExpression(rng, fcols(rng.pick(order))), alias: `fn${i}` });
  }

  // ORDER BY
  let totalOrder = false;
  let orderColumns: string[] = [];
  let tail = '';
  if (rng.chance(1 / 3)) {
    const names = select.map((s) => s.alias);
    const shuffled = [...names];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    totalOrder = rng.chance(0.7) || shuffled.length === 1;
    orderColumns = totalOrder ? shuffled : shuffled.slice(0, rng.int(1, shuffled.length - 1));
    const items = orderColumns.map((name) => {
      const ref = rng.chance(0.3) ? String(names.indexOf(name) + 1) : name;
      return `${ref}${rng.pick(['', ' ASC', ' DESC'])}${rng.pick(['', '', ' NULLS FIRST', ' NULLS LAST'])}`;
    });
    tail = ` ORDER BY ${items.join(', ')}`;
    if (f.limit && totalOrder && rng.chance(0.5)) {
      uses.add('limit');
      tail += ` LIMIT ${rng.int(0, 8)}${rng.chance(0.4) ? ` OFFSET ${rng.int(0, 5)}` : ''}`;
    }
  }

  const sql =
    `${withClause}SELECT ${distinct ? 'DISTINCT ' : ''}${select.map((s) => `${s.sql} AS ${s.alias}`).join(', ')} FROM ${from}` +
    (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '') +
    (groupBy.length > 0 ? ` GROUP BY ${groupBy.join(', ')}` : '') +
    (having !== null ? ` HAVING ${having}` : '') +
    tail;
  return { tables, sql, totalOrder, orderColumns, uses: SQL_FEATURES.filter((x) => uses.has(x)) };
}

/** Table `t<t>`: keys `k` (INTEGER) and `j` (BIGINT), payload `v<t>` (INTEGER), `s<t>` (VARCHAR) and `d<t>` (DATE). */
export function randomSqlTable(rng: Rng, t: number, rows: number, nullRate: number, domain: number, hot: number): Table {
  const key = () => (rng.chance(nullRate) ? null : rng.chance(hot) ? 0 : rng.int(0, domain));
  return new Table({
    k: vectorFromArray(Array.from({ length: rows }, key), new Int32()),
    j: vectorFromArray(
      Array.from({ length: rows }, () => {
        const v = key();
        return v === null ? null : BigInt(v);
      }),
      new Int64(),
    ),
    [`v${t}`]: vectorFromArray(Array.from({ length: rows }, () => (rng.chance(0.1) ? null : rng.int(0, 20))), new Int32()),
    [`s${t}`]: vectorFromArray(Array.from({ length: rows }, () => (rng.chance(0.1) ? null : rng.pick(['a', 'b', 'c', '']))), new Utf8()),
    // days 8401..9861: 1993-01-01 .. 1996-12-31 (DateDay takes milliseconds here)
    [`d${t}`]: vectorFromArray(Array.from({ length: rows }, () => (rng.chance(0.1) ? null : new Date(rng.int(8401, 9861) * 86_400_000))), new DateDay()),
  });
}

/**
 * The tables as DuckDB statements (CREATE [OR REPLACE] TABLE + INSERT): how `joinlab parity`
 * loads a SQL case into DuckDB, and what it prints for a failing one (it replays in the DuckDB CLI).
 */
export function tablesToSql(tables: Readonly<Record<string, Table>>, options: { replace?: boolean } = {}): string {
  const ident = (n: string) => (/^[a-z_][a-z0-9_]*$/.test(n) ? n : quoteIdent(n));
  const out: string[] = [];
  for (const [name, table] of Object.entries(tables)) {
    const fields = table.schema.fields;
    const typeOf = (t: string) => (t === 'Int32' ? 'INTEGER' : t === 'Int64' ? 'BIGINT' : t === 'Utf8' ? 'VARCHAR' : t === 'Date32<DAY>' ? 'DATE' : t);
    out.push(`CREATE ${options.replace ? 'OR REPLACE ' : ''}TABLE ${ident(name)} (${fields.map((f) => `${ident(f.name)} ${typeOf(String(f.type))}`).join(', ')});`);
    const rows: string[] = [];
    for (let r = 0; r < table.numRows; r++) {
      rows.push(
        `(${fields
          .map((f) => {
            const v: unknown = table.getChild(f.name)!.get(r);
            if (v === null || v === undefined) return 'NULL';
            if (String(f.type) === 'Date32<DAY>') return `DATE '${new Date(v as number).toISOString().slice(0, 10)}'`;
            return typeof v === 'string' ? quoteString(v) : String(v);
          })
          .join(', ')})`,
      );
    }
    if (rows.length > 0) out.push(`INSERT INTO ${ident(name)} VALUES ${rows.join(', ')};`);
  }
  return out.join('\n');
}
