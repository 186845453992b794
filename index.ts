/**
 * joinlab's library entry point. Build an engine from a config object, run a join spec on Arrow
 * tables or files, get back an Arrow table (or a stream of record batches) plus the metrics:
 *
 *   const engine = await Engine.create({ join: 'nested-loop', batchSize: 4096 });
 *   const { table, metrics } = await engine.join({ type: 'inner', on: 'id=id' }, leftTable, 'right.parquet');
 *   const sorted = await engine.sort('orders.parquet', 'amount desc nulls first, id'); // spills past memoryLimit
 *   const { table: answer } = await engine.sql('SELECT o.id, c.name FROM o JOIN c USING (cid)', { o: 'orders.parquet', c: customers });
 *
 * `Engine` (composition.ts) is the one engine: join, stream, sort, aggregate and sql in one class;
 * its doc comment says which layer does each one's work.
 */
export { Engine, BUILTINS, loadConfig, resolveConfig, type SortKeysInput, type SortResult, type SortRunMetrics, type SortStream, type AggregateResult, type AggregateRunMetrics } from './composition.ts';
export { AGGREGATE_FUNCTIONS, type AggregateCall, type AggregateFunction, type AggregateSpec } from './core/aggregate.ts';
export { hashAggregate, type HashAggregateContext } from './operators/aggregate/hash-aggregate.ts';
export type { SqlResult } from './adapters/sql/run.ts';
export { parseSortKeys, formatSortKeys, sortScan, newSortMetrics, type SortKey, type SortMetrics, type SortOptions } from './operators/sort/sort.ts';
export { EMPTY_RUNTIME, type EngineOptions, type EngineRuntime, type JoinInput, type JoinMetrics, type JoinResult, type JoinStream, type MemoryMetrics } from './core/engine.ts';
export { parseConfig, CONFIG_KEYS, CORE_SCHEMA, ConfigSchema, byteSize, positiveInt, nonNegativeInt, type Config, type ConfigInput, type KeyInfo } from './core/config/schema.ts';
export type { LoadConfigOptions } from './core/config/load.ts';
// an extension's settings (core/config/settings.ts): declared with joinlab's zod, read typed
export { defineSettings, settingReader, CORE_OWNER, type SettingSpec, type SettingsFragment, type OwnedSettings } from './core/config/settings.ts';
export { z } from 'zod';
export { toJoinSpec, parseOn, parseRange, type JoinSpecInput } from './core/spec.ts';
export * from './core/types.ts';
export * from './core/errors.ts';
export * as expr from './core/expr/ast.ts';
export { parseExpr } from './core/expr/parse.ts';
export { Registry, defineSlot, type Slot, type Strategy, type StrategyInfo, type SlotInfo } from './core/registry/registry.ts';
export { ALL_SLOTS, INTERNAL_SLOTS, JOIN, PUSHDOWN, HASHMAP, SMJ_EXISTENCE, PWMJ_SEARCH, WORKER_TASK, SCAN_DECODER } from './core/registry/slots.ts';
// Parallel execution: tables in shared memory reach every worker without a copy; the process's pools
export { shareTable, shareBatch } from './core/parallel/wire.ts';
export { WorkerPool } from './core/parallel/worker-pool.ts';
export type { WorkerTask, WorkerSession, WorkerEnv, TaskReply } from './core/parallel/task.ts';
export type { MorselDecoder } from './core/scan/morsel.ts';
export type { Extension } from './core/registry/extensions.ts';
export type { JoinAlgorithm, JoinContext, JoinInputs } from './core/join-algorithm.ts';
export { chooseJoinAlgorithm, joinUnsupportedReason, type JoinChoice } from './core/join-planning.ts';
export type { PushdownPolicy, BuildPartition, KeyFilter, PushdownContext, SharedKeyFilter } from './core/pushdown/policy.ts';
export { registerKeyFilterKind, restoreKeyFilter, shareFilter, type KeyFilterEnv } from './core/pushdown/shared-filters.ts';
export { shareView } from './core/parallel/wire.ts';
export type { HashMapLayout, JoinHashTable, BuildInput, ProbeInput, SharedTable, RestoreInput } from './core/hashmap.ts';
export { ProbeCursor } from './core/hashmap.ts';
export type { BoundJoin } from './core/plan.ts';
export type { Scan, DecodeMorsel, ScanPredicate, ScanSortColumn, ContainerStats, ColumnStats, StatValue } from './core/scan/scan.ts';
export { DynamicFilter } from './core/scan/scan.ts';
export { describeSortOrder, type SortColumnInput } from './core/scan/sort-order.ts';
// An Arrow Table as a Scan, optionally declared sorted (the sort-merge join then needs no sort):
//   engine.join(spec, sortedTable(orders, [{ column: 'customer_id' }]), customers)
export { MemoryScan, sortedTable, type MemoryScanOptions } from './operators/memory-scan/memory-scan.ts';
export type { ScanMetrics, OperatorMetrics } from './core/metrics.ts';

// Building blocks for extensions (policies, layouts, algorithms).
export { hashKeys, hashBytes } from './core/keys/hash.ts';
export { normalizeKeys, anyNullMask } from './core/keys/normalize.ts';
export { makeKeyComparator } from './core/keys/compare.ts';
export { makeSortComparator, isSorted, defaultSortOrders, ASC_NULLS_LAST, type KeySortOrder } from './core/keys/order.ts';
export { argsortKeys, canRadixSort, type ArgsortMethod } from './core/keys/argsort.ts';
export type { KeyColumn, FixedKeyColumn, BytesKeyColumn, KeyKind, KeyComparator } from './core/keys/types.ts';
export { andFilters } from './strategies/pushdown/and.ts';
export { boundsFilter } from './strategies/pushdown/bounds.ts';
export { SplitBlockBloomFilter, optimalBytes as bloomFilterBytes, theoreticalFpp as bloomFilterFpp } from './strategies/pushdown/bloom.ts';
