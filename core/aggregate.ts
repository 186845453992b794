/**
 * The aggregation vocabulary (issue 14: SQL `GROUP BY`, aggregates, `SELECT DISTINCT`): what a
 * hash aggregate is asked to compute, independent of the operator that computes it
 * (operators/aggregate/). DuckDB's semantics are the reference:
 *  - groups: NULL is a group of its own (GROUP BY keeps NULL keys together, unlike `=`);
 *  - `count_star` counts rows, `count` non-NULL values; both BIGINT, 0 over no rows;
 *  - `sum`, `min`, `max`, `avg` skip NULLs and are NULL over no (non-NULL) values;
 *  - result types as DuckDB gives them: sum of any integer is HUGEINT (Arrow Decimal128(38,0), as
 *    DuckDB's own Arrow export writes it), sum of DECIMAL(p,s) is DECIMAL(38,s), sum of FLOAT or
 *    DOUBLE is DOUBLE; avg is DOUBLE for every numeric input, DECIMAL included (DuckDB 1.5.6's
 *    `BindDecimalAvg`; its exact-input division rules are in operators/aggregate/avg-finalize.ts);
 *    min/max keep the input type;
 *  - `distinct: true` aggregates each group's distinct non-NULL values only;
 *  - no `groupBy` columns: exactly one output row, even over an empty input.
 * `SELECT DISTINCT a, b` is an aggregate grouped by every column with no aggregates. Output column
 * names (group columns, then each call's `as`) must be distinct.
 */

export const AGGREGATE_FUNCTIONS = ['count_star', 'count', 'sum', 'min', 'max', 'avg'] as const;
export type AggregateFunction = (typeof AGGREGATE_FUNCTIONS)[number];

export interface AggregateCall {
  readonly fn: AggregateFunction;
  /** The input column; null only for `count_star`. */
  readonly column: string | null;
  readonly distinct: boolean;
  /** The output column's name. */
  readonly as: string;
}

export interface AggregateSpec {
  /** Group-by input columns, output first under their own names, in this order. */
  readonly groupBy: readonly string[];
  /** Output after the group columns, in this order. */
  readonly aggregates: readonly AggregateCall[];
}
