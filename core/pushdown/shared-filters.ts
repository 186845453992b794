/**
 * Key filters across threads: `KeyFilter.share()` gives a filter as plain data; a worker rebuilds
 * an equal filter (same `test` answers) with `restoreKeyFilter`. Each filter kind registers its
 * restorer when its module loads — the worker loads the same extensions, so it knows the same
 * kinds (a user's policy included). Only `test` (and `needsHashes`, `description`) matter on the
 * worker: container pruning stays on the thread that hands out the containers, which is why the
 * worker's `PushdownContext` has no probe types (`workerPushdownContext`).
 *
 * Composite filters (an AND, a pause wrapper) share their parts with `shareFilter` and restore
 * them with `restoreKeyFilter`; one part that cannot be shared makes the whole filter unshareable
 * (null), never a filter that tests less than the original — a weaker test would only keep more
 * rows, which is sound, but the metrics would then describe a row test the workers never ran.
 */
import type { Config } from '../config/schema.ts';
import type { KeyKind } from '../keys/types.ts';
import type { KeyFilter, PushdownContext, SharedKeyFilter } from './policy.ts';
import type { RestoreEnv } from '../scan/shared-row-test.ts';

/** What a key filter's restorer may use on the worker: the worker's registry and the join's context. */
export interface KeyFilterEnv extends RestoreEnv {
  /** The probe side's key columns and kinds, and the run's config; `probeTypes` is empty (no container tests here). */
  readonly ctx: PushdownContext;
}

export type KeyFilterRestorer = (state: unknown, env: KeyFilterEnv) => KeyFilter;

const RESTORERS = new Map<string, KeyFilterRestorer>();

/** Registers how to rebuild key filters of `kind` (once per kind; at module load). */
export function registerKeyFilterKind(kind: string, restore: KeyFilterRestorer): void {
  const known = RESTORERS.get(kind);
  if (known !== undefined && known !== restore) throw new RangeError(`key filter kind '${kind}' registered twice`);
  RESTORERS.set(kind, restore);
}

export function restoreKeyFilter(shared: SharedKeyFilter, env: KeyFilterEnv): KeyFilter {
  const restore = RESTORERS.get(shared.kind);
  if (restore === undefined) throw new RangeError(`no restorer for key filter kind '${shared.kind}' (registered: ${[...RESTORERS.keys()].join(', ') || 'none'})`);
  return restore(shared.state, env);
}

/** `f` shared, or null when it (or a part of it) cannot be. */
export function shareFilter(f: KeyFilter): SharedKeyFilter | null {
  return f.share?.() ?? null;
}

/** Every filter of `filters` shared, or null when one of them cannot be. */
export function shareAll(filters: readonly KeyFilter[]): SharedKeyFilter[] | null {
  const out: SharedKeyFilter[] = [];
  for (const f of filters) {
    const s = shareFilter(f);
    if (s === null) return null;
    out.push(s);
  }
  return out;
}

/** The context a worker's restored filters see: no probe types, since workers never test containers. */
export function workerPushdownContext(config: Config, keyKinds: readonly KeyKind[], probeColumns: readonly string[]): PushdownContext {
  return { config, keyKinds, probeColumns, probeTypes: [] };
}
