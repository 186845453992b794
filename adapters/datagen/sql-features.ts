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
}

export type SqlFeature = keyof SqlFeatures;

export const SQL_FEATURES: readonly SqlFeature[] = ['subqueries', 'aggregates', 'expressions', 'rangeJoins', 'outerWhere', 'limit'];

/**
 * The features joinlab's SQL planner (adapters/sql/run.ts) claims to run: `joinlab parity` and the
 * SQL fuzz test draw queries with these, and an UnsupportedSqlError on such a query is a failure.
 * Switch one on when its queries pass (`joinlab parity --sql-share 1 --sql-features NAME` fuzzes
 * a feature before it is claimed).
 */
export const CLAIMED_SQL_FEATURES: SqlFeatures = {
  // joins on inequalities already run (a residual-only join: nested loop or piecewise merge)
  rangeJoins: true,
  // LIMIT / OFFSET over an EMPTY result throws a TypeError in runSql (Arrow's Table.slice on a
  // table of no batches, adapters/sql/run.ts): claim it when that is fixed
  limit: false,
};
