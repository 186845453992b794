/**
 * Row tests across threads: a published predicate's `selectRows` rebuilt on a worker thread from
 * its `SharedRowTest` (core/scan/scan.ts), so a worker that decodes a container itself filters its
 * rows as the scan on the main thread would have.
 *
 * Each kind of predicate registers a restorer under its `kind` when its module loads; a worker
 * loads the same modules (the engine's extensions), so every kind the main thread can share is
 * known there. Restored tests keep their own adaptive state (a selectivity gate starts afresh per
 * worker): they may keep more rows than the original would have, never fewer — still "maybe".
 * An unknown kind is an error: it means an extension shared a test it never registered.
 */
import type { RecordBatch } from 'apache-arrow';
import type { Registry } from '../registry/registry.ts';
import type { SharedRowTest } from './scan.ts';

/** What a restored row test does: `ScanPredicate.selectRows`. */
export interface RowTest {
  /** Ascending indices of the rows that may pass, or null to keep every row. */
  selectRows(batch: RecordBatch): Int32Array | null;
}

/** What a restorer may use on the worker thread. */
export interface RestoreEnv {
  /** The worker's registry (e.g. to restore a hash table by its layout). */
  readonly registry: Registry;
}

export type RowTestRestorer = (state: unknown, env: RestoreEnv) => RowTest;

const RESTORERS = new Map<string, RowTestRestorer>();

/** Registers how to rebuild row tests of `kind` (once per kind; at module load). */
export function registerRowTestKind(kind: string, restore: RowTestRestorer): void {
  const known = RESTORERS.get(kind);
  if (known !== undefined && known !== restore) throw new RangeError(`row test kind '${kind}' registered twice`);
  RESTORERS.set(kind, restore);
}

export function restoreRowTest(shared: SharedRowTest, env: RestoreEnv): RowTest {
  const restore = RESTORERS.get(shared.kind);
  if (restore === undefined) throw new RangeError(`no restorer for row test kind '${shared.kind}' (registered: ${[...RESTORERS.keys()].join(', ') || 'none'})`);
  return restore(shared.state, env);
}
