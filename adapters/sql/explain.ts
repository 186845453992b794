/**
 * joinlab's plan for a SQL query as a tree (issue 14, `joinlab sql --explain`), like DuckDB's
 * EXPLAIN ANALYZE: every operator with what it ran as — the join's algorithm (and the planner
 * that chose it), its keys / range / residual filter, hash-map layout and pushdown policy, the
 * dynamic filter its build side published — and, since the tree is read after the run, its rows
 * and time; every FROM table with the filters that were in force in its scan (its own join's and
 * the ones routed down from joins above, its WHERE) and the containers they pruned.
 *
 * The tree is built from thunks (`Relation.describe`) after the query ran, so every metric is
 * final. A join re-run by a nested loop shows its runs' sums.
 */
import { formatExpr } from '../../core/expr/parse.ts';
import type { Expr } from '../../core/expr/ast.ts';
import type { SqlExpr } from './ast.ts';
import type { JoinType, KeyPair, RangePredicate } from '../../core/types.ts';
import type { Scan } from '../../core/scan/scan.ts';
import { sqlText } from './sql-text.ts';
import type { JoinStreamScan, PushdownTarget } from './stream-scan.ts';

/** What a join of the tree ran as (for --explain and the metrics). */
export interface JoinExec {
  readonly type: JoinType;
  /** The keys and range predicate as the query names their columns (`f.k = d.k`). */
  readonly on: readonly string[];
  readonly keys: readonly KeyPair[];
  readonly range: RangePredicate | null;
  readonly filter: Expr | null;
  readonly nullEqualsNull: boolean;
  readonly scan: JoinStreamScan;
  /** The planner's estimate of its output rows (cardinality.ts), when it made one. */
  readonly estimate?: number;
  /** WHERE conjuncts applied to the join's output rows (a WHERE above an outer join), as bound. */
  readonly post?: readonly SqlExpr[];
}


export interface ExplainNode {
  readonly label: string;
  readonly details: readonly string[];
  readonly children: readonly ExplainNode[];
}

/** An estimate as a whole number of rows ('?' when there is none). */
function estimated(n: number | undefined): string {
  return n === undefined ? '?' : String(Math.round(n));
}

/** The plan of a derived table's query, by the scan that reads its rows (its SCAN node's child). */
export const subqueryPlans = new WeakMap<Scan, ExplainNode>();

export function scanNode(name: string, table: string, target: PushdownTarget, statics: readonly SqlExpr[], scan?: Scan): ExplainNode {
  const m = target.metrics;
  const details = [
    `source: ${target.source}`,
    `containers: ${m.containersTotal - m.containersPruned} of ${m.containersTotal} read (${m.containersPruned} pruned${m.containersPrunedByBloom > 0 ? `, ${m.containersPrunedByBloom} by Bloom filters` : ''})`,
    ...(m.pagesTotal > 0 ? [`pages: ${m.pagesPruned} of ${m.pagesTotal} pruned (page index)`] : []),
    `rows: ${m.rowsDecoded} decoded, ${m.rowsAfterFilter} after filters (estimated ${estimated(target.estimate)} of ${target.inner.numRows}); ${m.elapsedMs.toFixed(1)} ms`,
    ...(m.rowsNotDecoded > 0 ? [`late materialization: other columns of ${m.rowsNotDecoded} rows not decoded (${m.bytesNotDecoded} bytes)`] : []),
  ];
  if (statics.length > 0) details.push(`static filter: ${statics.map(sqlText).join(' AND ')}`);
  if (target.published.length > 0) details.push(`dynamic filters: ${target.published.join('; ')}`);
  const produced = scan === undefined ? undefined : subqueryPlans.get(scan);
  return { label: `SCAN ${table}${name !== table ? ` AS ${name}` : ''}`, details, children: produced === undefined ? [] : [produced] };
}

export function joinNode(exec: JoinExec, children: readonly ExplainNode[]): ExplainNode {
  const runs = exec.scan.runs;
  const first = runs[0];
  const rows = runs.reduce((n, r) => n + r.rows, 0);
  const ms = runs.reduce((n, r) => n + r.elapsedMs, 0);
  const details: string[] = [];
  const cond = [...exec.on];
  if (exec.filter !== null) cond.push(`filter ${formatExpr(exec.filter)}`);
  details.push(cond.length > 0 ? `on: ${cond.join(' AND ')}` : 'on: (cross product)');
  if (first !== undefined) {
    const op = first.operators.join;
    const d = op?.details ?? {};
    const parts = [`algorithm: ${first.algorithm}${first.chosenBy !== null ? ` (chosen by ${first.chosenBy})` : ''}`];
    if (d.build !== undefined) parts.push(`build: ${String(d.build)}`);
    if (d.hashmap !== undefined) parts.push(`hashmap: ${String(d.hashmap)}`);
    parts.push(`pushdown: ${String(first.config.pushdown)}`);
    details.push(parts.join(', '));
    if (d.dynamicFilter !== undefined) details.push(`${exec.scan.gate.joinFilters ? 'dynamic filter' : "dynamic filter (built, not applied: the sip strategy turned the joins' filters off)"}: ${String(d.dynamicFilter)}`);
    // with workers configured: how many ran the join, or why one thread did (core/parallel/threshold.ts)
    if (first.config.threads > 1 && d.threads !== undefined) details.push(`threads: ${String(d.threads)}${d.workerStart !== undefined ? `; started ${String(d.workerStart)}` : ''}`);
    // the hash join's inputs as it saw them (after every filter): its build and probe rows
    const c = op?.counters ?? {};
    details.push(`rows: ${rows} (estimated ${estimated(exec.estimate)}); ${ms.toFixed(1)} ms${runs.length > 1 ? ` over ${runs.length} runs` : ''}`);
    if (c.buildRows !== undefined || c.probeRows !== undefined) {
      const sum = (k: string): number => runs.reduce((n, r) => n + (r.operators.join?.counters[k] ?? 0), 0);
      details.push(`inputs: ${sum('buildRows')} build rows, ${sum('probeRows')} probe rows`);
    }
  } else details.push('not run');
  // the predicate itself, as text (it used to say only "WHERE")
  if (exec.scan.rowFilter !== null) details.push(exec.post !== undefined && exec.post.length > 0 ? `then: WHERE ${exec.post.map(sqlText).join(' AND ')} (above the join)` : 'then: WHERE above the join');
  return { label: `${exec.type.toUpperCase().replace('-', ' ')} JOIN`, details, children };
}

/** `node` under the steps that ran after the joins (outermost first). */
export function withSteps(steps: readonly { label: string; rows: number; ms: number }[], node: ExplainNode): ExplainNode {
  let out = node;
  for (let i = steps.length - 1; i >= 0; i--) {
    const s = steps[i]!;
    out = { label: s.label, details: [`rows: ${s.rows}; ${s.ms.toFixed(1)} ms`], children: [out] };
  }
  return out;
}

/**
 * The tree as text, one operator per line with its details indented below it. The columns a
 * decorrelated subquery adds (decorrelate.ts: `\0s0k0`, its key 0; `\0s0a0`, its value 0 — the NUL
 * keeps them from colliding with any name a query can write) print as `#s0k0`, `#s0a0`.
 */
export function formatExplain(node: ExplainNode): string {
  const lines: string[] = [];
  const visible = (text: string): string => text.replaceAll('\u0000', '#');
  const walk = (n: ExplainNode, prefix: string, childPrefix: string): void => {
    lines.push(`${prefix}${visible(n.label)}`);
    for (const d of n.details) lines.push(`${childPrefix}${n.children.length > 0 ? '│ ' : '  '} ${visible(d)}`);
    n.children.forEach((c, i) => {
      const last = i === n.children.length - 1;
      walk(c, `${childPrefix}${last ? '└─ ' : '├─ '}`, `${childPrefix}${last ? '   ' : '│  '}`);
    });
  };
  walk(node, '', '');
  return `${lines.join('\n')}\n`;
}
