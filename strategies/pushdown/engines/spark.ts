/**
 * `spark`: Spark SQL's row-level runtime filter for a join (the `InjectRuntimeFilter` optimizer
 * rule), per build partition.
 *
 * What Spark does (4.0 and master):
 *  - With `spark.sql.optimizer.runtime.bloomFilter.enabled` (default true; false in 3.3) a Bloom filter
 *    of the creation (build) side's join key is injected on the application (probe) side — unless
 *    the creation side's estimated size exceeds `bloomFilter.creationSideThreshold` (10 MiB; the
 *    check is `size > threshold`, so exactly the threshold still gets a filter).
 *  - Its size (`BloomFilterAggregate`): with a row-count statistic for the creation side,
 *    `expectedNumItems = min(rowCount, maxNumItems)` and `numBits = min(optimalNumOfBits(rowCount,
 *    maxNumItems, maxNumBits), maxNumBits)` where `optimalNumOfBits` takes the false-positive rate
 *    `fpp = min(n / (maxNumItems / 0.03), 0.03)` and `bits = floor(-n ln fpp / ln^2 2)`
 *    (common/sketch `BloomFilter.java`) — smaller builds get a lower fpp. Without one — the
 *    default: a Filter over a scan has no row count unless CBO / plan statistics are on and the
 *    table was analyzed — `expectedNumItems` (1M) and `numBits` (8 Mi bits = 1 MiB), each capped by
 *    `maxNumItems` (4M) / `maxNumBits` (64 Mi bits). joinlab: `pushdown.spark.rowCountStats`
 *    (default false) says whether Spark would have the row count; joinlab's is exact
 *    (`build.rows`, NULL rows included as in a row count).
 *  - The filter is `might_contain(bloom, xxhash64(key))` in a Filter ABOVE the scan: no min/max is
 *    published, and it is not translated into a data-source filter, so no file / row-group is
 *    pruned by it. joinlab publishes the Bloom filter alone; its `mayContain` is always true.
 *  - Spark 3.3-3.5 had a second form, `runtimeFilter.semiJoinReduction.enabled` (default false):
 *    when Bloom filters are DISABLED and it is on, an `IN (SELECT key FROM creation side GROUP BY
 *    key)` subquery is injected instead — only if that aggregate's estimated size fits
 *    `spark.sql.autoBroadcastJoinThreshold` (10 MiB; `pushdown.spark.broadcastThreshold` here),
 *    no creation-side threshold. It is rewritten into a left-semi join, so again nothing reaches the
 *    scan. SPARK-45725 (apache/spark#43585, Spark 4.0) removed it; joinlab keeps it behind
 *    `pushdown.spark.semiJoinReduction` as 3.5 had it.
 *
 * Mapping onto joinlab, and what is substituted:
 *  - Creation-side size: `build.bytes` (Arrow bytes of the partition's build rows, all columns, as the
 *    hash join reports them); when absent, the key columns' bytes (`keyColumnBytes`) — an
 *    underestimate, said in the description. Spark estimates (with default statistics the size of
 *    the scanned relation, a filter's selectivity not applied); joinlab measures.
 *  - Spark builds ONE filter for the whole creation side; joinlab plans per build partition. In
 *    collect-left mode the one partition is the whole creation side, as in Spark. In partitioned
 *    mode (`hash.partitions` = P) a policy sees one partition at a time, so the whole side is
 *    estimated as P x this partition (rows and bytes; hash partitions of many keys are about even)
 *    for the threshold and for Spark's sizing, and each partition's filter gets 1/P of the bits —
 *    P filters of Spark's total size, the same bits per key, not P times Spark's memory. An uneven
 *    partition can then decide differently from its siblings; each decision only affects the probe
 *    rows routed to it.
 *  - The Bloom filter: Spark's is a classic Bloom filter (`BloomFilterImplV2`/`BloomFilterImpl`: a
 *    bit array of `numBits` rounded up to 64, k = max(1, round(numBits / n * ln 2)) probes anywhere in
 *    it, positions from a 64-bit hash — xxhash64 of the key, hashed again with murmur3). joinlab's is
 *    split-block (bloom.ts: 8 probes inside one 256-bit block, from the join's 32-bit key hash) with
 *    the SAME bit budget: `numBits / 8` bytes rounded up to a positive multiple of 32. Same memory,
 *    different layout: the false-positive rate differs (split-block is a little worse at the same
 *    bits per key, and fixed at 8 probes where Spark's k varies), membership answers never do —
 *    neither has false negatives.
 *  - The IN-subquery: Spark 3.5 compares `murmur3hash(key)` when the key is wider than an INT
 *    (`mayWrapWithHash`), so hash collisions pass; joinlab's IN list (inlist.ts) is exact — at most
 *    the rows Spark's passes. Its aggregate size is estimated as Spark's size-only statistics do
 *    (the child's size scaled to the key columns, every row, not the distinct count): the key
 *    columns' bytes.
 *  - Not modelled: `applicationSideScanSizeThreshold` (10 GiB; the probe side's scan size, which a
 *    policy does not see — joinlab assumes it qualifies), `runtimeFilter.number.threshold` (10 filters
 *    per query; one join here), the selective-predicate / shuffle-join heuristics that decide
 *    whether the rule considers a join at all (joinlab's caller already chose pushdown).
 *
 * Sources: apache/spark master (stored commits named; the Bloom-filter rule is 4.0's — master adds
 * a runtime-filter hint and a materialized-statistics threshold, not modelled) —
 * `sql/catalyst/src/main/scala/org/apache/spark/sql/internal/SQLConf.scala` (9a74418a; the keys and
 * defaults, all since 3.3.0),
 * `sql/catalyst/src/main/scala/org/apache/spark/sql/catalyst/optimizer/InjectRuntimeFilter.scala`
 * (00d7051f; `injectBloomFilter`: `creationSideSize > threshold`, the row count),
 * `sql/catalyst/src/main/scala/org/apache/spark/sql/catalyst/expressions/aggregate/BloomFilterAggregate.scala`
 * (item and bit counts, capped by maxNumItems / maxNumBits),
 * `common/sketch/src/main/java/org/apache/spark/util/sketch/BloomFilter.java` (013bfe4f;
 * `optimalNumOfBits`, k); the 3.3-3.5 InjectRuntimeFilter (`injectFilter` choosing the IN-subquery
 * only without Bloom filters, `injectInSubqueryFilter`, `mayWrapWithHash`, `canBroadcastBySize`),
 * read in a stored copy of that branch; its removal: SPARK-45725, apache/spark#43585 (2023-10,
 * Spark 4.0).
 */
import { z } from 'zod';
import { byteSize, positiveInt, type Config } from '../../../core/config/schema.ts';
import { defineSettings, settingReader } from '../../../core/config/settings.ts';
import { keyColumnBytes, isBytesKey, type KeyColumn } from '../../../core/keys/types.ts';
import type { BuildPartition, PushdownPolicy } from '../../../core/pushdown/policy.ts';
import { FALSE_FILTER } from '../and.ts';
import { BloomKeyFilter, buildBloom, formatBytes } from '../bloom-key-filter.ts';
import { usableRows } from '../bounds.ts';
import { InList } from '../inlist.ts';
import { annotate } from './annotated.ts';

const MIB = 1024 * 1024;
/** Bloom filter bits a split-block filter can hold (2 GiB). */
const MAX_BLOOM_BITS = 2 ** 34;

/**
 * Spark's runtime filter settings (SQLConf's defaults; "10MB" = 10 MiB), declared by the engines'
 * extension (extension.ts).
 */
export const SPARK_SETTINGS = defineSettings({
  'pushdown.spark.bloomFilterEnabled': { schema: z.boolean(), default: true, description: 'spark.sql.optimizer.runtime.bloomFilter.enabled' },
  'pushdown.spark.creationSideThreshold': { schema: byteSize, default: 10 * MIB, description: 'a bigger build side gets no filter' },
  'pushdown.spark.rowCountStats': { schema: z.boolean(), default: false, description: "true: size by optimalNumOfBits from the row count, as with CBO" },
  'pushdown.spark.expectedNumItems': { schema: positiveInt, default: 1_000_000, description: 'expected items without a row count' },
  'pushdown.spark.numBits': { schema: positiveInt.max(MAX_BLOOM_BITS), default: 8_388_608, description: 'Bloom filter bits without a row count' },
  'pushdown.spark.maxNumItems': { schema: positiveInt, default: 4_000_000, description: 'cap on the items' },
  'pushdown.spark.maxNumBits': { schema: positiveInt.max(MAX_BLOOM_BITS), default: 67_108_864, description: 'cap on the bits' },
  'pushdown.spark.semiJoinReduction': { schema: z.boolean(), default: false, description: "Spark 3.3–3.5's IN-subquery when Bloom filters are off" },
  'pushdown.spark.broadcastThreshold': { schema: byteSize, default: 10 * MIB, description: "the IN-subquery's aggregate must fit (spark.sql.autoBroadcastJoinThreshold)" },
});
const setting = settingReader(SPARK_SETTINGS);

const DEFAULT_FPP = 0.03;
const LN2_SQUARED = Math.LN2 * Math.LN2;

/** `BloomFilter.optimalNumOfBits(n, maxNumItems, maxNumBits)`. */
export function optimalNumOfBits(n: number, maxNumItems: number, maxNumBits: number): number {
  const fpp = Math.min(n / (maxNumItems / DEFAULT_FPP), DEFAULT_FPP);
  return Math.min(Math.floor((-n * Math.log(fpp)) / LN2_SQUARED), maxNumBits);
}

/** The Bloom filter Spark would build for a creation side of `rows` rows. */
export interface SparkBloomSize {
  readonly items: number;
  readonly bits: number;
  /** Spark's probe count k = max(1, round(bits / items * ln 2)) (for the description). */
  readonly hashes: number;
  /** Whether the bit count was capped by `maxNumBits`. */
  readonly capped: boolean;
  readonly source: 'row count' | 'defaults';
}

export function sparkBloomSize(rows: number, config: Config): SparkBloomSize {
  const maxItems = setting(config, 'pushdown.spark.maxNumItems');
  const maxBits = setting(config, 'pushdown.spark.maxNumBits');
  const useRowCount = setting(config, 'pushdown.spark.rowCountStats') && rows > 0;
  const wantedItems = useRowCount ? rows : setting(config, 'pushdown.spark.expectedNumItems');
  const wantedBits = useRowCount ? optimalNumOfBits(rows, maxItems, Infinity) : setting(config, 'pushdown.spark.numBits');
  const items = Math.min(wantedItems, maxItems);
  const bits = Math.max(1, Math.min(wantedBits, maxBits));
  return { items, bits, hashes: Math.max(1, Math.round((bits / items) * Math.LN2)), capped: wantedBits > maxBits, source: useRowCount ? 'row count' : 'defaults' };
}

/** Split-block bytes for `bits`: bits / 8 rounded UP to a positive multiple of 32. */
export function bloomBytesFor(bits: number): number {
  return Math.max(32, Math.ceil(Math.ceil(bits / 8) / 32) * 32);
}

/** Arrow bytes of the key columns over the partition's rows (the estimate when `bytes` is absent). */
function keyBytes(keys: readonly KeyColumn[]): number {
  let n = 0;
  for (const k of keys) n += keyColumnBytes(k) + (isBytesKey(k) ? k.bytes.byteLength : 0);
  return n;
}

export const sparkPushdown: PushdownPolicy = {
  name: 'spark',
  description:
    "Spark's runtime filter: a Bloom filter of Spark's size (numBits, or the row-count rule, capped at maxNumBits) when the build is <= creationSideThreshold bytes, else nothing; no min/max; the 3.5 IN-subquery (semi-join reduction) when Bloom filters are off (pushdown.spark.*)",
  planPartition(build: BuildPartition, ctx) {
    const usable = usableRows(build);
    // bloom_filter_agg of no non-NULL value is NULL, and might_contain(NULL, x) filters every row
    if (usable.count === 0) return FALSE_FILTER;
    const cfg = ctx.config;
    const measured = build.bytes !== undefined;
    // Spark sizes and checks ONE filter for the whole creation side: with P hash partitions the
    // whole side is estimated as P x this one, and this partition gets 1/P of the filter's bits
    const P = cfg['hash.mode'] === 'partitioned' ? cfg['hash.partitions'] : 1;
    const whole = P > 1 ? ` (${P} x this partition's)` : '';
    if (setting(cfg, 'pushdown.spark.bloomFilterEnabled')) {
      const size = P * (build.bytes ?? keyBytes(build.keys));
      const threshold = setting(cfg, 'pushdown.spark.creationSideThreshold');
      if (size > threshold) return null;
      const s = sparkBloomSize(P * build.rows, cfg);
      const bytes = bloomBytesFor(s.bits / P);
      const bloom = new BloomKeyFilter(buildBloom(build, { bytes }, usable), ctx);
      const sizeNote = `${size}${whole} <= ${threshold} creation-side bytes${measured ? '' : ' (estimated from the key columns)'}`;
      const share = P > 1 ? `, 1/${P} of them here` : '';
      const bitsNote = `${s.bits} bits${s.capped ? ' (capped at maxNumBits)' : ''} for ${s.items} items from ${s.source}, Spark k=${s.hashes}${share}`;
      return annotate(bloom, { description: `${bloom.description} [spark: Bloom filter, ${sizeNote}; ${bitsNote}]`, label: `bloom(${formatBytes(bytes)})` });
    }
    if (setting(cfg, 'pushdown.spark.semiJoinReduction')) {
      const aggregate = P * keyBytes(build.keys);
      const threshold = setting(cfg, 'pushdown.spark.broadcastThreshold');
      if (aggregate > threshold) return null;
      const out = InList.build(build, ctx, usable, { maxDistinct: Infinity, maxBytes: Infinity });
      if (out.list === null) return null;
      return annotate(out.list, {
        description: `${out.list.description} [spark 3.5: IN-subquery (semi-join reduction), ${aggregate}${whole} <= ${threshold} aggregate bytes; a left-semi join, not a scan predicate]`,
        label: `semi-in(${out.list.size})`,
        rowsOnly: true,
      });
    }
    return null;
  },
};
