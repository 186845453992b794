/**
 * Running SQL on joinlab's own operators (issue 14). DuckDB parses (parse.ts); this module binds
 * the tree and runs it:
 *  1. WITH: each CTE is a query run (once, when first read, however many times it is read: in FROM
 *     and in subqueries alike) to an in-memory table every read scans anew;
 *  1b. uncorrelated scalar subqueries (correlation.ts), in any clause: each run once, before the
 *     query reads its data, and replaced by its value as a typed constant (typed-constant.ts), so
 *     a WHERE conjunct on it is a static predicate that prunes; a correlated one is decorrelated
 *     in WHERE (decorrelate.ts) and refused elsewhere;
 *  2. FROM: tables, derived tables and CTEs as a streamed tree of joins with stacked dynamic
 *     filters (join-tree.ts), WHERE conjuncts placed on scans, joins or the FROM result;
 *  3. WHERE conjuncts with [NOT] EXISTS / [NOT] IN subqueries: semi / anti joins on top of the
 *     FROM result (subquery.ts);
 *  4. the SELECT list (select.ts), ORDER BY (`Engine.sort`), LIMIT / OFFSET.
 * Anything outside the subset is an `UnsupportedSqlError` naming the construct and its position,
 * never a wrong answer.
 *
 * The result carries each join's metrics (innermost first), each FROM table's scan metrics with
 * the dynamic filters that were published into it, and the plan as a tree (explain.ts) — what
 * `joinlab sql --explain` prints.
 */
import { Schema, Table, type Data } from 'apache-arrow';
import { makeRecordBatch } from '../../core/arrow/gather.ts';
import { quoteString } from '../../core/expr/sql.ts';
import { newScanMetrics } from '../../core/metrics.ts';
import type { JoinInput, JoinMetrics } from '../../core/engine.ts';
import type { Config } from '../../core/config/schema.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import type { Registry } from '../../core/registry/registry.ts';
import { ExpressionError, KeyTypeMismatchError, UnsupportedExpressionError, UnsupportedSqlError, UnsupportedTypeError, UsageError } from '../../core/errors.ts';
import { JOIN } from '../../core/registry/slots.ts';
import { MemoryPool } from '../../core/memory/pool.ts';
import type { ScanMetrics } from '../../core/metrics.ts';
import type { Scan } from '../../core/scan/scan.ts';
import type { SelectQuery, SqlExpr, TableRef } from './ast.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { openScan } from '../io/open.ts';
import { subqueryPlans, withSteps, type ExplainNode } from './explain.ts';
import { bindFrom, leafColumns, openTree, type FromPlan, type JoinExec, type SipCollector, type StreamEngine, type TreeContext } from './join-tree.ts';
import { runSip, sipNode, type SipReport } from './sip-run.ts';
import { GatedScan, openGate } from './stream-scan.ts';
import { joinOrderOptions, planFrom } from './join-order.ts';
import { sqlText } from './sql-text.ts';
import { parseSql } from './parse.ts';
import { childrenOf, conjuncts, hasSubquery, missingColumn, notYet, scanRelation, type Relation } from './relation.ts';
import { clauseExprs, mapClauses, outerReferences, replaceNodes, scalarSubqueries, type BindScope, type ScalarSubquery } from './correlation.ts';
import { applyCorrelatedScalars, type ScalarHost } from './decorrelate.ts';
import { checkHiddenReads, resolvesIn, visibleLeaves } from './scope.ts';
import { scalarConstant } from './typed-constant.ts';
import { finishSelect, type SelectEngine } from './select.ts';
import { applySubquery, type SubqueryHost } from './subquery.ts';

/**
 * An evaluator message in the query's terms: the expression language qualifies a column by the
 * side of the join it reads (`l.d + 1`), which a SQL query never wrote — the SQL name is the bare
 * column name (`d + 1`).
 */
export function sqlMessage(message: string): string {
  return message.replace(/(^|[^\w.'"])[lr]\.(?=["A-Za-z_])/g, '$1');
}

/** What running SQL needs of an engine (composition.ts's `Engine`). */
export interface SqlEngine extends StreamEngine, SelectEngine {
  readonly config: Config;
  /** Where the sip strategy, the hash-map layout and pushdown policies of transfers resolve. */
  readonly registry: Registry;
}

/** One FROM table's scan, after the run. */
export interface ScanReport {
  /** The table's name in the tables given (a derived table or CTE: `(subquery t)` / the CTE name). */
  readonly table: string;
  /** Its name in the query (alias). */
  readonly alias: string;
  readonly metrics: ScanMetrics;
  /** Labels of the dynamic filters published into it (the join above it first), then `where <its WHERE conjuncts>`. */
  readonly filters: readonly string[];
}

export interface SqlResult {
  readonly table: Table;
  /** Each join's metrics, innermost first (a join re-run by a nested loop appears once per run). */
  readonly joins: readonly JoinMetrics[];
  /** The FROM tables' scans (subqueries' included), in the order they were opened. */
  readonly scans: readonly ScanReport[];
  /** The output columns the rows are ordered by (ORDER BY), in order; empty: no order promised. */
  readonly orderedBy: readonly string[];
  /** The plan that ran, with per-operator rows, time and pruning. */
  readonly plan: ExplainNode;
  /** What the sip strategy did, per join tree (the query's and its subqueries'), in the order they were opened. */
  readonly sip: readonly SipReport[];
}

export interface RunSqlOptions {
  /** Parses with this session (else an in-memory DuckDB is opened for the parse and closed). */
  readonly duck?: DuckDBSession;
  readonly signal?: AbortSignal;
}

/** Runs `sql` over `tables` (name -> Arrow table, Parquet / Arrow / CSV file path, or scan). */
export async function runSql(engine: SqlEngine, sql: string, tables: Readonly<Record<string, JoinInput>>, options: RunSqlOptions = {}): Promise<SqlResult> {
  // an explicit-only algorithm (ASOF) as config `join` would give every JOIN of the query its meaning
  const forced = engine.config.join;
  if (engine.registry.has(JOIN, forced) && engine.registry.resolve(JOIN, forced).explicitOnly === true) {
    throw new UsageError(`join algorithm '${forced}' does not answer SQL's JOIN; write ASOF JOIN in the query for an ASOF join, and leave join (--algorithm) at a plain algorithm such as auto`);
  }
  const duck = options.duck ?? (await DuckDBSession.open({ threads: 1 }));
  let query: SelectQuery;
  try {
    query = await parseSql(duck, sql);
  } finally {
    if (options.duck === undefined) await duck.close();
  }
  const run = new QueryRun(engine, tables, options.signal, mentionedNames(query));
  let out: QueryOutput;
  run.root = query;
  try {
    out = await run.query(query, new Map());
  } catch (e) {
    // what DuckDB evaluates and joinlab's evaluator does not is outside the subset, not an error
    if (e instanceof UnsupportedExpressionError) throw new UnsupportedSqlError(sqlMessage(e.message), null);
    if (e instanceof ExpressionError) e.message = sqlMessage(e.message);
    if (e instanceof UnsupportedTypeError && /^(left|right)\./.test(e.column)) throw new UnsupportedTypeError(e.column.replace(/^(left|right)\./, ''), e.type, e.context);
    // a join key's sides are the join's inputs to the operator; the query named the columns
    if (e instanceof KeyTypeMismatchError) e.message = e.message.replace(/: left\.(.*?) \((.*?)\) and right\./, ': $1 ($2) and ');
    throw e;
  } finally {
    // the filters sip transfers built live as long as the query
    for (const r of run.held) r.free();
  }
  return { table: out.table, joins: run.execs.flatMap((e) => e.scan.runs), scans: run.scanReports(), orderedBy: out.orderedBy, plan: out.plan, sip: run.sipReports };
}

type Ctes = ReadonlyMap<string, () => Promise<Table>>;

/** The input of a SELECT without FROM: one row, no columns. */
const ONE_ROW: Scan = {
  source: '(no FROM)',
  schema: new Schema([]),
  numRows: 1,
  numContainers: 1,
  get metrics() {
    return newScanMetrics();
  },
  async *batches() {
    yield makeRecordBatch(new Schema([]), [], 1);
  },
};

interface QueryOutput {
  readonly table: Table;
  readonly orderedBy: string[];
  readonly plan: ExplainNode;
}

/** One runSql call: the tables, the joins opened so far, the leaves read. */
class QueryRun {
  readonly execs: JoinExec[] = [];
  readonly plans: FromPlan[] = [];
  readonly sipReports: SipReport[] = [];
  /** Memory the sip transfers' filters hold, freed when the query ends. */
  readonly held: Reservation[] = [];
  readonly tree: TreeContext;
  /** One limit for the whole query: its joins, the rows it holds, its sorts. */
  readonly pool: MemoryPool;
  readonly #scalars = new WeakMap<SqlExpr, Promise<{ readonly value: SqlExpr; readonly plan: ExplainNode } | null>>();
  readonly #derived = new WeakMap<SelectQuery, Promise<QueryOutput>>();
  readonly #scopes = new WeakMap<SelectQuery['ctes'], Ctes>();
  #fresh = 0;
  /** The query the user wrote (a subquery's outer columns may live in a query around it; the top one has none). */
  root: SelectQuery | null = null;
  /**
   * Every column name the queries run so far mention (null: all, a `*`): the given query's, and
   * those of the queries the planner writes itself (decorrelation reads an outer-rows table by
   * names the user never wrote), so joins and scans never drop a column one of them reads.
   */
  #mentioned: Set<string> | null;
  constructor(
    readonly engine: SqlEngine,
    readonly tables: Readonly<Record<string, JoinInput>>,
    readonly signal: AbortSignal | undefined,
    mentioned: Set<string> | null,
  ) {
    this.pool = MemoryPool.forRun(engine.config.memoryLimit);
    this.#mentioned = mentioned;
    const run = this;
    this.tree = {
      engine,
      signal,
      pool: this.pool,
      get mentioned() {
        return run.#mentioned;
      },
      opened: (exec) => this.execs.push(exec),
    };
  }

  async query(query: SelectQuery, outerCtes: Ctes): Promise<QueryOutput> {
    if (this.#mentioned !== null) {
      const names = mentionedNames(query);
      if (names === null) this.#mentioned = null;
      else for (const n of names) this.#mentioned.add(n);
    }
    const ctes = this.withCtes(query, outerCtes);
    const scalars: ExplainNode[] = [];
    const q = await this.inlineScalars(query, ctes, scalars);
    await this.refuseScalarsOutsideWhere(q, ctes, query === this.root);
    // the uncorrelated scalar subqueries' plans hang beside the query's own tree
    const explain = (root: ExplainNode): ExplainNode => (scalars.length === 0 ? root : { ...root, children: [...root.children, ...scalars] });
    if (q.from === null) {
      // SELECT without FROM: one row of no columns
      if (q.where !== null) notYet('WHERE without FROM', q.where.at);
      const rel = scanRelation(ONE_ROW, '', () => ({ label: 'ONE ROW (no FROM)', details: [], children: [] }));
      const done = await finishSelect(this.engine, rel, q, { signal: this.signal, pool: this.pool, mentioned: this.tree.mentioned });
      return { table: done.table, orderedBy: done.orderedBy, plan: explain(withSteps(done.steps, rel.describe())) };
    }
    const plan = await this.bindFrom(q.from, ctes);
    this.plans.push(plan);
    const where = conjuncts(q.where);
    const rel = await this.open(plan, where, ctes);
    const done = await finishSelect(this.engine, rel, q, { signal: this.signal, pool: this.pool, mentioned: this.tree.mentioned, havingSubquery: (groups, c) => this.havingSubquery(groups, c, ctes) });
    return { table: done.table, orderedBy: done.orderedBy, plan: explain(withSteps(done.steps, rel.describe())) };
  }

  /** The FROM tree opened with WHERE placed, subquery conjuncts joined on top. */
  async open(plan: FromPlan, where: readonly SqlExpr[], ctes: Ctes) {
    checkHiddenReads(plan, where);
    // what is left of scalar subqueries after inlining is correlated: joined on top (decorrelate.ts)
    const correlated = where.filter((c) => scalarSubqueries(c).length > 0);
    for (const c of correlated) if (hasSubquery(c)) notYet('a correlated scalar subquery and an EXISTS / IN subquery in one WHERE conjunct', c.at);
    const plain = where.filter((c) => !hasSubquery(c) && !correlated.includes(c));
    const config = this.engine.config;
    const planned = planFrom(plan, plain, joinOrderOptions(config['sql.joinOrder'], config['sql.joinOrderSeed']));
    // information passing (sip-run.ts): the tree's key routes are collected as it opens, then the
    // strategy plans over them and its transfers run before any join reads a row
    const sip: SipCollector = { gate: openGate(), keys: [] };
    let rel = await openTree(planned, Object.create(this.tree, { sip: { value: sip } }) as TreeContext);
    const report = await runSip(planned, sip, { config, registry: this.engine.registry, pool: this.pool, held: this.held, mentioned: this.tree.mentioned, isBaseTable: (t) => !ctes.has(t) && Object.hasOwn(this.tables, t), ...(this.signal !== undefined ? { signal: this.signal } : {}) });
    this.sipReports.push(report);
    if (report.strategy !== 'dynamic' || report.note !== null) {
      const below = rel;
      // `none`: not even a join on top of the tree (a subquery's) filters what it reads of it
      const input = report.outerJoinFilters ? below.input : new GatedScan(below.input, () => false);
      rel = { ...below, input, describe: () => sipNode(report, below.describe()) };
    }
    const host = this.subqueryHost(ctes);
    for (const c of where) if (hasSubquery(c)) rel = await applySubquery(host, rel, c);
    const scalars: ScalarHost = {
      tree: this.tree,
      bind: async (sq) => (await this.bindScope(sq, ctes)).plan,
      outerReferences: (sq) => outerReferences(sq, ctes, this.bindScope),
      run: (sq, extra) => this.query(sq, extra === undefined ? ctes : new Map([...ctes, ...[...extra].map(([name, t]) => [name, () => Promise.resolve(t)] as const)])),
      fresh: () => this.#fresh++,
    };
    for (const c of correlated) rel = await applyCorrelatedScalars(scalars, rel, c);
    return rel;
  }

  /** What subquery.ts needs to join an EXISTS / IN subquery in this scope. */
  subqueryHost(ctes: Ctes): SubqueryHost {
    return {
      tree: this.tree,
      run: (sq) => this.query(sq, ctes),
      bindFrom: (sq) => this.bindFrom(sq.from!, this.withCtes(sq, ctes)),
      open: async (p, local) => {
        this.plans.push(p);
        const values = await this.scalarValues(local, ctes);
        return this.open(p, local.map((c) => replaceNodes(c, values)), ctes);
      },
    };
  }

  /**
   * The groups filtered by a HAVING conjunct with an [NOT] EXISTS / IN subquery. Uncorrelated only:
   * the groups' columns have the aggregate's names, not the query's, so a correlated one is refused.
   */
  async havingSubquery(groups: Relation, c: SqlExpr, ctes: Ctes): Promise<Relation> {
    for (const node of subqueryNodes(c)) if ((await outerReferences(node.query, ctes, this.bindScope)).length > 0) notYet('a correlated subquery in HAVING', node.at);
    return applySubquery(this.subqueryHost(ctes), groups, c);
  }

  /** `q` with its uncorrelated scalar subqueries replaced by their values (correlation.ts, typed-constant.ts). */
  async inlineScalars(q: SelectQuery, ctes: Ctes, plans: ExplainNode[]): Promise<SelectQuery> {
    const values = await this.scalarValues(clauseExprs(q), ctes, plans);
    return values.size === 0 ? q : mapClauses(q, (e) => replaceNodes(e, values));
  }

  /** The values of the uncorrelated scalar subqueries in `exprs` (each run once per query run), their plans added to `plans`. */
  async scalarValues(exprs: readonly SqlExpr[], ctes: Ctes, plans: ExplainNode[] = []): Promise<Map<SqlExpr, SqlExpr>> {
    const out = new Map<SqlExpr, SqlExpr>();
    for (const e of exprs) {
      for (const s of scalarSubqueries(e)) {
        let value = this.#scalars.get(s);
        if (value === undefined) this.#scalars.set(s, (value = this.scalarValue(s, ctes)));
        const v = await value;
        if (v === null) continue;
        out.set(s, v.value);
        plans.push(v.plan);
      }
    }
    return out;
  }

  /** An uncorrelated scalar subquery's value as a typed constant, and its plan; null when it is correlated. */
  async scalarValue(s: ScalarSubquery, ctes: Ctes): Promise<{ readonly value: SqlExpr; readonly plan: ExplainNode } | null> {
    if ((await outerReferences(s.query, ctes, this.bindScope)).length > 0) return null;
    const { table, plan } = await this.query(s.query, ctes);
    const value = scalarConstant(table, s.at);
    return { value, plan: { label: 'SCALAR SUBQUERY (uncorrelated: run once, used as a constant)', details: [`value: ${constantText(value)}`], children: [plan] } };
  }

  /**
   * A scalar subquery left after inlining reads a column outside it; when not one of those columns
   * is in `q`'s FROM either, it is no correlation with `q` but a missing column (`SELECT (SELECT
   * max(s) FROM t2)` with no `s` anywhere): say so, rather than "a correlated scalar subquery".
   */
  private async refuseScalarsOutsideWhere(q: SelectQuery, ctes: Ctes, top: boolean): Promise<void> {
    await refuseScalarsOutsideWhere(q, async (s) => {
      if (!top) return;
      const refs = await outerReferences(s.query, ctes, this.bindScope);
      const outer = q.from === null ? null : (await this.bindScope(q, ctes)).plan;
      if (refs.length === 0 || (outer !== null && refs.some((r) => resolvesIn(outer, r.names)))) return;
      const inner = s.query.from === null ? null : (await this.bindScope(s.query, ctes)).plan;
      const available = inner === null ? [] : visibleLeaves(inner).flatMap((l) => leafColumns(l).map((c) => `${l.name}.${c.name}`));
      throw missingColumn(refs[0]!.names, available, refs[0]!.at);
    });
  }

  /** Binds a query's FROM in its scope, for the correlation analysis (derived tables and CTEs run once). */
  readonly bindScope: BindScope<Ctes> = async (q, outer) => {
    const scope = this.withCtes(q, outer);
    return { plan: q.from === null ? null : await this.bindFrom(q.from, scope), scope };
  };

  withCtes(q: SelectQuery, outer: Ctes): Ctes {
    if (q.ctes.length === 0) return outer;
    // one scope per WITH list (a rewritten query keeps its list): its CTEs run once however often the query is bound
    const known = this.#scopes.get(q.ctes);
    if (known !== undefined) return known;
    const scope = new Map(outer);
    this.#scopes.set(q.ctes, scope);
    for (const cte of q.ctes) {
      const visible = new Map(scope); // a CTE sees the ones before it (non-recursive)
      let cached: Promise<Table> | null = null;
      scope.set(cte.name, () => (cached ??= this.query(cte.query, visible).then((o) => renamePrefix(o.table, cte.columnAliases ?? []))));
    }
    return scope;
  }

  bindFrom(ref: TableRef, ctes: Ctes): Promise<FromPlan> {
    const table = async (name: string): Promise<Scan> => {
      const cte = ctes.get(name);
      if (cte !== undefined) return openScan(await cte(), name);
      const source = this.tables[name];
      if (source === undefined) throw new UsageError(`unknown table '${name}'; tables: ${Object.keys(this.tables).join(', ') || '(none)'}`);
      // a file's scan follows `scan.pageIndex` for every read (a static predicate prunes pages whoever reads it)
      const parquet = { pageIndex: this.engine.config['scan.pageIndex'] };
      const csv = { batchSize: this.engine.config.batchSize };
      return typeof source === 'string' || source instanceof Table ? openScan(source, name, { parquet, csv }) : source;
    };
    const derived = async (d: Extract<TableRef, { kind: 'derived' }>): Promise<Scan> => {
      // run once per query run (the correlation analysis binds FROM clauses before they run)
      let out = this.#derived.get(d.query);
      if (out === undefined) {
        await this.refuseLateral(d, ref, ctes);
        this.#derived.set(d.query, (out = this.query(d.query, ctes)));
      }
      const { table, plan } = await out;
      const scan = await openScan(table, d.alias ?? 'subquery');
      subqueryPlans.set(scan, plan); // explain shows what produced the rows under the scan
      return scan;
    };
    return bindFrom(ref, table, derived);
  }

  /**
   * DuckDB lets a derived table read the tables written beside it in FROM (implicitly LATERAL:
   * `FROM a, (SELECT a.k + 1) s`); joinlab runs a derived table on its own, so such a read is
   * refused as what it is — not reported as a missing column. A reference no sibling table has
   * stays a MissingColumnError when the derived query runs.
   */
  private async refuseLateral(d: Extract<TableRef, { kind: 'derived' }>, from: TableRef, ctes: Ctes): Promise<void> {
    const siblings: { name: string; table: string | null }[] = [];
    const walk = (r: TableRef): void => {
      if (r === d) return;
      if (r.kind === 'join') {
        walk(r.left);
        walk(r.right);
      } else siblings.push({ name: r.alias ?? (r.kind === 'table' ? r.name : ''), table: r.kind === 'table' ? r.name : null });
    };
    walk(from);
    if (siblings.length === 0) return;
    const columnsOf = (table: string | null): readonly string[] => {
      const source = table === null || ctes.has(table) ? undefined : this.tables[table];
      return source instanceof Table ? source.schema.fields.map((f) => f.name) : [];
    };
    for (const r of await outerReferences(d.query, ctes, this.bindScope)) {
      const beside = r.names.length === 2 ? siblings.some((s) => s.name === r.names[0]) : r.names.length === 1 && siblings.some((s) => columnsOf(s.table).includes(r.names[0]!));
      if (beside) notYet(`a derived table reading '${r.names.join('.')}' of a table beside it in FROM (LATERAL)`, r.at);
    }
  }

  scanReports(): ScanReport[] {
    const out: ScanReport[] = [];
    for (const plan of this.plans) {
      for (const leaf of leavesOf(plan)) {
        if (leaf.target === null) continue;
        const statics = leaf.statics.length > 0 ? [`where ${leaf.statics.map(sqlText).join(' AND ')}`] : [];
        out.push({ table: leaf.table, alias: leaf.name, metrics: leaf.target.metrics, filters: [...leaf.target.published, ...statics] });
      }
    }
    return out;
  }
}

/** `table` with its first columns renamed (`WITH c(a, b) AS …`; names past its columns are ignored, as in DuckDB). */
function renamePrefix(table: Table, names: readonly string[]): Table {
  if (names.length === 0) return table;
  const schema = new Schema(table.schema.fields.map((f, i) => f.clone({ name: names[i] ?? f.name })), table.schema.metadata);
  return new Table(schema, table.batches.map((b) => makeRecordBatch(schema, b.data.children as Data[], b.numRows)));
}

/** A typed constant (typed-constant.ts) as SQL text, for --explain. */
function constantText(e: SqlExpr): string {
  if (e.kind === 'cast') return `CAST(${constantText(e.arg)} AS ${e.type})`;
  if (e.kind !== 'constant') return '?';
  const c = e.constant;
  return c.type === 'NULL' ? 'NULL' : c.type === 'VARCHAR' ? quoteString(c.value) : String(c.value);
}

/** The EXISTS / IN subqueries of `e` at this query level. */
function subqueryNodes(e: SqlExpr): Extract<SqlExpr, { kind: 'exists' | 'in-subquery' }>[] {
  const own = e.kind === 'exists' || e.kind === 'in-subquery' ? [e] : [];
  return [...own, ...childrenOf(e).flatMap(subqueryNodes)];
}

/** A correlated scalar subquery is decorrelated only in WHERE (decorrelate.ts); elsewhere it is refused. */
function refuseScalarsOutsideWhere(q: SelectQuery, missing: (s: ScalarSubquery) => Promise<void>): Promise<void> | void {
  for (const e of clauseExprs({ ...q, where: null })) {
    const [s] = scalarSubqueries(e);
    if (s !== undefined) return missing(s).then(() => notYet('a correlated scalar subquery outside WHERE', s.at));
  }
}

function leavesOf(p: FromPlan): Extract<FromPlan, { kind: 'leaf' }>[] {
  return p.kind === 'leaf' ? [p] : [...leavesOf(p.left), ...leavesOf(p.right)];
}

/**
 * Every column name the query mentions anywhere (the joins keep only those), or null when a `*`
 * asks for all. The select list of an EXISTS subquery reads nothing.
 */
export function mentionedNames(q: SelectQuery): Set<string> | null {
  const out = new Set<string>();
  let star = false;
  const expr = (e: SqlExpr): void => {
    if (e.kind === 'column') out.add(e.names[e.names.length - 1]!);
    else if (e.kind === 'exists') query(e.query, false);
    else if (e.kind === 'in-subquery' || e.kind === 'scalar-subquery') query(e.query, true);
    for (const c of childrenOf(e)) expr(c);
  };
  const from = (r: TableRef): void => {
    if (r.kind === 'derived') query(r.query, true);
    else if (r.kind === 'join') {
      from(r.left);
      from(r.right);
      if (r.on !== null) expr(r.on);
      for (const u of r.using ?? []) out.add(u);
      if (r.natural) star = true;
    }
  };
  const query = (sq: SelectQuery, selectMatters: boolean): void => {
    for (const c of sq.ctes) query(c.query, true);
    if (selectMatters) {
      for (const s of sq.select) {
        if (s.expr.kind === 'star') star = true;
        else expr(s.expr);
      }
    }
    if (sq.from !== null) from(sq.from);
    if (sq.where !== null) expr(sq.where);
    for (const g of sq.groupBy) expr(g);
    if (sq.having !== null) expr(sq.having);
    for (const o of sq.orderBy) expr(o.expr);
  };
  query(q, true);
  return star ? null : out;
}
