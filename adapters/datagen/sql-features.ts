/**
 * The SQL features random queries (random-sql.ts) may use, and which of them joinlab's planner
 * claims — a module of its own, with no imports, so the CLI can name them without loading the
 * generator. See random-sql.ts for what each feature draws.
 */
export interface SqlFeatures {
  readonly subqueries?: boolean;
  readonly aggregates?: boolean;
  readonly expressions?: boolean;
  readonly rangeJoins?: boolean;
  readonly outerWhere?: boolean;
  readonly limit?: boolean;
  readonly functions?: boolean;
  readonly scalarSubqueries?: boolean;
  readonly cteTwice?: boolean;
  readonly tableAliases?: boolean;
  readonly semiAnti?: boolean;
  readonly asof?: boolean;
}

export type SqlFeature = keyof SqlFeatures;

export const SQL_FEATURES: readonly SqlFeature[] = ['subqueries', 'aggregates', 'expressions', 'rangeJoins', 'outerWhere', 'limit', 'functions', 'scalarSubqueries', 'cteTwice', 'tableAliases', 'semiAnti', 'asof'];

/**
 * The features joinlab's SQL planner (adapters/sql/run.ts) claims to run: `joinlab parity` and the
 * SQL fuzz test draw queries with these, and an UnsupportedSqlError on such a query is a failure.
 * Switch one on when its queries pass (`joinlab parity --sql-share 1 --sql-features NAME` fuzzes
 * a feature before it is claimed).
 */
export const CLAIMED_SQL_FEATURES: SqlFeatures = {
  // joins on inequalities (a lone one: the range predicate; else the nested-loop join)
  rangeJoins: true,
  limit: true,
  // [NOT] EXISTS / [NOT] IN as semi / anti / null-aware anti / mark joins (adapters/sql/subquery.ts)
  subqueries: true,
  // the evaluator's expressions in SELECT and WHERE (core/expr/project.ts)
  expressions: true,
  // WHERE conjuncts above outer joins (a row filter on the FROM result)
  outerWhere: true,
  // GROUP BY / aggregates / HAVING through the hash aggregate (adapters/sql/aggregate-query.ts)
  aggregates: true,
  // LIKE / ILIKE / ESCAPE, extract, substring, ||, concat, date constants with intervals
  // (core/expr/functions.ts, adapters/sql/temporal-fold.ts)
  functions: true,
  // scalar subqueries: uncorrelated ones inlined as typed constants, correlated ones in WHERE
  // decorrelated into a join with the grouped subquery (adapters/sql/typed-constant.ts, decorrelate.ts)
  scalarSubqueries: true,
  // a CTE run once and read in FROM and subqueries alike (adapters/sql/run.ts)
  cteTwice: true,
  // `t AS x(a, b)` (adapters/sql/join-tree.ts leafColumns)
  tableAliases: true,
  // DuckDB's SEMI JOIN / ANTI JOIN (left-semi / left-anti joins)
  semiAnti: true,
  // ASOF [LEFT] JOIN between two tables, run on the ASOF join (operators/asof-join, docs/asof.md)
  asof: true,
};
