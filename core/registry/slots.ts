/**
 * The slots of the registry and the config key that picks a strategy in each.
 *
 * `join`, `pushdown`, `hashmap` and `smj.existence` hold strategies with full contracts
 * (core/join-algorithm.ts, core/pushdown/policy.ts, core/hashmap.ts, core/smj-existence.ts).
 * `pwmj.search` is declared for the piecewise merge join (its contract comes with that join), so
 * `joinlab strategies` shows the whole shape of the system and extensions can already fill it.
 */
import type { JoinAlgorithm } from '../join-algorithm.ts';
import type { PushdownPolicy } from '../pushdown/policy.ts';
import type { HashMapLayout } from '../hashmap.ts';
import type { SmjExistenceStream } from '../smj-existence.ts';
import { defineSlot, type Strategy } from './registry.ts';

export const JOIN = defineSlot<JoinAlgorithm>('join', 'join algorithm (config key: join)');
export const PUSHDOWN = defineSlot<PushdownPolicy>('pushdown', 'dynamic-filter pushdown policy (config key: pushdown)');
export const HASHMAP = defineSlot<HashMapLayout>('hashmap', 'hash-table layout for hash-join builds (config key: hashmap)');
export const SMJ_EXISTENCE = defineSlot<SmjExistenceStream>('smj.existence', 'sort-merge join stream for semi/anti/mark (config key: smj.existence)');
export const PWMJ_SEARCH = defineSlot<Strategy>('pwmj.search', 'piecewise merge join first-match search (config key: pwmj.search)');

export const ALL_SLOTS = [JOIN, PUSHDOWN, HASHMAP, SMJ_EXISTENCE, PWMJ_SEARCH] as const;
