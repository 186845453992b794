/**
 * Planning a hash join: every decision made before a row is read, as one plain `HashJoinPlan`
 * that the build (build.ts), the pushdown barrier and the probe stream (probe.ts) then follow.
 *
 * `planHashJoin` is a pure function of the bound join, the inputs' metadata (row counts and
 * schemas — no batch is read), the configuration and the registry: the same arguments give the
 * same plan, it reserves no memory and records no metric, so it can be tested, printed or compared
 * without running anything. What it decides:
 *   - the build side (`hash.build`; `auto` = the side with fewer rows by metadata, left on a tie)
 *     and from it the roles of both sides for this join type (../common/roles.ts);
 *   - the mode and partition count (`collect-left` is one partition);
 *   - the hash-table layout and pushdown policy, resolved by name in the registry (an unknown
 *     name throws here, the registry's error, before any input is read);
 *   - the key columns per role and their common kinds;
 *   - the build side's output columns (`payload`) and whether they are laid out as rows
 *     (`hash.payloadLayout`; auto: two or more of them, at least PAYLOAD_ROWS_MIN build rows and a
 *     probe side at least PAYLOAD_PROBE_RATIO times larger, by metadata — the layout costs a pass
 *     over the build and saves on every output row: core/arrow/row-layout.ts has the numbers);
 *   - the pushdown barrier's arguments, or null when a dynamic filter would be unsound (unmatched
 *     probe rows reach the output, see roles.ts) — then the probe scan gets no filter at all.
 */
import type { Config } from '../../core/config/schema.ts';
import type { HashMapLayout } from '../../core/hashmap.ts';
import type { JoinInputs } from '../../core/join-algorithm.ts';
import type { KeyKind } from '../../core/keys/types.ts';
import type { BoundJoin } from '../../core/plan.ts';
import type { ComposeArgs } from '../../core/pushdown/compose.ts';
import type { PushdownPolicy } from '../../core/pushdown/policy.ts';
import type { Registry } from '../../core/registry/registry.ts';
import { HASHMAP, PUSHDOWN } from '../../core/registry/slots.ts';
import type { Side } from '../../core/types.ts';
import { joinRoles, type JoinRoles } from '../common/roles.ts';

/** The arguments of `publishWhenComplete` (core/pushdown/compose.ts), one report per partition. */
export type PushdownPlan = Omit<ComposeArgs, 'partitions'> & { readonly count: number };

export interface HashJoinPlan {
  /** Build and probe side, and what each contributes to this join type's output. */
  readonly roles: JoinRoles;
  readonly mode: Config['hash.mode'];
  /** Independent builds (1 in collect-left mode). */
  readonly partitions: number;
  readonly layout: HashMapLayout;
  /** Resolved even when nothing is pushed down (the name is checked either way). */
  readonly policy: PushdownPolicy;
  readonly buildKeys: readonly string[];
  readonly probeKeys: readonly string[];
  /** Common kind per key pair: both sides' keys are normalised to these. */
  readonly keyKinds: readonly KeyKind[];
  readonly nullEqualsNull: boolean;
  /** Pairs per table walk and rows per output batch. */
  readonly batchSize: number;
  /** The dynamic filter's barrier, or null when unmatched probe rows may reach the output. */
  readonly pushdown: PushdownPlan | null;
  /** The build side's columns in the output (indices in the build schema), gathered for every output row that has one. */
  readonly payload: readonly number[];
  /** Lay `payload` out row-wise at build time (core/arrow/row-layout.ts). */
  readonly payloadRows: boolean;
}

/**
 * `hash.payloadLayout=auto` lays the payload out as rows from this many build rows on: below it the
 * columns stay in cache and a column-by-column gather costs no more (measured: docs/benchmarks.md).
 */
export const PAYLOAD_ROWS_MIN = 100_000;

/**
 * ... and when the probe side has at least this many times the build's rows: laying out costs
 * ~0.1–0.2 µs per build row, a row-wise gather saves ~0.05 µs per output row (h2o q5, measured in
 * core/arrow/row-layout.ts), so it pays from about four output rows per build row.
 */
export const PAYLOAD_PROBE_RATIO = 4;

export function planHashJoin(join: BoundJoin, inputs: JoinInputs, config: Config, registry: Registry): HashJoinPlan {
  const build: Side = config['hash.build'] === 'auto' ? (inputs.right.numRows < inputs.left.numRows ? 'right' : 'left') : config['hash.build'];
  const roles = joinRoles(join.spec, build);
  const partitions = config['hash.mode'] === 'partitioned' ? config['hash.partitions'] : 1;
  const layout = registry.resolve(HASHMAP, config.hashmap);
  const policy = registry.resolve(PUSHDOWN, config.pushdown);
  const buildKeys = build === 'left' ? join.leftKeys : join.rightKeys;
  const probeKeys = build === 'left' ? join.rightKeys : join.leftKeys;
  const probeSchema = inputs[roles.probe].schema;
  const buildSchema = inputs[build].schema;
  const payload = [...new Set(join.output.columns.filter((c) => c.from === build).map((c) => buildSchema.fields.findIndex((f) => f.name === c.name)))].filter((c) => c >= 0);
  const layoutSetting = config['hash.payloadLayout'];
  const buildRows = inputs[build].numRows;
  const payloadRows =
    layoutSetting === 'rows'
      ? payload.length > 0
      : layoutSetting === 'auto' && payload.length >= 2 && buildRows >= PAYLOAD_ROWS_MIN && inputs[roles.probe].numRows >= PAYLOAD_PROBE_RATIO * buildRows;
  return {
    payload,
    payloadRows,
    roles,
    mode: config['hash.mode'],
    partitions,
    layout,
    policy,
    buildKeys,
    probeKeys,
    keyKinds: join.keyKinds,
    nullEqualsNull: join.spec.nullEquality === 'null-equals-null',
    batchSize: config.batchSize,
    pushdown: roles.canPushDown
      ? {
          policy,
          count: partitions,
          ctx: {
            config,
            keyKinds: join.keyKinds,
            probeTypes: probeKeys.map((k) => probeSchema.fields.find((f) => f.name === k)!.type),
            probeColumns: probeKeys,
          },
          routed: partitions > 1,
          keepNullKeys: roles.keepProbeNullKeys,
        }
      : null,
  };
}
