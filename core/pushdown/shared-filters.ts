/**
 * Key filters across threads: `KeyFilter.share()` gives a filter as plain data; a worker rebuilds
 * an equal filter (same `test` answers) with `restoreKeyFilter`. Each filter kind registers its
 * restorer when its module loads — the worker loads the same extensions, so it knows the same
 * kinds (a user's policy included). Only `test` (and `needsHashes`, `description`) matter on the
 * worker: container pruning stays on the thread that hands out the containers.
 */
import type { KeyFilter, SharedKeyFilter } from './policy.ts';
import type { RestoreEnv } from '../scan/shared-row-test.ts';

export type KeyFilterRestorer = (state: unknown, env: RestoreEnv) => KeyFilter;

const RESTORERS = new Map<string, KeyFilterRestorer>();

/** Registers how to rebuild key filters of `kind` (once per kind; at module load). */
export function registerKeyFilterKind(kind: string, restore: KeyFilterRestorer): void {
  const known = RESTORERS.get(kind);
  if (known !== undefined && known !== restore) throw new RangeError(`key filter kind '${kind}' registered twice`);
  RESTORERS.set(kind, restore);
}

export function restoreKeyFilter(shared: SharedKeyFilter, env: RestoreEnv): KeyFilter {
  const restore = RESTORERS.get(shared.kind);
  if (restore === undefined) throw new RangeError(`no restorer for key filter kind '${shared.kind}' (registered: ${[...RESTORERS.keys()].join(', ') || 'none'})`);
  return restore(shared.state, env);
}

/** Every filter of `filters` shared, or null when one of them cannot be. */
export function shareAll(filters: readonly KeyFilter[]): SharedKeyFilter[] | null {
  const out: SharedKeyFilter[] = [];
  for (const f of filters) {
    if (f.share === undefined) return null;
    out.push(f.share());
  }
  return out;
}
