/**
 * Runs a sip strategy (core/sip.ts, config `sip`) over one opened join tree, before any of its
 * joins reads a row: builds the join graph, asks the strategy for its plan, sets the tree's gate
 * (whether the joins' own filters reach the scans, whether scans order filters adaptively) and
 * runs the plan's transfers, attaching each filter to its target table's scan.
 *
 * The graph: the tree's FROM tables, and per join and pair of tables, the equi-keys whose two
 * columns reach that join unchanged from those tables (join-tree.ts records them as the join is
 * opened, from the same routes the dynamic filters take). A direction is allowed — a filter over
 * one table's key values may drop the other's rows — only when dropping a row of the target
 * whose key the source lacks can never change the query's result:
 *  - the join drops the target side's unmatched rows: inner; LEFT's right side and RIGHT's left;
 *    both sides of a semi join (the output side's unmatched rows are dropped, the other side's
 *    have no output); the inner side of an anti or mark join (its rows only decide the outer
 *    rows' fate, and one that matches no outer key decides nothing). FULL: neither side;
 *  - the condition is `=`: under IS NOT DISTINCT FROM a NULL key matches, and a NOT IN (null-aware
 *    anti) join's answer depends on the inner side's NULLs — both are left out;
 *  - the target's rows pass unchanged from its scan to the join, and the source's values at the
 *    join are a subset of its scan's (the routes: no join in between pads either with NULLs or
 *    can turn a dropped row into an added one).
 * These are the rules of Robust Predicate Transfer (Zhao et al., SIGMOD 2025, section 3.4: a
 * transfer into the preserved side of an outer join, or out of an anti join's inner side, is not
 * safe) and the ones the dynamic filters already follow (operators/common/roles.ts `canPushDown`).
 * Since a source's own filters dropped only rows that cannot reach the result, the values it
 * sends still cover every row of the target that can.
 *
 * Each transfer reads its source's key columns through the source's scan (its static predicate
 * and every filter that reached it so far in force; consecutive transfers from one source share
 * one read), builds the filter (operators/sip/transfer-filter.ts) and attaches it to the target.
 * Those reads are real work and count in the source scan's metrics; `SipReport` says what each
 * transfer built and, after the run, how many rows it dropped.
 */
import type { Field } from 'apache-arrow';
import type { Config } from '../../core/config/schema.ts';
import type { MemoryPool, Reservation } from '../../core/memory/pool.ts';
import { HASHMAP, PUSHDOWN, SIP } from '../../core/registry/slots.ts';
import type { Registry } from '../../core/registry/registry.ts';
import { DynamicFilter } from '../../core/scan/scan.ts';
import type { SipEdge, SipGraph, SipPlan, SipRelation, SipTransfer } from '../../core/sip.ts';
import type { JoinType } from '../../core/types.ts';
import { buildTransferFilter, collectKeys, type SourceKeys } from '../../operators/sip/transfer-filter.ts';
import { transferPolicy } from '../../strategies/sip/filters.ts';
import type { ExplainNode } from './explain.ts';
import { leafColumns, leaves, type FromPlan, type KeyRoute, type SipCollector } from './join-tree.ts';
import type { PushdownTarget, TransferIn } from './stream-scan.ts';

/** Join types whose right side's unmatched rows never reach the output (a filter from the left may drop them). */
const DROPS_UNMATCHED_RIGHT: ReadonlySet<JoinType> = new Set<JoinType>(['inner', 'left', 'left-semi', 'left-anti', 'left-mark', 'right-semi']);
/** And the mirror image: a filter from the right may drop the left's rows. */
const DROPS_UNMATCHED_LEFT: ReadonlySet<JoinType> = new Set<JoinType>(['inner', 'right', 'right-semi', 'right-anti', 'right-mark', 'left-semi']);

/** What the strategy decided for one tree and what its transfers did. */
export interface SipReport {
  readonly strategy: string;
  readonly relations: readonly string[];
  readonly edges: number;
  readonly root: string | null;
  readonly note: string | null;
  readonly joinFilters: boolean;
  readonly outerJoinFilters: boolean;
  readonly adaptive: boolean;
  /** Per transfer, in the order they ran: the target table and what it received. */
  readonly transfers: readonly { readonly to: string; readonly info: TransferIn }[];
}

export interface SipRunContext {
  readonly config: Config;
  readonly registry: Registry;
  readonly pool: MemoryPool;
  readonly signal?: AbortSignal;
  /** Every reservation a filter (or a kept read) holds; the query frees them when it ends. */
  readonly held: Reservation[];
  /** SQL names the query mentions (null: all, `*`): the columns the joins will read of a table. */
  readonly mentioned: ReadonlySet<string> | null;
  /** Whether a FROM leaf's table name is one of the query's base tables (not a CTE or a derived table). */
  readonly isBaseTable: (table: string) => boolean;
}

/**
 * A source's sip read takes the columns the joins will read and is kept (`PushdownTarget.keep`)
 * when it holds at most this many bytes and the pool grants them (else only its key columns are
 * held, for the filters, and the next read decodes the table again: collectKeys). The next pass's
 * read of the table and the joins' read are then served from the reduced rows, testing only the
 * transfers that arrived since — each table is decoded once in predicate transfer, as RPT's
 * transfer phase hands the join phase its reduced tables. A later kept read replaces the earlier
 * one and frees its memory.
 */
export const KEEP_READ_BYTES = 256 * 1024 * 1024;

/**
 * The graph of the collected key routes over the tree's tables. A table counts as reduced when it
 * has a static predicate or is not one of the query's base tables (a CTE's or derived table's rows
 * are a query's result: they may lack keys the base tables have).
 */
export function sipGraph(plan: FromPlan, keys: readonly KeyRoute[], isBaseTable: (table: string) => boolean = () => false): { readonly graph: SipGraph; readonly targets: readonly PushdownTarget[]; readonly texts: readonly string[] } {
  const targets: PushdownTarget[] = [];
  const relations: SipRelation[] = [];
  for (const leaf of leaves(plan)) {
    if (leaf.target === null) continue;
    relations.push({ id: targets.length, name: leaf.target.name, rows: leaf.target.numRows, reduced: leaf.statics.length > 0 || !isBaseTable(leaf.table) });
    targets.push(leaf.target);
  }
  const groups = new Map<object, Map<string, KeyRoute[]>>();
  for (const k of keys) {
    const a = targets.indexOf(k.left.target);
    const b = targets.indexOf(k.right.target);
    if (a < 0 || b < 0) continue;
    let byPair = groups.get(k.join);
    if (byPair === undefined) groups.set(k.join, (byPair = new Map()));
    const pair = `${a}:${b}`;
    byPair.set(pair, [...(byPair.get(pair) ?? []), k]);
  }
  const edges: SipEdge[] = [];
  const texts: string[] = [];
  for (const byPair of groups.values()) {
    for (const ks of byPair.values()) {
      const k0 = ks[0]!;
      const plain = !k0.nullEqualsNull && !k0.nullAware;
      edges.push({
        id: edges.length,
        a: targets.indexOf(k0.left.target),
        b: targets.indexOf(k0.right.target),
        aColumns: ks.map((k) => k.left.column),
        bColumns: ks.map((k) => k.right.column),
        aToB: plain && DROPS_UNMATCHED_RIGHT.has(k0.type),
        bToA: plain && DROPS_UNMATCHED_LEFT.has(k0.type),
        join: k0.type,
      });
      texts.push(ks.map((k) => k.text).join(' AND '));
    }
  }
  return { graph: { relations, edges }, targets, texts };
}

/** Plans and runs the configured sip strategy over `plan` (opened, nothing read yet). */
export async function runSip(plan: FromPlan, collected: SipCollector, ctx: SipRunContext): Promise<SipReport> {
  const strategy = ctx.registry.resolve(SIP, ctx.config.sip);
  const { graph, targets, texts } = sipGraph(plan, collected.keys, ctx.isBaseTable);
  const sip: SipPlan = strategy.plan(graph, ctx.config);
  collected.gate.joinFilters = sip.joinFilters;
  collected.gate.adaptive = sip.adaptiveOrder;
  const transfers: { to: string; info: TransferIn }[] = [];
  const needed = neededColumns(plan, ctx.mentioned);
  if (sip.transfers.length > 0) {
    const { policy, needsTable, retainedBytes } = transferPolicy(sip.filter, (name) => ctx.registry.resolve(PUSHDOWN, name), ctx.config);
    const layout = ctx.registry.resolve(HASHMAP, ctx.config.hashmap);
    // per source, the reservation of its kept read (a later keep frees the earlier)
    const keptHeld = new Map<PushdownTarget, Reservation>();
    // consecutive transfers from one source share one read of its key columns
    for (let i = 0; i < sip.transfers.length; ) {
      let j = i + 1;
      while (j < sip.transfers.length && sip.transfers[j]!.from === sip.transfers[i]!.from) j++;
      const group = sip.transfers.slice(i, j);
      i = j;
      const source = targets[group[0]!.from]!;
      const keyColumns = group.flatMap((t) => sides(graph.edges[t.edge]!, t).sourceColumns);
      // read what the joins will read, to keep
      const columns = [...new Set([...keyColumns, ...(needed.get(source) ?? [])])];
      const keysHeld = ctx.pool.reservation(`sip: ${source.name}'s reduced rows`);
      let keys: SourceKeys;
      let kept = false;
      try {
        keys = await collectKeys(source, columns, keyColumns, keysHeld, KEEP_READ_BYTES, ctx.signal);
        for (const t of group) {
          const e = graph.edges[t.edge]!;
          const { sourceColumns, targetColumns } = sides(e, t);
          const target = targets[t.to]!;
          const targetFields = targetColumns.map((c) => fieldOf(target, c));
          const held = ctx.pool.reservation(`sip ${t.pass} filter ${source.name} -> ${target.name}`);
          ctx.held.push(held);
          const built = await buildTransferFilter({ keys, sourceColumns, targetFields, policy, needsTable, retainedBytes, layout, config: ctx.config, reservation: held });
          const filter = new DynamicFilter();
          filter.publish(built.predicate);
          const info: TransferIn = {
            filter,
            pass: t.pass,
            from: source.name,
            on: texts[e.id]!,
            label: built.predicate === null ? 'true' : (built.predicate.label ?? built.predicate.description),
            bytes: built.bytes,
            buildMs: built.buildMs + keys.ms / group.length,
            sourceRows: keys.rows,
            counts: { tested: 0, kept: 0 },
            expectedPass: Math.min(1, keys.rows / Math.max(1, source.inner.numRows)),
          };
          target.attachTransfer(info);
          transfers.push({ to: target.name, info });
        }
        if (keys.complete) {
          source.keep(keys.batches, columns);
          keptHeld.get(source)?.free();
          keptHeld.set(source, keysHeld);
          ctx.held.push(keysHeld);
          kept = true;
        }
      } finally {
        if (!kept) keysHeld.free();
      }
    }
  }
  return {
    strategy: strategy.name,
    relations: graph.relations.map((r) => r.name),
    edges: graph.edges.length,
    root: sip.root === null ? null : (graph.relations[sip.root]?.name ?? null),
    note: sip.note,
    joinFilters: sip.joinFilters,
    outerJoinFilters: sip.outerJoinFilters ?? true,
    adaptive: sip.adaptiveOrder,
    transfers,
  };
}

/** Per table, the columns the joins above it will read: those the query mentions (all of them under `*`). */
function neededColumns(plan: FromPlan, mentioned: ReadonlySet<string> | null): Map<PushdownTarget, string[]> {
  const out = new Map<PushdownTarget, string[]>();
  for (const leaf of leaves(plan)) {
    if (leaf.target === null) continue;
    out.set(leaf.target, leafColumns(leaf).filter((c) => mentioned === null || mentioned.has(c.name)).map((c) => c.out));
  }
  return out;
}

function sides(e: SipEdge, t: SipTransfer): { readonly sourceColumns: readonly string[]; readonly targetColumns: readonly string[] } {
  return t.from === e.a ? { sourceColumns: e.aColumns, targetColumns: e.bColumns } : { sourceColumns: e.bColumns, targetColumns: e.aColumns };
}

function fieldOf(target: PushdownTarget, column: string): Field {
  const f = target.schema.fields.find((x) => x.name === column);
  if (f === undefined) throw new RangeError(`sip: table ${target.name} has no column '${column}'`);
  return f;
}

/** One transfer as plain data (`--json`, experiment results). */
export interface TransferSummary {
  readonly pass: 'forward' | 'backward';
  readonly from: string;
  readonly to: string;
  readonly on: string;
  readonly filter: string;
  readonly bytes: number;
  readonly buildMs: number;
  readonly sourceRows: number;
  readonly rowsTested: number;
  readonly rowsDropped: number;
}

/** One tree's report as plain data (`--json`, experiment results). */
export interface SipSummary {
  readonly strategy: string;
  readonly root: string | null;
  readonly note: string | null;
  readonly joinFilters: boolean;
  readonly adaptive: boolean;
  readonly transfers: readonly TransferSummary[];
}

/** A report as plain data, after the run (the rows each filter dropped are final then). */
export function sipSummary(r: SipReport): SipSummary {
  return {
    strategy: r.strategy,
    root: r.root,
    note: r.note,
    joinFilters: r.joinFilters,
    adaptive: r.adaptive,
    transfers: r.transfers.map(({ to, info: t }) => ({
      pass: t.pass,
      from: t.from,
      to,
      on: t.on,
      filter: t.label,
      bytes: t.bytes,
      buildMs: Math.round(t.buildMs * 100) / 100,
      sourceRows: t.sourceRows,
      rowsTested: t.counts.tested,
      rowsDropped: t.counts.tested - t.counts.kept,
    })),
  };
}

/** The report as an explain node above the tree it ran on. */
export function sipNode(report: SipReport, child: ExplainNode): ExplainNode {
  const details = [
    `${report.relations.length} tables, ${report.edges} join edges${report.root !== null ? `; root ${report.root}` : ''}; joins' own filters ${report.joinFilters ? 'on' : 'off'}${report.adaptive ? '; filters ordered by pass rate' : ''}`,
    ...(report.note !== null ? [`note: ${report.note}`] : []),
    ...report.transfers.map(({ to, info: t }) => {
      const dropped = t.counts.tested - t.counts.kept;
      return `${t.pass}: ${t.from} -> ${to} on ${t.on}: ${t.label}, ${t.bytes} bytes, built from ${t.sourceRows} rows in ${t.buildMs.toFixed(1)} ms; dropped ${dropped} of ${t.counts.tested} rows tested`;
    }),
  ];
  return { label: `SIP ${report.strategy}`, details, children: [child] };
}
