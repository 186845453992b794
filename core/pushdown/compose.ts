/**
 * The composer: turns a policy's per-partition `KeyFilter`s into the ONE `ScanPredicate` the probe
 * scan executes, and `publishWhenComplete`, the barrier that publishes it only once every build
 * partition has reported.
 *
 * Each rule below was a real bug in a mature engine (DataFusion) and has a named test:
 *  - EMPTY partition (0 build rows): its probe rows can match nothing -> `false` for its rows.
 *  - FAILED partition (build cancelled / errored): its contents are unknown -> `true` for its
 *    rows, and every container may contain a match. Guessing "empty" would drop rows.
 *  - ROUTING (partitioned mode): a probe row is tested ONLY against its own partition's filter,
 *    the partition `partitionIds` gives it — the exact routing function the join uses. Partition
 *    k's filter knows nothing about partition j's keys; testing against it drops j's matches.
 *  - CONTAINERS: `mayContain` is the OR over partitions (a container's rows may route anywhere);
 *    any failed or keep-everything partition => true.
 *  - NULL keys: a probe row with a NULL in any key column never reaches a KeyFilter. Under
 *    null-equals-null or a null-aware anti join (`keepNullKeys`) it is KEPT (it may match a build
 *    NULL / must reach NOT IN's three-valued logic), and a container that may hold a NULL key
 *    (nullCount > 0 or unknown) may contain; otherwise NULL rows are dropped, and a container
 *    whose key column is entirely NULL (nullCount == numRows) is pruned.
 *  - BARRIER: a filter built from N-1 of N partitions drops the N-th partition's matches, so
 *    nothing is published before the N-th report.
 * A policy with `publishesNothing` (the built-in `none`) publishes nothing at all (null), so it stays
 * a true baseline.
 *
 * Containers and rows are tested differently (`pushdown.rowFilter`): containers always with the
 * full filters (pruning before decoding always pays); rows with `always` the full filters, with
 * `never` not at all, and with `auto` (default) only each filter's cheap per-row part
 * (`KeyFilter.perRow`: bounds, IN lists, bitmaps — not the map's table lookup, which the join's
 * probe repeats anyway), behind a gate that pauses the row test while it keeps most rows
 * (row-gate.ts). Skipping a row test only ever keeps more rows.
 *
 * Per batch (`selectRows`): normalise the probe key columns to the join's key kinds (the same
 * words the build has), compute the NULL mask, route, and run each partition's filter over the
 * rows routed to it, with hashes computed only if that filter needs them and with THAT
 * partition's seed. Returns ascending kept row indices, or null when every row is kept. One
 * NULL-free int32 key (a surrogate key or a date, unrouted) whose every filter has `testInt32` is
 * tested in place: normalising it cost more than the bounds and bitmap tests themselves (SSB q2.1
 * at SF 1: a third of the row test's time was the 64-bit copy).
 */
import type { RecordBatch } from 'apache-arrow';
import { rowPartOf, type BuildPartition, type KeyFilter, type PushdownContext, type PushdownPolicy, type SharedKeyFilter } from './policy.ts';
import { restoreKeyFilter, shareFilter, workerPushdownContext } from './shared-filters.ts';
import type { Config } from '../config/schema.ts';
import { hashInt32Keys, hashKeys } from '../keys/hash.ts';
import { anyNullMask, normalizeKeys, rawInt32Keys } from '../keys/normalize.ts';
import { groupRowsByPartition, partitionIds } from '../keys/partition.ts';
import type { KeyColumn, KeyKind } from '../keys/types.ts';
import type { KeyValue } from '../scan/key-stats.ts';
import type { ColumnStats, ContainerStats, DynamicFilter, ExactValueSet, ScanPredicate, SharedRowTest } from '../scan/scan.ts';
import { registerRowTestKind, type RestoreEnv, type RowTest } from '../scan/shared-row-test.ts';
import { countKept, keptRows, rowsWhere } from '../selection.ts';
import { RowFilterGate } from './row-gate.ts';

/** What a build partition reports: its contents, or that it failed (unknown contents). */
export type PartitionReport = BuildPartition | 'failed';

export interface ComposeArgs {
  readonly policy: PushdownPolicy;
  /** One report per build partition (length 1 for collect-left). */
  readonly partitions: readonly PartitionReport[];
  readonly ctx: PushdownContext;
  /** Partitioned mode: route each probe row to `partitionIds(keys, partitions.length)`. */
  readonly routed: boolean;
  /** Keep probe rows with a NULL key (null-equals-null, null-aware anti join). */
  readonly keepNullKeys: boolean;
}

const KEEP = 0;
const DROP = 1;
const FILTER = 2;

interface Plan {
  readonly mode: typeof KEEP | typeof DROP | typeof FILTER;
  readonly filter: KeyFilter | null;
  readonly seed: number;
  readonly label: string;
  /** The filter's short label (`KeyFilter.label`), or the label itself for KEEP / DROP. */
  readonly short: string;
}

/**
 * The dynamic filter of a completed build, or null when the policy publishes none (`none`, or
 * every partition keeps everything and NULL keys are kept too).
 */
export function composeDynamicFilter(args: ComposeArgs): ScanPredicate | null {
  const { policy, partitions, ctx } = args;
  if (partitions.length === 0) throw new RangeError('composeDynamicFilter needs at least one partition report');
  if (ctx.probeColumns.length === 0 || ctx.probeColumns.length !== ctx.keyKinds.length) {
    throw new RangeError(`pushdown context: ${ctx.probeColumns.length} probe columns for ${ctx.keyKinds.length} key kinds`);
  }
  if (policy.publishesNothing === true) return null;
  const plans: Plan[] = partitions.map((p) => planOf(policy, p, ctx));
  const allKeep = plans.every((p) => p.mode === KEEP);
  if (allKeep && args.keepNullKeys) return null;
  const mode = ctx.config['pushdown.rowFilter'];
  const rowPlans = rowPlansOf(plans, mode);
  return new ComposedPredicate(plans, rowPlans, mode === 'auto', ctx, args.routed && plans.length > 1, args.keepNullKeys);
}

/**
 * The plans a batch's rows are tested with (containers always use the full plans):
 * `always` the same; `auto` each filter's per-row part (`KeyFilter.perRow`: what is much cheaper
 * than the join's own probe), a partition whose filter has none keeping its rows; `never` none at
 * all (null: the scan applies no row test, only container pruning).
 */
function rowPlansOf(plans: readonly Plan[], mode: 'auto' | 'always' | 'never'): readonly Plan[] | null {
  if (mode === 'never') return null;
  if (mode === 'always') return plans;
  return plans.map((p) => {
    if (p.mode !== FILTER) return p;
    const part = rowPartOf(p.filter!);
    if (part === p.filter) return p;
    return part === null
      ? { mode: KEEP, filter: null, seed: p.seed, label: 'true', short: 'true' }
      : { mode: FILTER, filter: part, seed: p.seed, label: part.description, short: part.label ?? part.description };
  });
}

function planOf(policy: PushdownPolicy, p: PartitionReport, ctx: PushdownContext): Plan {
  if (p === 'failed') return { mode: KEEP, filter: null, seed: 0, label: 'true (failed)', short: 'true (failed)' };
  if (p.rows === 0) return { mode: DROP, filter: null, seed: p.seed, label: 'false (empty)', short: 'false (empty)' };
  const filter = policy.planPartition(p, ctx);
  if (filter === null) return { mode: KEEP, filter: null, seed: p.seed, label: 'true', short: 'true' };
  return { mode: FILTER, filter, seed: p.seed, label: filter.description, short: filter.label ?? filter.description };
}

class ComposedPredicate implements ScanPredicate {
  readonly description: string;
  readonly label: string;
  readonly columns: readonly string[];
  readonly #plans: readonly Plan[];
  /** The row-level test (null: none, `pushdown.rowFilter: never`, or no partition filters rows). */
  readonly #rows: RowPlanTest | null;
  readonly #ctx: PushdownContext;
  readonly #keepNulls: boolean;
  /** Some partition keeps every row routed to it (failed, or no filter). */
  readonly #anyKeep: boolean;

  constructor(plans: readonly Plan[], rowPlans: readonly Plan[] | null, gated: boolean, ctx: PushdownContext, routed: boolean, keepNulls: boolean) {
    this.#plans = plans;
    // with every partition keeping its rows, a row pass only drops NULL keys (cheap: a batch with
    // no NULL key returns at once), unless NULL keys are kept too
    const rowsAllKept = rowPlans === null || (keepNulls && rowPlans.every((p) => p.mode === KEEP));
    this.#rows = rowsAllKept ? null : new RowPlanTest(rowPlans!, gated, ctx, routed, keepNulls);
    this.#ctx = ctx;
    this.#keepNulls = keepNulls;
    this.#anyKeep = plans.some((p) => p.mode === KEEP);
    this.columns = [...ctx.probeColumns];
    const cols = ctx.probeColumns.length === 1 ? ctx.probeColumns[0]! : `(${ctx.probeColumns.join(', ')})`;
    const describe = (ps: readonly Plan[]): string => {
      let body: string;
      if (ps.length === 1) body = ps[0]!.label;
      else if (routed) body = `CASE partition(${cols}) ${ps.map((p, i) => `WHEN ${i} THEN ${p.label}`).join(' ')} END`;
      else body = ps.map((p) => `(${p.label})`).join(' OR ');
      return keepNulls ? `(${body}) OR ${cols} HAS NULL` : body;
    };
    const full = describe(plans);
    const perRow = rowsAllKept ? 'none' : describe(rowPlans!);
    this.description = perRow === full ? full : `${full} [per row: ${perRow}]`;
    this.label = shortLabel(plans, keepNulls);
  }

  exactSet(): ExactValueSet | null {
    if (this.#keepNulls || this.columns.length !== 1) return null;
    const values: KeyValue[] = [];
    for (const p of this.#plans) {
      if (p.mode === KEEP) return null;
      if (p.mode === DROP) continue;
      const vs = p.filter!.exactValues?.() ?? null;
      if (vs === null) return null;
      for (const v of vs) values.push(v);
    }
    return { column: this.columns[0]!, kind: this.#ctx.keyKinds[0]!, values };
  }

  mayContain(stats: ContainerStats): boolean {
    if (stats.numRows === 0) return false;
    if (this.#anyKeep) return true;
    const names = this.columns;
    const cols: (ColumnStats | undefined)[] = [];
    let mayHaveNull = false;
    let allNull = false;
    for (let c = 0; c < names.length; c++) {
      const s = stats.column(names[c]!);
      cols.push(s);
      if (s === undefined || s.nullCount === null) mayHaveNull = true;
      else if (s.nullCount > 0) {
        mayHaveNull = true;
        if (s.nullCount >= stats.numRows) allNull = true;
      }
    }
    if (this.#keepNulls && mayHaveNull) return true;
    if (allNull) return false; // every row has a NULL key and NULL rows are dropped
    for (const p of this.#plans) {
      if (p.mode === FILTER && p.filter!.mayContain(cols)) return true;
    }
    return false;
  }

  rowTestSummary(): string {
    return this.#rows === null ? 'no row test' : this.#rows.summary();
  }

  selectRows(batch: RecordBatch): Int32Array | null {
    return this.#rows === null ? null : this.#rows.selectRows(batch);
  }

  /**
   * The row test for worker threads (kind `composed`): every row plan's filter shared
   * (`KeyFilter.share`), or null when one cannot be — or when there is no row test, so the
   * workers have nothing to run either.
   */
  shareRowTest(): SharedRowTest | null {
    return this.#rows === null ? null : this.#rows.share();
  }
}

/** A row plan as plain data: its mode and seed, and its filter shared when it filters. */
interface SharedPlan {
  readonly mode: Plan['mode'];
  readonly seed: number;
  readonly filter: SharedKeyFilter | null;
}

interface SharedComposedRowTest {
  readonly plans: readonly SharedPlan[];
  readonly gated: boolean;
  readonly config: Config;
  readonly keyKinds: readonly KeyKind[];
  readonly probeColumns: readonly string[];
  readonly routed: boolean;
  readonly keepNulls: boolean;
}

/**
 * The row-level half of a composed predicate — what a batch's rows are tested with — on the
 * thread that composed it or, restored from `share()`, on a worker (with its own gate and
 * scratch: a worker tests the batches it was handed, one at a time).
 */
class RowPlanTest implements RowTest {
  /** `pushdown.rowFilter: auto`: pauses the row test while it keeps most rows (row-gate.ts). */
  readonly #gate: RowFilterGate | null;
  /** Scratch keep-mask of `selectRows` (a scan calls it synchronously, one batch at a time). */
  #keep = new Uint8Array(0);

  constructor(
    readonly plans: readonly Plan[],
    readonly gated: boolean,
    readonly ctx: PushdownContext,
    readonly routed: boolean,
    readonly keepNulls: boolean,
  ) {
    this.#gate = gated ? new RowFilterGate() : null;
    this.#int32Plans = !routed && ctx.probeColumns.length === 1 && plans.every((p) => p.mode !== FILTER || p.filter!.testInt32 !== undefined);
  }
  /** Whether every plan can test raw int32 keys (a single key, not routed): `#rawInt32`. */
  readonly #int32Plans: boolean;

  summary(): string {
    return this.#gate === null ? 'every batch tested' : this.#gate.summary();
  }

  selectRows(batch: RecordBatch): Int32Array | null {
    const n = batch.numRows;
    if (n === 0) return null;
    const gate = this.#gate;
    if (gate !== null && !gate.shouldTest(n)) return null;
    const selected = this.#select(batch, n);
    gate?.observe(n, selected === null ? n : selected.length);
    return selected;
  }

  share(): SharedRowTest | null {
    const plans: SharedPlan[] = [];
    for (const p of this.plans) {
      const filter = p.mode === FILTER ? shareFilter(p.filter!) : null;
      if (p.mode === FILTER && filter === null) return null;
      plans.push({ mode: p.mode, seed: p.seed, filter });
    }
    const { config, keyKinds, probeColumns } = this.ctx;
    const state: SharedComposedRowTest = { plans, gated: this.gated, config, keyKinds, probeColumns, routed: this.routed, keepNulls: this.keepNulls };
    return { kind: 'composed', state };
  }

  static restore(raw: unknown, env: RestoreEnv): RowPlanTest {
    const s = raw as SharedComposedRowTest;
    const ctx = workerPushdownContext(s.config, s.keyKinds, s.probeColumns);
    const fenv = { ...env, ctx };
    const plans: Plan[] = s.plans.map((p) => {
      const filter = p.filter === null ? null : restoreKeyFilter(p.filter, fenv);
      const label = filter?.description ?? (p.mode === DROP ? 'false' : 'true');
      return { mode: p.mode, seed: p.seed, filter, label, short: label };
    });
    return new RowPlanTest(plans, s.gated, ctx, s.routed, s.keepNulls);
  }

  #select(batch: RecordBatch, n: number): Int32Array | null {
    const ctx = this.ctx;
    if (this.#keep.length < n) this.#keep = new Uint8Array(Math.max(n, 2 * this.#keep.length));
    const keep = this.#keep.subarray(0, n).fill(1);
    const plans = this.plans;
    const raw = this.#rawInt32(batch);
    if (raw !== null) {
      // one NULL-free int32 key every filter tests in place: no normalised copy, no NULL mask
      const input = new BatchKeys(null, raw);
      if (plans.length === 1) applyPlan(plans[0]!, input, null, keep);
      else orOverPlans(plans, input, null, keep);
    } else {
      const keys = normalizeKeys(batch, ctx.probeColumns, ctx.keyKinds);
      const nulls = anyNullMask(keys);
      if (nulls !== null && !this.keepNulls) for (let r = 0; r < n; r++) keep[r] = 1 - (-nulls[r]! >>> 31);
      const input = new BatchKeys(keys, null);
      if (this.routed) this.#routedRows(keys, nulls, keep, input);
      else {
        const rows = nulls === null ? null : rowsWhere(nulls, n, 0);
        if (plans.length === 1) applyPlan(plans[0]!, input, rows, keep);
        else orOverPlans(plans, input, rows, keep);
      }
    }
    const kept = countKept(keep, n);
    return kept === n ? null : keptRows(keep, n, kept);
  }

  /**
   * The batch's one key column as raw int32 values (`rawInt32Keys`) when every plan's filter can
   * test them in place (`KeyFilter.testInt32`) and rows are not routed; else null (normalise).
   */
  #rawInt32(batch: RecordBatch): Int32Array | null {
    if (!this.#int32Plans) return null;
    const idx = batch.schema.fields.findIndex((f) => f.name === this.ctx.probeColumns[0]);
    return idx < 0 ? null : rawInt32Keys(batch.getChildAt(idx)!, this.ctx.keyKinds[0]!);
  }

  /** Counting-sort the non-NULL rows by partition, then run each partition's plan on its rows. */
  #routedRows(keys: readonly KeyColumn[], nulls: Uint8Array | null, keep: Uint8Array, input: BatchKeys): void {
    const plans = this.plans;
    const P = plans.length;
    const n = keys[0]!.length;
    const pid = new Int32Array(n);
    partitionIds(keys, P, pid);
    const { start, rows: sorted } = groupRowsByPartition(pid, P, nulls, n);
    for (let p = 0; p < P; p++) {
      if (start[p + 1] === start[p]) continue;
      applyPlan(plans[p]!, input, sorted.subarray(start[p]!, start[p + 1]!), keep);
    }
  }
}

registerRowTestKind('composed', RowPlanTest.restore);

/**
 * The table form of a composed filter: the one partition's label, or `N partitions: ` and the
 * distinct labels (at most three, then `…`), e.g. `4 partitions: bounds + in(3) | bounds + map(990, swiss)`.
 */
function shortLabel(plans: readonly Plan[], keepNulls: boolean): string {
  const distinct = [...new Set(plans.map((p) => p.short))];
  let body = distinct.length <= 3 ? distinct.join(' | ') : `${distinct.slice(0, 3).join(' | ')} | …`;
  if (plans.length > 1) body = `${plans.length} partitions: ${body}`;
  return keepNulls ? `${body} + nulls` : body;
}

/** Rows of one (unrouted) batch that pass SOME partition's plan (OR). */
function orOverPlans(plans: readonly Plan[], input: BatchKeys, rows: Int32Array | null, keep: Uint8Array): void {
  const n = keep.length;
  const any = new Uint8Array(n);
  for (const p of plans) {
    const mine = keep.slice();
    applyPlan(p, input, rows, mine);
    for (let r = 0; r < n; r++) any[r] |= mine[r]!;
  }
  const count = rows === null ? n : rows.length;
  for (let i = 0; i < count; i++) {
    const r = rows === null ? i : rows[i]!;
    keep[r] = any[r]!;
  }
}

function applyPlan(plan: Plan, input: BatchKeys, rows: Int32Array | null, keep: Uint8Array): void {
  if (plan.mode === KEEP) return;
  if (plan.mode === DROP) {
    if (rows === null) keep.fill(0);
    else for (let i = 0; i < rows.length; i++) keep[rows[i]!] = 0;
    return;
  }
  input.test(plan.filter!, plan.seed, rows, keep);
}

/**
 * One batch's probe keys as the filters read them — normalised columns, or the one key's raw int32
 * values (`KeyFilter.testInt32`) — with the key hashes computed at most once per seed and only
 * when a filter asks for them.
 */
class BatchKeys {
  #seeds: number[] = [];
  #hashes: Uint32Array[] = [];
  constructor(
    readonly keys: readonly KeyColumn[] | null,
    readonly int32: Int32Array | null,
  ) {}
  test(f: KeyFilter, seed: number, rows: Int32Array | null, keep: Uint8Array): void {
    const hashes = f.needsHashes ? this.#hashesFor(seed) : null;
    if (this.int32 !== null) f.testInt32!(this.int32, hashes, rows, keep);
    else f.test(this.keys!, hashes, rows, keep);
  }
  #hashesFor(seed: number): Uint32Array {
    const i = this.#seeds.indexOf(seed);
    if (i >= 0) return this.#hashes[i]!;
    const h = this.int32 !== null ? hashInt32Keys(this.int32, seed) : hashKeys(this.keys!, seed);
    this.#seeds.push(seed);
    this.#hashes.push(h);
    return h;
  }
}

// ---------------------------------------------------------------------------------------------
// the barrier

export interface PartitionReporter {
  /** Partition `index` finished building (or failed). Each index reports exactly once. */
  report(index: number, partition: PartitionReport): void;
  /** Reports received so far. */
  readonly reported: number;
  /** Whether all partitions reported (and the filter was published). */
  readonly complete: boolean;
}

/**
 * Collects the reports of `count` build partitions and publishes the composed filter into
 * `target` exactly once, when the last one arrives — never a filter of some partitions. A second
 * report for the same index or an index out of range is a bug and throws.
 */
export function publishWhenComplete(target: DynamicFilter, args: Omit<ComposeArgs, 'partitions'> & { readonly count: number }): PartitionReporter {
  const { count } = args;
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`publishWhenComplete: partition count must be >= 1, got ${count}`);
  const reports: (PartitionReport | undefined)[] = new Array(count).fill(undefined);
  let reported = 0;
  return {
    report(index: number, partition: PartitionReport): void {
      if (!Number.isInteger(index) || index < 0 || index >= count) {
        throw new RangeError(`partition ${index} reported, but there are ${count} partitions`);
      }
      if (reports[index] !== undefined) throw new RangeError(`partition ${index} reported twice`);
      reports[index] = partition;
      if (++reported < count) return;
      target.publish(
        composeDynamicFilter({
          policy: args.policy,
          ctx: args.ctx,
          routed: args.routed,
          keepNullKeys: args.keepNullKeys,
          partitions: reports as PartitionReport[],
        }),
      );
    },
    get reported() {
      return reported;
    },
    get complete() {
      return reported === count;
    },
  };
}
