/**
 * A bound join sent to worker threads and bound again there: the part of a parallel join's
 * session init (hash join probe, piecewise merge join stream) that every such task needs. The
 * spec, the three schemas (schema-only IPC, core/parallel/wire.ts) and the output columns cross
 * the thread boundary; the worker binds the same spec to the same schemas and so gets the very
 * `BoundJoin` the main thread planned with — key kinds, compiled filter, output plan — without
 * posting functions or class instances.
 */
import type { Schema } from 'apache-arrow';
import type { OutputColumn } from '../../core/output-schema.ts';
import { decodeSchema, encodeSchema } from '../../core/parallel/wire.ts';
import { bindJoin, type BoundJoin } from '../../core/plan.ts';
import type { JoinSpec } from '../../core/types.ts';

/** The fields of a task's init that carry the bound join. */
export interface SharedJoin {
  readonly spec: JoinSpec;
  /** The bound inputs' schemas and the output's (schema-only IPC, core/parallel/wire.ts). */
  readonly schemas: { readonly left: Uint8Array; readonly right: Uint8Array; readonly output: Uint8Array };
  readonly outputColumns: readonly OutputColumn[];
}

/** `join` as a task's init carries it (main thread). */
export function shareJoin(join: BoundJoin): SharedJoin {
  return {
    spec: join.spec,
    schemas: { left: encodeSchema(join.leftSchema), right: encodeSchema(join.rightSchema), output: encodeSchema(join.outputSchema) },
    outputColumns: join.output.columns,
  };
}

/** The join bound again on a worker, with its inputs' schemas. */
export function bindSharedJoin(init: SharedJoin): { readonly left: Schema; readonly right: Schema; readonly join: BoundJoin } {
  const left = decodeSchema(init.schemas.left);
  const right = decodeSchema(init.schemas.right);
  const join = bindJoin(init.spec, left, right, { schema: decodeSchema(init.schemas.output), columns: init.outputColumns });
  return { left, right, join };
}
