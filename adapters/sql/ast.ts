/**
 * The SQL subset joinlab plans, as a typed tree: what `adapters/sql/parse.ts` makes of DuckDB's
 * own parse tree (`json_serialize_sql`), and what a binder and planner consume. No grammar lives
 * here or anywhere in joinlab — DuckDB parses; this tree only keeps the constructs joinlab can run,
 * each with the character offset it came from (`at`, null when the parser gave none), so an error
 * found while binding still points into the user's text.
 *
 * Constants keep their exact value: integers as `bigint` (a JSON number would round past 2^53),
 * decimals as unscaled `bigint` + scale, floats as `number`, strings as `string`.
 */

export type At = number | null;

export type SqlConstant =
  | { readonly type: 'NULL'; readonly value: null }
  | { readonly type: 'BOOLEAN'; readonly value: boolean }
  | { readonly type: 'INTEGER'; readonly value: bigint; readonly sqlType: string }
  | { readonly type: 'DECIMAL'; readonly value: bigint; readonly width: number; readonly scale: number }
  | { readonly type: 'DOUBLE'; readonly value: number; readonly sqlType: string }
  | { readonly type: 'VARCHAR'; readonly value: string };

export type CompareOp = '=' | '<>' | '<' | '<=' | '>' | '>=' | 'IS DISTINCT FROM' | 'IS NOT DISTINCT FROM';
export type ArithOp = '+' | '-' | '*' | '/' | '//' | '%';

export type SqlExpr =
  | { readonly kind: 'column'; readonly names: readonly string[]; readonly at: At }
  | { readonly kind: 'star'; readonly relation: string | null; readonly at: At }
  | { readonly kind: 'constant'; readonly constant: SqlConstant; readonly at: At }
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly left: SqlExpr; readonly right: SqlExpr; readonly at: At }
  | { readonly kind: 'and' | 'or'; readonly args: readonly SqlExpr[]; readonly at: At }
  | { readonly kind: 'not'; readonly arg: SqlExpr; readonly at: At }
  | { readonly kind: 'is-null'; readonly arg: SqlExpr; readonly negated: boolean; readonly at: At }
  | { readonly kind: 'in-list'; readonly arg: SqlExpr; readonly list: readonly SqlExpr[]; readonly negated: boolean; readonly at: At }
  /** Binary arithmetic, or unary minus (`args.length === 1`, op `-`). */
  | { readonly kind: 'arith'; readonly op: ArithOp; readonly args: readonly SqlExpr[]; readonly at: At }
  /** A function call: `count(*)` has `star`; aggregates may be `distinct`. */
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly SqlExpr[]; readonly distinct: boolean; readonly star: boolean; readonly at: At }
  | { readonly kind: 'case'; readonly whens: readonly { readonly when: SqlExpr; readonly then: SqlExpr }[]; readonly otherwise: SqlExpr | null; readonly at: At }
  /** `CAST(x AS type)` / `x::type`; `type` as DuckDB names it (`BIGINT`, `DECIMAL(10,2)`, `DATE`). */
  | { readonly kind: 'cast'; readonly arg: SqlExpr; readonly type: string; readonly at: At }
  | { readonly kind: 'exists'; readonly query: SelectQuery; readonly negated: boolean; readonly at: At }
  | { readonly kind: 'in-subquery'; readonly arg: SqlExpr; readonly query: SelectQuery; readonly negated: boolean; readonly at: At }
  /** `(SELECT …)` used as a value: one column, at most one row (none: NULL). */
  | { readonly kind: 'scalar-subquery'; readonly query: SelectQuery; readonly at: At };

/** `left-semi` / `left-anti`: DuckDB's `a SEMI JOIN b` / `a ANTI JOIN b` (only `a`'s columns come out). */
export type JoinKind = 'inner' | 'left' | 'right' | 'full' | 'cross' | 'left-semi' | 'left-anti';

export type TableRef =
  /** `columnAliases`: `t AS x(a, b)` renames the first columns (a prefix when fewer than the columns). */
  | { readonly kind: 'table'; readonly name: string; readonly alias: string | null; readonly columnAliases?: readonly string[]; readonly at: At }
  | { readonly kind: 'derived'; readonly query: SelectQuery; readonly alias: string | null; readonly columnAliases?: readonly string[]; readonly at: At }
  | {
      readonly kind: 'join';
      readonly type: JoinKind;
      readonly left: TableRef;
      readonly right: TableRef;
      /** `ASOF [LEFT] JOIN`: run by the ASOF join (operators/asof-join/), never reordered. */
      readonly asof?: boolean;
      /** `ON …` (null for USING, NATURAL, cross and comma joins). */
      readonly on: SqlExpr | null;
      readonly using: readonly string[] | null;
      readonly natural: boolean;
      readonly at: At;
    };

export interface SelectItem {
  readonly expr: SqlExpr;
  readonly alias: string | null;
  /**
   * The result column's name as DuckDB gives it: the alias, else a column's name, else the
   * expression's SQL text as DuckDB prints it (filled in by the parser); null for `*`.
   */
  readonly name: string | null;
  /** The item's parse tree as JSON (for naming an expression); absent when `name` needs none. */
  readonly source?: string;
}

export interface OrderItem {
  readonly expr: SqlExpr;
  readonly descending: boolean;
  /** null: the default (DuckDB: NULLS LAST). */
  readonly nullsFirst: boolean | null;
}

export interface SelectQuery {
  /** Non-recursive CTEs, in the order written. */
  /** `columnAliases`: `WITH c(a, b) AS (…)` renames the CTE's first columns (extra names are ignored, as DuckDB does). */
  readonly ctes: readonly { readonly name: string; readonly query: SelectQuery; readonly columnAliases?: readonly string[] }[];
  readonly distinct: boolean;
  readonly select: readonly SelectItem[];
  /** null: no FROM (`SELECT 1`). */
  readonly from: TableRef | null;
  readonly where: SqlExpr | null;
  readonly groupBy: readonly SqlExpr[];
  readonly having: SqlExpr | null;
  readonly orderBy: readonly OrderItem[];
  readonly limit: bigint | null;
  readonly offset: bigint | null;
}
