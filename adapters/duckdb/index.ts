/**
 * The DuckDB adapter: the reference engine every joinlab result is checked against.
 * `DuckDBSession` moves Arrow data in and out of DuckDB, `joinToSql` states a JoinSpec in SQL,
 * `compareResults` judges two results as multisets.
 */
export { DuckDBSession, APPEND_CHUNK_ROWS, duckdbTypesFor, resultToArrow } from './session.ts';
export type { DuckDBSessionOptions } from './session.ts';
export {
  joinToSql,
  joinCondition,
  outputColumnNames,
  LEFT_ALIAS,
  RIGHT_ALIAS,
  MARK_COLUMN,
} from './join-sql.ts';
export type { JoinInput } from './join-sql.ts';
export { compareResults, formatComparison, decimalText } from './compare.ts';
export type { CompareOptions, ComparisonResult, Row } from './compare.ts';
