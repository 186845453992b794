/**
 * The slots of the registry and the config key that picks a strategy in each.
 *
 * Every slot holds strategies with a contract of its own: core/join-algorithm.ts,
 * core/pushdown/policy.ts, core/hashmap.ts, core/smj-existence.ts, core/pwmj-search.ts (the
 * piecewise merge join's first-match search, registered ahead of the join that will use it) and
 * core/sip.ts (information passing across a query's joins).
 */
import type { JoinAlgorithm } from '../join-algorithm.ts';
import type { PushdownPolicy } from '../pushdown/policy.ts';
import type { HashMapLayout } from '../hashmap.ts';
import type { SmjExistenceStream } from '../smj-existence.ts';
import type { FirstMatchSearch } from '../pwmj-search.ts';
import type { WorkerTask } from '../parallel/task.ts';
import type { MorselDecoder } from '../scan/morsel.ts';
import type { SipStrategy } from '../sip.ts';
import { defineSlot, type Slot, type Strategy } from './registry.ts';

export const JOIN = defineSlot<JoinAlgorithm>('join', 'join algorithm (config key: join)');
export const PUSHDOWN = defineSlot<PushdownPolicy>('pushdown', 'dynamic-filter pushdown policy (config key: pushdown)');
export const HASHMAP = defineSlot<HashMapLayout>('hashmap', 'hash-table layout for hash-join builds (config key: hashmap)');
export const SMJ_EXISTENCE = defineSlot<SmjExistenceStream>('smj.existence', 'sort-merge join stream for semi/anti/mark (config key: smj.existence)');
export const PWMJ_SEARCH = defineSlot<FirstMatchSearch>('pwmj.search', 'piecewise merge join first-match search (config key: pwmj.search)');

export const SIP = defineSlot<SipStrategy>('sip', 'how runtime filters travel across a whole query (config key: sip)');

export const WORKER_TASK = defineSlot<WorkerTask>('worker-task', "an operator's work on worker threads (core/parallel/task.ts; not configured, resolved by the operator)");

export const SCAN_DECODER = defineSlot<MorselDecoder>('scan-decoder', 'decodes a scan\'s morsels on worker threads (core/scan/morsel.ts; registered by a file format, not configured)');

/** The configurable slots (`joinlab strategies` lists these). */
export const ALL_SLOTS: readonly Slot<Strategy>[] = [JOIN, PUSHDOWN, HASHMAP, SMJ_EXISTENCE, PWMJ_SEARCH, SIP];

/**
 * Slots for internals that an operator or a scan resolves by name and no config key selects
 * (declared by their first registration; `joinlab strategies` leaves them out).
 */
export const INTERNAL_SLOTS: readonly Slot<Strategy>[] = [WORKER_TASK, SCAN_DECODER];
