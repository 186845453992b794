/**
 * A query's FROM clause as a tree of joinlab joins, streamed (issue 14).
 *
 * Shape: left-deep in the order the query writes the joins (parenthesised joins keep their
 * shape). Which input of each join is built and which probed is the join algorithm's choice
 * (`hash.build: auto` builds the side with fewer rows: a table's row count from its metadata; a
 * join's output is estimated as its larger input's, its preserved side's for semi/anti), so a
 * written order `fact, d1, d2` still builds every dimension and probes with the fact rows — the
 * "smaller side builds" rule.
 *
 * Execution: each join is an `Engine.stream` whose inputs are the FROM tables' scans or the
 * streams of the joins below (stream-scan.ts); nothing is materialised between joins. When the
 * top join is read, each join builds and then reads its probe input, so by the time the fact scan
 * starts every dimension's filter above it is published: a filter is routed down to the scan that
 * produces its column whenever that column passes through every join in between unchanged AND
 * none of those joins could output a row for a fact row the filter drops:
 *   - INNER / CROSS: both sides pass (a dropped row only removes its own matches);
 *   - LEFT: only the left side (a dropped right row could turn a left row into a NULL-padded
 *     one); RIGHT: only the right; FULL: neither;
 *   - ASOF: only the left side (a dropped right row could make another one the closest);
 *   - semi / anti / mark joins: their output side (a dropped row removes only its own output row);
 *     the other side has no output columns (and for anti joins, dropping its rows ADDS rows).
 * The join that builds the filter only publishes one when its own probe side's unmatched rows are
 * dropped (operators/common/roles.ts `canPushDown`), so a LEFT join's build never filters its
 * preserved side, through any number of joins.
 *
 * Conditions: a join's ON conjuncts (and the WHERE conjuncts placed on it) that equate a column
 * of each input become keys (`=`: NULLs never match; `IS NOT DISTINCT FROM` keys make the join
 * null-equals-null when every key is one); with no key, one inequality between a column of each
 * input becomes the join's range predicate (the piecewise merge join with `join: auto`, or the
 * nested-loop join when a residual remains); everything else is the residual filter, evaluated on
 * candidate pairs — exactly ON's meaning for every join type.
 *
 * WHERE, per conjunct (a conjunct with a subquery is the caller's, see subquery.ts):
 *  - on ONE table that no outer join above pads with NULLs: that table's static scan predicate
 *    (static-filter.ts: filters rows and prunes containers by min/max);
 *  - else at the lowest join holding every table it names when only INNER / CROSS joins lie on
 *    the way (a predicate on their output is one on their matched pairs);
 *  - else (above an outer join) a row filter on the FROM result, after every join.
 */
import type { Schema } from 'apache-arrow';
import type { JoinInput, JoinStream } from '../../core/engine.ts';
import { UnsupportedJoinError, UsageError } from '../../core/errors.ts';
import type { MemoryPool } from '../../core/memory/pool.ts';
import type { Expr } from '../../core/expr/ast.ts';
import { MARK_COLUMN, outputColumnNames } from '../../core/output-schema.ts';
import { FilteredScan } from '../../core/scan/filtered-scan.ts';
import type { Scan, ScanPredicate } from '../../core/scan/scan.ts';
import type { SqlExpr, TableRef } from './ast.ts';
import type { JoinSpecInput } from '../../core/spec.ts';
import type { JoinType, KeyPair, RangeOp, RangePredicate } from '../../core/types.ts';
import { joinNode, scanNode, type JoinExec } from './explain.ts';
import { childrenOf, conjuncts, lookup, NO_COLUMNS, notYet, resolveIn, toExpr, type Relation, type Visible } from './relation.ts';
import { staticPredicate, type StaticConjunct } from './static-filter.ts';
import { GatedScan, JoinStreamScan, openGate, PushdownTarget, type Route, type SipGate } from './stream-scan.ts';

export type { JoinExec } from './explain.ts';

/** What running a join tree needs of an engine. */
export interface StreamEngine {
  stream(spec: JoinSpecInput, left: JoinInput, right: JoinInput, options?: { signal?: AbortSignal; pool?: MemoryPool; algorithm?: string }): Promise<JoinStream>;
}

export type Leaf = {
  readonly kind: 'leaf';
  readonly name: string;
  readonly table: string;
  readonly scan: Scan;
  /** The SQL names of the scan's first columns (`t AS x(a, b)`), the rest keep theirs. */
  readonly columnAliases?: readonly string[];
  readonly statics: SqlExpr[];
  nullable: boolean;
  rel: Relation | null;
  target: PushdownTarget | null;
  /** Estimated rows after the static conjuncts (cardinality.ts), once estimated. */
  estimate?: number;
  /** Its place among the FROM clause's tables as written (set by the planner; `Visible.written`). */
  position?: number;
};
export type JoinNode = {
  readonly kind: 'join';
  readonly type: JoinType | 'cross';
  readonly left: FromPlan;
  readonly right: FromPlan;
  readonly on: SqlExpr | null;
  readonly using: readonly string[] | null;
  readonly natural: boolean;
  /** `ASOF JOIN`: run by the ASOF join; a barrier to reordering and to WHERE pushdown into its right side. */
  readonly asof?: boolean;
  readonly where: SqlExpr[];
  readonly rels: ReadonlySet<string>;
  /** WHERE conjuncts on this join's output (only the root's: WHERE above an outer join). */
  post: SqlExpr[];
  /** Filled when it runs. */
  exec: JoinExec | null;
  /** Estimated output rows (cardinality.ts), once estimated. */
  estimate?: number;
};
export type FromPlan = Leaf | JoinNode;


export async function bindFrom(ref: TableRef, tables: (name: string, at: number | null) => Promise<Scan>, derived: (ref: Extract<TableRef, { kind: 'derived' }>) => Promise<Scan>): Promise<FromPlan> {
  switch (ref.kind) {
    case 'table': {
      const scan = await tables(ref.name, ref.at);
      return { kind: 'leaf', name: ref.alias ?? ref.name, table: ref.name, scan, ...aliased(ref, scan), statics: [], nullable: false, rel: null, target: null };
    }
    case 'derived': {
      if (ref.alias === null) notYet('a derived table without an alias', ref.at);
      const scan = await derived(ref);
      return { kind: 'leaf', name: ref.alias!, table: `(subquery ${ref.alias})`, scan, ...aliased(ref, scan), statics: [], nullable: false, rel: null, target: null };
    }
    case 'join': {
      const left = await bindFrom(ref.left, tables, derived);
      const right = await bindFrom(ref.right, tables, derived);
      const rels = new Set([...relsOf(left), ...relsOf(right)]);
      for (const r of relsOf(right)) if (relsOf(left).has(r)) throw new UsageError(`duplicate table name '${r}' in FROM: give one an alias`);
      return { kind: 'join', type: ref.type, left, right, on: ref.on, using: ref.using, natural: ref.natural, ...(ref.asof === true ? { asof: true } : {}), where: [], rels, post: [], exec: null };
    }
  }
}

export function relsOf(p: FromPlan): ReadonlySet<string> {
  return p.kind === 'leaf' ? new Set([p.name]) : p.rels;
}

export function leaves(p: FromPlan): Leaf[] {
  return p.kind === 'leaf' ? [p] : [...leaves(p.left), ...leaves(p.right)];
}

/** A table reference's column aliases, checked against its scan (DuckDB's binder error when too many). */
function aliased(ref: Extract<TableRef, { kind: 'table' | 'derived' }>, scan: Scan): { columnAliases?: readonly string[] } {
  const names = ref.columnAliases ?? [];
  if (names.length === 0) return {};
  const n = scan.schema.fields.length;
  if (names.length > n) throw new UsageError(`table "${ref.alias ?? (ref.kind === 'table' ? ref.name : 'subquery')}" has ${n} columns available but ${names.length} columns specified`);
  return { columnAliases: names };
}

/** The columns a leaf shows the query (its scan's, qualified by its name, the first ones renamed by its column aliases). */
export function leafColumns(leaf: Leaf): Visible[] {
  const aliases = leaf.columnAliases ?? [];
  return leaf.scan.schema.fields.map((f, i) => ({ rel: leaf.name, name: aliases[i] ?? f.name, out: f.name, merged: false, route: null }));
}

/** Marks leaves on the NULL-padded side of an outer join above them. */
export function markNullable(p: FromPlan, nullable: boolean): void {
  if (p.kind === 'leaf') {
    p.nullable = nullable;
    return;
  }
  markNullable(p.left, nullable || p.type === 'right' || p.type === 'full');
  // an ASOF join's right side too: a WHERE conjunct pushed into it would change which row is closest
  markNullable(p.right, nullable || p.type === 'left' || p.type === 'full' || p.asof === true);
}

/** Relation names a condition reads (`t.c` directly; a bare `c` through the leaves that have it). */
export function relsRead(e: SqlExpr, plan: FromPlan): Set<string> {
  return relsReadIn(e, leaves(plan));
}

/** Relation names a condition reads among the tables of `scope` (see `relsRead`). */
export function relsReadIn(e: SqlExpr, scope: readonly Leaf[], out = new Set<string>()): Set<string> {
  if (e.kind === 'column') {
    if (e.names.length === 2) out.add(e.names[0]!);
    else for (const l of scope) if (leafColumns(l).some((c) => c.name === e.names[0])) out.add(l.name);
    return out;
  }
  for (const child of childrenOf(e)) relsReadIn(child, scope, out);
  return out;
}

/**
 * Places the WHERE conjuncts: static scan predicates, join conditions, or (returned) row filters
 * on the FROM result. See the module comment.
 */
export function placeWhere(plan: FromPlan, where: readonly SqlExpr[]): void {
  markNullable(plan, false);
  const above: SqlExpr[] = [];
  for (const c of where) {
    const needs = relsRead(c, plan);
    const all = leaves(plan);
    // one table: every conjunct is its (an unknown name then fails as the predicate is compiled)
    const leaf = plan.kind === 'leaf' ? plan : needs.size === 1 ? (all.find((l) => needs.has(l.name)) ?? null) : null;
    if (leaf !== null && !leaf.nullable) leaf.statics.push(c);
    else if (!placeOnJoin(plan, c, needs)) above.push(c);
  }
  if (plan.kind === 'join') plan.post.push(...above);
}

function placeOnJoin(plan: FromPlan, c: SqlExpr, needs: ReadonlySet<string>): boolean {
  let node: FromPlan = plan;
  for (;;) {
    if (node.kind !== 'join' || (node.type !== 'inner' && node.type !== 'cross') || node.asof === true) return false;
    const join: JoinNode = node;
    const inLeft = needs.size > 0 && [...needs].every((r) => relsOf(join.left).has(r));
    const inRight = needs.size > 0 && [...needs].every((r) => relsOf(join.right).has(r));
    const next = inLeft ? join.left : inRight ? join.right : null;
    if (next !== null && next.kind === 'join' && (next.type === 'inner' || next.type === 'cross') && next.asof !== true) node = next;
    else {
      join.where.push(c);
      return true;
    }
  }
}

/** A leaf's static conjuncts as one scan predicate (rows and containers), or null when it has none. */
export function leafPredicate(leaf: Leaf, pool?: MemoryPool): ScanPredicate | null {
  if (leaf.statics.length === 0) return null;
  const shape = { columns: leafColumns(leaf) };
  const parts: StaticConjunct[] = leaf.statics.map((sql) => ({
    sql,
    expr: toExpr(sql, shape, NO_COLUMNS),
    column: (col) => {
      const v = lookup(shape, col.names);
      return v === null || v === 'ambiguous' ? null : v.out;
    },
  }));
  return staticPredicate(parts, leaf.scan.schema, `WHERE on ${leaf.name}`, pool);
}

/** Each leaf's relation: its scan behind its static predicate, inside a PushdownTarget. */
function openLeaf(leaf: Leaf, gate: SipGate, pool: MemoryPool): Relation {
  const columns = leafColumns(leaf);
  const predicate = leafPredicate(leaf, pool);
  const scan = predicate === null ? leaf.scan : new FilteredScan(leaf.scan, predicate);
  const target = new PushdownTarget(scan, leaf.name, leaf.table, leaf.estimate, gate);
  leaf.target = target;
  const rel: Relation = {
    input: target,
    columns: columns.map((c) => ({ ...c, route: { target, column: c.out }, ...(leaf.position !== undefined ? { written: leaf.position } : {}) })),
    rels: new Set([leaf.name]),
    coalescedUsing: false,
    describe: () => scanNode(leaf.name, leaf.table, target, leaf.statics, leaf.scan),
  };
  leaf.rel = rel;
  return rel;
}

/** How a condition on a mark join's output names the mark (no query can name it itself). */
export const MARK_SQL_NAME = '\u0000mark';

export interface TreeContext {
  readonly engine: StreamEngine;
  readonly signal?: AbortSignal;
  /** The query's memory: every join of the tree reserves here, against one limit. */
  readonly pool: MemoryPool;
  /** SQL names any part of the query mentions; null: all are needed (`*`). */
  readonly mentioned: ReadonlySet<string> | null;
  /** Told about every join as it is opened, innermost first. */
  readonly opened: (exec: JoinExec) => void;
  /**
   * The join graph being collected for information passing (sip-run.ts), and the tree's gate;
   * absent: the joins' filters as always (`dynamic`), nothing collected.
   */
  readonly sip?: SipCollector;
}

/** One equi-key of a join whose both columns come unchanged from FROM tables (a sip edge's raw material). */
export interface KeyRoute {
  /** The join it belongs to (one object per join). */
  readonly join: object;
  readonly type: JoinType;
  readonly nullEqualsNull: boolean;
  readonly nullAware: boolean;
  readonly left: Route;
  readonly right: Route;
  /** As the query names the key (`f.k = d.k`). */
  readonly text: string;
}

export interface SipCollector {
  readonly gate: SipGate;
  readonly keys: KeyRoute[];
}

/** Builds the streams of the tree, bottom-up; the returned relation's scan runs them when read. */
export async function openTree(plan: FromPlan, ctx: TreeContext): Promise<Relation> {
  if (plan.kind === 'leaf') return openLeaf(plan, ctx.sip?.gate ?? openGate(), ctx.pool);
  const left = await openTree(plan.left, ctx);
  const right = await openTree(plan.right, ctx);
  const using = plan.natural ? naturalColumns(left, right) : plan.using;
  const keys: KeyPair[] = [];
  const conds: SqlExpr[] = [];
  const merged = new Set<string>();
  let nullSafe = 0;
  // ASOF … USING (k, t): the last column is the inequality l.t >= r.t (DuckDB's rule), the others keys
  let asofRange: RangePredicate | undefined;
  const usingNames = using ?? [];
  for (let u = 0; u < usingNames.length; u++) {
    const name = usingNames[u]!;
    const pair = { left: resolveIn(left, [name], null).out, right: resolveIn(right, [name], null).out };
    if (plan.asof === true && u === usingNames.length - 1) asofRange = { left: pair.left, op: '>=', right: pair.right };
    else keys.push(pair);
    merged.add(name);
  }
  for (const c of [...conjuncts(plan.on), ...plan.where]) {
    const key = c.kind === 'compare' && (c.op === '=' || c.op === 'IS NOT DISTINCT FROM') && c.left.kind === 'column' && c.right.kind === 'column' ? sidesOf(c.left, c.right, left, right) : null;
    if (key !== null && (c as { op: string }).op === 'IS NOT DISTINCT FROM') nullSafe++;
    if (key !== null) keys.push(key);
    else conds.push(c);
  }
  // IS NOT DISTINCT FROM keys only together (null-equals-null is per join); mixed: the residual
  if (nullSafe > 0 && nullSafe < keys.length) return notYet('a join mixing = and IS NOT DISTINCT FROM keys', plan.on?.at ?? null);
  const type: JoinType = plan.type === 'cross' ? 'inner' : plan.type;
  const req: JoinRequest = { type, keys, conds, nullEqualsNull: nullSafe > 0, merged, rowFilter: plan.post, ...(plan.estimate !== undefined ? { estimate: plan.estimate } : {}), ...(plan.asof === true ? { asof: true } : {}), ...(asofRange !== undefined ? { asofRange } : {}) };
  return joinRelations(ctx, req, left, right, (exec) => {
    plan.exec = exec;
    ctx.opened(exec);
  });
}

export interface JoinRequest {
  readonly type: JoinType;
  readonly keys: readonly KeyPair[];
  /** Residual SQL conditions over both inputs. */
  readonly conds: readonly SqlExpr[];
  readonly nullEqualsNull: boolean;
  readonly nullAware?: boolean;
  /** USING / NATURAL columns (their right copies are hidden). */
  readonly merged: ReadonlySet<string>;
  /** Conditions on the join's OUTPUT, applied to its rows (WHERE above an outer join). */
  readonly rowFilter: readonly SqlExpr[];
  /** The planner's estimate of the output rows (else: the larger input's, or the outer side's). */
  readonly estimate?: number;
  /** An `ASOF JOIN`: the lone inequality is the range predicate beside the keys, run by `asof`. */
  readonly asof?: boolean;
  /** `ASOF JOIN … USING (…, t)`: its range predicate (l.t >= r.t), not a condition. */
  readonly asofRange?: RangePredicate;
}

/** Runs one join of two relations as a stream, returning its output as a relation. */
export async function joinRelations(ctx: TreeContext, req: JoinRequest, left: Relation, right: Relation, done: (exec: JoinExec) => void): Promise<Relation> {
  const { type } = req;
  const conds = [...req.conds];
  // with no key, a lone column-vs-column inequality is the range predicate
  const ranged = req.keys.length === 0 || req.asof === true ? conds.filter((c) => rangeOf(c, left, right) !== null) : [];
  if (req.asof === true && (req.asofRange !== undefined ? conds.length !== 0 : ranged.length !== 1 || conds.length !== 1)) {
    notYet('an ASOF join whose ON is not equality conditions plus exactly one column-vs-column inequality', null);
  }
  const range: RangePredicate | null = req.asofRange ?? (ranged.length === 1 ? rangeOf(ranged[0]!, left, right) : null);
  const residual = conds.filter((c) => range === null || c !== ranged[0]).map((c) => toExpr(c, left, right));
  const filter: Expr | null = and(residual);
  // the same join without the range predicate (for an algorithm that cannot take one)
  const filterAll: Expr | null = range === null ? filter : and(conds.map((c) => toExpr(c, left, right)));
  const sides = type === 'left-semi' || type === 'left-anti' || type === 'left-mark' ? 'left' : type === 'right-semi' || type === 'right-anti' || type === 'right-mark' ? 'right' : 'both';
  const leftCols = sides === 'right' ? [] : left.columns;
  const rightCols = sides === 'left' ? [] : right.columns;
  const outs = outputColumnNames(
    leftCols.map((c) => c.out),
    rightCols.map((c) => c.out),
  );
  const passLeft = type === 'inner' || type === 'left' || sides === 'left';
  // not an ASOF join's right side: a filter on it (a dynamic filter from a join or subquery above)
  // would change which right row is closest, not only drop rows
  const passRight = (type === 'inner' && req.asof !== true) || type === 'right' || sides === 'right';
  // a USING / NATURAL column shows once: the left copy (INNER, LEFT), the right copy (RIGHT); under
  // FULL it would be COALESCE(l.k, r.k), which a bare name refuses (`coalesced`)
  const hideLeft = type === 'right' || type === 'full';
  const hideRight = type !== 'right';
  const columns: Visible[] = [
    ...leftCols.map((c, i) => ({ ...c, out: outs[i]!, merged: c.merged || (hideLeft && req.merged.has(c.name)), route: passLeft ? c.route : null })),
    ...rightCols.map((c, i) => ({ ...c, out: outs[leftCols.length + i]!, merged: c.merged || (hideRight && req.merged.has(c.name)), route: passRight ? c.route : null })),
  ];
  const coalesced = new Set([...(left.coalesced ?? []), ...(right.coalesced ?? []), ...(type === 'full' ? req.merged : [])]);
  if (type === 'left-mark' || type === 'right-mark') columns.push({ rel: '', name: MARK_SQL_NAME, out: MARK_COLUMN, merged: false, route: null });
  // only the columns something above reads (a join never reads a column it does not output)
  const keep = ctx.mentioned === null || sides !== 'both' ? null : columns.filter((c) => ctx.mentioned!.has(c.name)).map((c) => c.out);
  const kept = keep === null ? columns : columns.filter((c) => keep.includes(c.out));
  const select = keep === null ? undefined : keep.length > 0 ? keep : [columns[0]!.out];
  const spec = (withRange: boolean): JoinSpecInput => {
    const f = withRange ? filter : filterAll;
    return {
      type,
      ...(req.keys.length > 0 ? { on: req.keys } : {}),
      ...(withRange && range !== null ? { range } : {}),
      ...(f !== null ? { filter: f } : {}),
      ...(req.nullEqualsNull ? { nullEqualsNull: true } : {}),
      ...(req.nullAware ? { nullAware: true } : {}),
      ...(select !== undefined ? { select } : {}),
    };
  };
  let useRange = range !== null;
  // under a sip plan the tree's joins hand their filters to their inputs only while its gate says so
  const gate = ctx.sip?.gate;
  const [leftIn, rightIn] = gate === undefined ? [left.input, right.input] : [new GatedScan(left.input, () => gate.joinFilters), new GatedScan(right.input, () => gate.joinFilters)];
  const open = () => ctx.engine.stream(spec(useRange), leftIn, rightIn, { signal: ctx.signal, pool: ctx.pool, ...(req.asof === true ? { algorithm: 'asof' } : {}) });
  let first: JoinStream;
  try {
    first = await open();
  } catch (e) {
    // an algorithm that cannot take the range predicate (an outer range join): as a filter
    if (!(e instanceof UnsupportedJoinError) || !useRange || req.asof === true) throw e;
    useRange = false;
    first = await open();
  }
  const routes = new Map<string, Route>();
  for (const c of kept) if (c.route !== null) routes.set(c.out, c.route);
  const estimate = req.estimate ?? (sides === 'left' ? left.input.numRows : sides === 'right' ? right.input.numRows : Math.max(left.input.numRows, right.input.numRows));
  const outShape = { columns: kept };
  const rowFilter = req.rowFilter.length === 0 ? null : rowPredicate(req.rowFilter, outShape, first.schema, ctx.pool);
  const scan = new JoinStreamScan(first, open, `${type} join`, estimate, routes, rowFilter, ctx.sip?.gate);
  const named = (rel: Relation, out: string): string => {
    const v = rel.columns.find((c) => c.out === out);
    return v === undefined || v.rel === '' ? out : `${v.rel}.${v.name}`;
  };
  const eq = req.nullEqualsNull ? 'IS NOT DISTINCT FROM' : '=';
  const on = [
    ...req.keys.map((k) => `${named(left, k.left)} ${eq} ${named(right, k.right)}`),
    ...(useRange && range !== null ? [`${named(left, range.left)} ${range.op} ${named(right, range.right)} (range)`] : []),
  ];
  if (ctx.sip !== undefined) {
    for (let k = 0; k < req.keys.length; k++) {
      const key = req.keys[k]!;
      const l = left.columns.find((c) => c.out === key.left)?.route ?? null;
      const r = right.columns.find((c) => c.out === key.right)?.route ?? null;
      if (l !== null && r !== null && l.target !== r.target) ctx.sip.keys.push({ join: req, type, nullEqualsNull: req.nullEqualsNull, nullAware: req.nullAware === true, left: l, right: r, text: on[k]! });
    }
  }
  const exec: JoinExec = { type, on, keys: req.keys, range: useRange ? range : null, filter: useRange ? filter : filterAll, nullEqualsNull: req.nullEqualsNull, scan, ...(req.estimate !== undefined ? { estimate: req.estimate } : {}), ...(req.rowFilter.length > 0 ? { post: req.rowFilter } : {}) };
  done(exec);
  return {
    input: scan,
    columns: kept,
    rels: new Set([...left.rels, ...right.rels]),
    coalescedUsing: left.coalescedUsing || right.coalescedUsing || (req.merged.size > 0 && (type === 'right' || type === 'full')),
    ...(coalesced.size > 0 ? { coalesced } : {}),
    describe: () => joinNode(exec, [left.describe(), right.describe()]),
  };
}

/** Conditions over one relation's rows as a row filter (a scan predicate that never prunes containers). */
export function rowPredicate(conds: readonly SqlExpr[], rel: Pick<Relation, 'columns'>, schema: Schema, pool?: MemoryPool): ScanPredicate {
  const parts: StaticConjunct[] = conds.map((sql) => ({ sql, expr: toExpr(sql, rel, NO_COLUMNS), column: () => null }));
  const p = staticPredicate(parts, schema, 'WHERE', pool);
  return { ...p, mayContain: () => true };
}

function and(parts: readonly Expr[]): Expr | null {
  return parts.length === 0 ? null : parts.length === 1 ? parts[0]! : { kind: 'and', args: parts };
}

const FLIP: Record<RangeOp, RangeOp> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** `l.x < r.y` (either order) between a column of each input, as a range predicate. */
function rangeOf(c: SqlExpr, left: Relation, right: Relation): RangePredicate | null {
  if (c.kind !== 'compare' || !(c.op === '<' || c.op === '<=' || c.op === '>' || c.op === '>=') || c.left.kind !== 'column' || c.right.kind !== 'column') return null;
  const k = sidesOf(c.left, c.right, left, right);
  if (k === null) return null;
  const straight = lookup(left, c.left.names) !== null && lookup(left, c.left.names) !== 'ambiguous' && lookup(right, c.left.names) === null;
  return { left: k.left, op: straight ? c.op : FLIP[c.op], right: k.right };
}

function naturalColumns(left: Relation, right: Relation): string[] {
  const names = new Set(left.columns.filter((c) => !c.merged).map((c) => c.name));
  return [...new Set(right.columns.filter((c) => !c.merged && names.has(c.name)).map((c) => c.name))];
}

/** Two column references as (left input column, right input column), in whichever order they resolve. */
export function sidesOf(a: Extract<SqlExpr, { kind: 'column' }>, b: Extract<SqlExpr, { kind: 'column' }>, left: Pick<Relation, 'columns'>, right: Pick<Relation, 'columns'>): KeyPair | null {
  const only = (rel: Pick<Relation, 'columns'>, other: Pick<Relation, 'columns'>, e: Extract<SqlExpr, { kind: 'column' }>): Visible | null => {
    const v = lookup(rel, e.names);
    return v !== null && v !== 'ambiguous' && lookup(other, e.names) === null ? v : null;
  };
  const al = only(left, right, a);
  const br = only(right, left, b);
  if (al !== null && br !== null) return { left: al.out, right: br.out };
  const bl = only(left, right, b);
  const ar = only(right, left, a);
  if (bl !== null && ar !== null) return { left: bl.out, right: ar.out };
  return null;
}
