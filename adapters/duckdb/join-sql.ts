/**
 * Translate a `JoinSpec` into the DuckDB SQL that means exactly the same join.
 *
 * This is the other half of parity testing: joinlab runs the spec, DuckDB runs this text, and the
 * two results are compared as multisets. So the SQL mirrors joinlab's semantics clause by clause:
 * `=` vs `IS NOT DISTINCT FROM` for the two null-equality modes, DuckDB's `SEMI JOIN` / `ANTI JOIN`
 * for semi/anti, `NOT IN` for the null-aware anti join, `EXISTS (…) AS mark` for mark joins, and
 * the residual filter inside the join condition (so an outer join null-pads a row whose filter
 * fails).
 *
 * Correlated subqueries and the sign of zero. DuckDB plans a correlated subquery as a join against
 * the DISTINCT values of the outer columns it reads, and DISTINCT folds -0.0 into 0.0; so when the
 * filter computes something that sees the sign (`w / v` with v = -0.0 is +inf, not -inf), every
 * -0.0 row gets the 0.0 row's answer (`EXISTS`, `NOT IN` and the mark join did; DuckDB's own
 * `SEMI JOIN` and a direct evaluation do not; found by the CI fuzzer, seed 2821941436). So
 * semi/anti use `SEMI JOIN` / `ANTI JOIN`, and when the filter reads the outer side a mark join
 * becomes `rid IN (outer SEMI JOIN inner)` and a NOT IN subquery also reads `rid`, over the outer
 * rows numbered once in a materialized CTE: each row its own group, so nothing is folded. A
 * filter that reads only the inner side (or no filter) keeps the plain correlated form.
 *
 * Output column names come from the same function joinlab's operators use
 * (`core/output-schema.ts`, re-exported here), so both agree by construction, not by convention.
 *
 * `l` and `r` are always the aliases of the left and right input, whichever side is returned.
 * A `select` list wraps the full join in `SELECT <names> FROM (…)`.
 */
import type { JoinSpec, JoinType, KeyPair } from '../../core/types.ts';
import { isAntiJoin, isMarkJoin, isSemiJoin, outputSides } from '../../core/types.ts';
import { exprToSql, qualifiedColumn, quoteIdent } from '../../core/expr/sql.ts';
import { referencedColumns } from '../../core/expr/ast.ts';
import { UnsupportedJoinError, UsageError } from '../../core/errors.ts';
import { MARK_COLUMN, outputColumnNames } from '../../core/output-schema.ts';

/**
 * The naming rule is owned by `core/output-schema.ts` (joinlab's operators build their output
 * schema with it); re-exported here so SQL and operators cannot drift apart:
 * left names unchanged, then right names, a right name already taken getting `_right` appended
 * until unique (left [k, v], right [k, w] -> [k, v, k_right, w]); mark joins append `mark`.
 */
export { MARK_COLUMN, outputColumnNames };

export const LEFT_ALIAS = 'l';
export const RIGHT_ALIAS = 'r';

export interface JoinInput {
  /** Table (or view) name; quoted as one identifier. */
  readonly table: string;
  /** The input's columns, in order. */
  readonly columns: readonly string[];
}

function keyConjunct(k: KeyPair, spec: JoinSpec): string {
  const l = qualifiedColumn(LEFT_ALIAS, k.left);
  const r = qualifiedColumn(RIGHT_ALIAS, k.right);
  return spec.nullEquality === 'null-equals-null' ? `(${l} IS NOT DISTINCT FROM ${r})` : `(${l} = ${r})`;
}

function rangeConjunct(spec: JoinSpec): string[] {
  if (!spec.range) return [];
  const { left, op, right } = spec.range;
  return [`(${qualifiedColumn(LEFT_ALIAS, left)} ${op} ${qualifiedColumn(RIGHT_ALIAS, right)})`];
}

function filterConjunct(spec: JoinSpec): string[] {
  return spec.filter ? [exprToSql(spec.filter, LEFT_ALIAS, RIGHT_ALIAS)] : [];
}

function conjunction(parts: readonly string[]): string {
  return parts.length === 0 ? 'TRUE' : parts.join(' AND ');
}

/** The full join condition: key pairs, then the range predicate, then the residual filter. */
export function joinCondition(spec: JoinSpec): string {
  return conjunction([...spec.on.map((k) => keyConjunct(k, spec)), ...rangeConjunct(spec), ...filterConjunct(spec)]);
}

function from(input: JoinInput, alias: string): string {
  return `${quoteIdent(input.table)} AS ${alias}`;
}

function projection(alias: string, cols: readonly string[], names: readonly string[]): string[] {
  return cols.map((c, i) => `${qualifiedColumn(alias, c)} AS ${quoteIdent(names[i]!)}`);
}

const JOIN_KEYWORDS: Partial<Record<JoinType, string>> = {
  inner: 'INNER JOIN',
  left: 'LEFT OUTER JOIN',
  right: 'RIGHT OUTER JOIN',
  full: 'FULL OUTER JOIN',
};

/** The CTE that numbers the outer side's rows, for subqueries correlated through the filter. */
const NUMBERED_OUTER = 'joinlab_numbered_outer';

/** Whether the residual filter reads a column of the side aliased `alias`. */
function filterReadsSide(spec: JoinSpec, alias: string): boolean {
  if (!spec.filter) return false;
  const refs = referencedColumns(spec.filter);
  return (alias === LEFT_ALIAS ? refs.left : refs.right).size > 0;
}

/** A row-number column name that none of `columns` has. */
function rowIdColumn(columns: readonly string[]): string {
  let name = 'joinlab_rid';
  while (columns.includes(name)) name += '_';
  return name;
}

/** `WITH … AS MATERIALIZED (SELECT *, row_number() OVER () AS rid FROM outer) `: numbered once. */
function numberedOuter(outer: JoinInput, rid: string): string {
  return `WITH ${quoteIdent(NUMBERED_OUTER)} AS MATERIALIZED (SELECT *, row_number() OVER () AS ${quoteIdent(rid)} FROM ${quoteIdent(outer.table)}) `;
}

/**
 * The DuckDB SQL for `spec` over two tables. Output columns: for inner/left/right/full, every left
 * column then every right column (named by `outputColumnNames`); for semi/anti, the returned
 * side's columns; for mark, the returned side's columns plus a boolean `mark`.
 */
export function joinToSql(spec: JoinSpec, left: JoinInput, right: JoinInput): string {
  const sql = fullJoinToSql(spec, left, right);
  // output names are unique, so a select list is a plain projection of the full join
  if (spec.select === undefined) return sql;
  return `SELECT ${spec.select.map(quoteIdent).join(', ')} FROM (${sql}) AS joined`;
}

const ASOF_KEYWORDS: Partial<Record<JoinType, string>> = {
  inner: 'ASOF JOIN',
  left: 'ASOF LEFT JOIN',
  right: 'ASOF RIGHT JOIN',
  full: 'ASOF FULL JOIN',
};

/**
 * The DuckDB SQL of `spec` run as an ASOF join (`join=asof`, operators/asof-join): `ASOF [LEFT |
 * RIGHT | FULL] JOIN … ON <keys> AND <the range predicate>`, each left row paired with the closest
 * right row only. Output columns as `joinToSql`'s for inner / left / right / full. A spec no ASOF
 * join takes (no range, a filter, NULL = NULL keys, another join type) is an UnsupportedJoinError.
 */
export function asofJoinToSql(spec: JoinSpec, left: JoinInput, right: JoinInput): string {
  const keyword = ASOF_KEYWORDS[spec.type];
  if (keyword === undefined || !spec.range || spec.filter || spec.nullAware || (spec.on.length > 0 && spec.nullEquality === 'null-equals-null')) {
    throw new UnsupportedJoinError(`no ASOF JOIN means this ${spec.type} join: it takes = keys and one range predicate, inner / left / right / full`);
  }
  const names = outputColumnNames(left.columns, right.columns);
  const cols = [
    ...projection(LEFT_ALIAS, left.columns, names.slice(0, left.columns.length)),
    ...projection(RIGHT_ALIAS, right.columns, names.slice(left.columns.length)),
  ];
  if (cols.length === 0) throw new UsageError('a join needs at least one output column');
  const sql = `SELECT ${cols.join(', ')} FROM ${from(left, LEFT_ALIAS)} ${keyword} ${from(right, RIGHT_ALIAS)} ON ${joinCondition(spec)}`;
  return spec.select === undefined ? sql : `SELECT ${spec.select.map(quoteIdent).join(', ')} FROM (${sql}) AS joined`;
}

function fullJoinToSql(spec: JoinSpec, left: JoinInput, right: JoinInput): string {
  const side = outputSides(spec.type);
  if (side === 'both') {
    const names = outputColumnNames(left.columns, right.columns);
    const cols = [
      ...projection(LEFT_ALIAS, left.columns, names.slice(0, left.columns.length)),
      ...projection(RIGHT_ALIAS, right.columns, names.slice(left.columns.length)),
    ];
    if (cols.length === 0) throw new UsageError('a join needs at least one output column');
    return (
      `SELECT ${cols.join(', ')} FROM ${from(left, LEFT_ALIAS)} ` +
      `${JOIN_KEYWORDS[spec.type]} ${from(right, RIGHT_ALIAS)} ON ${joinCondition(spec)}`
    );
  }

  // One-sided: `outer` is the side whose rows come back, `inner` the side only tested.
  const [outer, outerAlias, inner, innerAlias] =
    side === 'left'
      ? ([left, LEFT_ALIAS, right, RIGHT_ALIAS] as const)
      : ([right, RIGHT_ALIAS, left, LEFT_ALIAS] as const);
  const cols = projection(outerAlias, outer.columns, outer.columns);
  const innerFrom = from(inner, innerAlias);
  // see the module doc: a subquery correlated through the filter is given a row number to carry
  const rid = filterReadsSide(spec, outerAlias) ? rowIdColumn(outer.columns) : null;
  const outerFrom = rid === null ? from(outer, outerAlias) : `${quoteIdent(NUMBERED_OUTER)} AS ${outerAlias}`;
  const withNumbered = rid === null ? '' : numberedOuter(outer, rid);

  if (isMarkJoin(spec.type)) {
    const mark =
      rid === null
        ? `EXISTS (SELECT 1 FROM ${innerFrom} WHERE ${joinCondition(spec)})`
        : `${qualifiedColumn(outerAlias, rid)} IN (SELECT ${qualifiedColumn(outerAlias, rid)} FROM ${outerFrom} SEMI JOIN ${innerFrom} ON ${joinCondition(spec)})`;
    cols.push(`${mark} AS ${quoteIdent(MARK_COLUMN)}`);
    return `${withNumbered}SELECT ${cols.join(', ')} FROM ${outerFrom}`;
  }
  if (cols.length === 0) throw new UsageError(`a ${spec.type} join needs at least one output column`);
  const head = `${withNumbered}SELECT ${cols.join(', ')} FROM ${outerFrom}`;

  if (isAntiJoin(spec.type) && spec.nullAware) {
    if (spec.on.length !== 1) {
      throw new UnsupportedJoinError(
        `a null-aware (NOT IN) ${spec.type} join needs exactly one key pair, got ${spec.on.length}`,
      );
    }
    const k = spec.on[0]!;
    const [outerKey, innerKey] = side === 'left' ? [k.left, k.right] : [k.right, k.left];
    const where = [...rangeConjunct(spec), ...filterConjunct(spec)];
    if (rid !== null) where.push(`(${qualifiedColumn(outerAlias, rid)} > 0)`);
    const sub = `SELECT ${qualifiedColumn(innerAlias, innerKey)} FROM ${innerFrom}` + (where.length ? ` WHERE ${conjunction(where)}` : '');
    return `${head} WHERE ${qualifiedColumn(outerAlias, outerKey)} NOT IN (${sub})`;
  }

  if (isAntiJoin(spec.type) && !filterReadsSide(spec, outerAlias)) {
    // DuckDB 1.5.6 plans `l ANTI JOIN r ON … AND <a conjunct on r alone that no row of r passes>`
    // as EMPTY_RESULT — every left row should come back (found by the CI fuzzer, seed 609383873;
    // right with the optimizer disabled, and as NOT EXISTS). With no outer column in the filter the
    // correlated form has no -0.0 folding to fear (module doc), so it is used here.
    return `SELECT ${cols.join(', ')} FROM ${from(outer, outerAlias)} WHERE NOT EXISTS (SELECT 1 FROM ${innerFrom} WHERE ${joinCondition(spec)})`;
  }
  if (isSemiJoin(spec.type) || isAntiJoin(spec.type)) {
    // DuckDB's own SEMI / ANTI JOIN: the same answer as [NOT] EXISTS, with nothing correlated
    const keyword = isAntiJoin(spec.type) ? 'ANTI JOIN' : 'SEMI JOIN';
    return `SELECT ${cols.join(', ')} FROM ${from(outer, outerAlias)} ${keyword} ${innerFrom} ON ${joinCondition(spec)}`;
  }
  throw new UnsupportedJoinError(`join type '${spec.type}' has no SQL translation`);
}
