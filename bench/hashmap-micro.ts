/**
 * Micro-benchmark of the hash-map layouts alone (not a test, not a DuckDB comparison: it measures
 * the table, not the join). Builds 1M int64 keys and probes 10M uniform int64 keys in [0, 20M)
 * in batches of 64Ki rows, for `chained` (head table at 2x and 1x rows), `linear`, `swiss`, `array`
 * and `rank`, over four build key sets:
 *   - sparse: k = 10 i (span 10M, ~5% of probes hit; density 0.1: auto picks rank)
 *   - sparse: k = 20 i (span 20M, ~5% of probes hit; auto picks rank)
 *   - sparse: k = 64 i (span 64M, every probe in range, ~1.6% hit; auto picks swiss); the step
 *     is `--sparse-step`
 *   - dense:  k = i shuffled (span 1M, ~5% of probes hit; auto picks array)
 * Hashing is timed separately: the join hashes the probe side only for layouts that read hashes
 * (not `array`, not `rank`), so add it to theirs when comparing.
 *
 *   node bin/run-ts.mjs bench/hashmap-micro.ts [--runs 3] [--heads 2,1] [--only chained,linear]
 *     [--probe-domain 20000000] [--sparse-step 64]
 * (`--probe-domain 64000000` spreads the probe over the whole k=64i range: the worst case for
 * `rank`, whose directory is then read at random for every row; auto.ts quotes those figures.)
 */
import { Int64, makeVector } from 'apache-arrow';
import { ProbeCursor } from '../core/hashmap.ts';
import type { BuildInput, JoinHashTable, ProbeInput } from '../core/hashmap.ts';
import { hashKeys } from '../core/keys/hash.ts';
import { normalizeKeyColumn } from '../core/keys/normalize.ts';
import { TABLE_SEED } from '../core/keys/partition.ts';
import { keyKindOf } from '../core/keys/resolve.ts';
import type { KeyColumn } from '../core/keys/types.ts';
import { Rng } from '../core/random.ts';
import { buildArrayTable } from '../strategies/hashmap/array.ts';
import { chooseLayout } from '../strategies/hashmap/auto.ts';
import { buildChainedTable } from '../strategies/hashmap/chained.ts';
import { buildLinearTable } from '../strategies/hashmap/linear.ts';
import { buildRankTable } from '../strategies/hashmap/rank.ts';
import { buildSwissTable } from '../strategies/hashmap/swiss.ts';

const BUILD_ROWS = 1_000_000;
const PROBE_ROWS = 10_000_000;
const argOf = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
/** Probe keys are uniform in [0, PROBE_DOMAIN). */
const PROBE_DOMAIN = argOf('--probe-domain', 20_000_000);
/** Step of the third (sparsest) build key set. */
const SPARSE_STEP = argOf('--sparse-step', 64);
const BATCH = 65_536;
const CAPACITY = 65_536;
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3;
const headsArg = process.argv.indexOf('--heads');
/** Head slots per row to try for `chained` (the default layout uses 2). */
const HEADS = (headsArg > 0 ? process.argv[headsArg + 1]! : '2,1').split(',').map(Number);
const onlyArg = process.argv.indexOf('--only');
/** Variant name prefixes to run (default: all). */
const ONLY = onlyArg > 0 ? process.argv[onlyArg + 1]!.split(',') : null;

const BIGINT = keyKindOf(new Int64(), 'k');

function int64Column(values: Int32Array | Float64Array, from = 0, to = values.length): KeyColumn {
  const n = to - from;
  const words = new Int32Array(2 * n);
  for (let i = 0; i < n; i++) {
    const v = values[from + i]!;
    words[2 * i] = v | 0;
    words[2 * i + 1] = v < 0 ? -1 : Math.floor(v / 4294967296);
  }
  return normalizeKeyColumn(makeVector(new BigInt64Array(words.buffer)), BIGINT);
}

function time<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const r = fn();
  return [r, performance.now() - t0];
}

const rng = new Rng(20240601);
const probeValues = new Int32Array(PROBE_ROWS);
for (let i = 0; i < PROBE_ROWS; i++) probeValues[i] = Math.floor(rng.next() * PROBE_DOMAIN);
const probeBatches: KeyColumn[][] = [];
for (let s = 0; s < PROBE_ROWS; s += BATCH) probeBatches.push([int64Column(probeValues, s, Math.min(PROBE_ROWS, s + BATCH))]);

const sparse10 = new Int32Array(BUILD_ROWS);
for (let i = 0; i < BUILD_ROWS; i++) sparse10[i] = 10 * i;
const sparse = new Int32Array(BUILD_ROWS);
for (let i = 0; i < BUILD_ROWS; i++) sparse[i] = 20 * i;
const sparse64 = new Int32Array(BUILD_ROWS);
for (let i = 0; i < BUILD_ROWS; i++) sparse64[i] = SPARSE_STEP * i;
const dense = new Int32Array(BUILD_ROWS);
for (let i = 0; i < BUILD_ROWS; i++) dense[i] = i;
for (let i = BUILD_ROWS - 1; i > 0; i--) {
  const j = Math.floor(rng.next() * (i + 1));
  const t = dense[i]!;
  dense[i] = dense[j]!;
  dense[j] = t;
}

const outP = new Int32Array(CAPACITY);
const outB = new Int32Array(CAPACITY);

function hashProbes(): Uint32Array[] {
  return probeBatches.map((keys) => hashKeys(keys, TABLE_SEED));
}

function probeAll(table: JoinHashTable, hashes: Uint32Array[] | null): number {
  const cursor = new ProbeCursor();
  let pairs = 0;
  const empty = new Uint32Array(BATCH);
  for (let b = 0; b < probeBatches.length; b++) {
    const keys = probeBatches[b]!;
    const input: ProbeInput = { keys, hashes: hashes === null ? empty : hashes[b]!, rows: keys[0]!.length };
    cursor.reset();
    while (!cursor.done) pairs += table.probe(input, cursor, outP, outB, CAPACITY);
  }
  return pairs;
}

function containsAll(table: JoinHashTable, hashes: Uint32Array[] | null): number {
  const out = new Uint8Array(BATCH);
  const empty = new Uint32Array(BATCH);
  let hits = 0;
  for (let b = 0; b < probeBatches.length; b++) {
    const keys = probeBatches[b]!;
    const rows = keys[0]!.length;
    table.contains({ keys, hashes: hashes === null ? empty : hashes[b]!, rows }, out, null);
    for (let i = 0; i < rows; i++) hits += out[i]!;
  }
  return hits;
}

interface Variant {
  readonly name: string;
  readonly usesHashes: boolean;
  build(input: BuildInput): JoinHashTable;
}

const ALL_VARIANTS: readonly Variant[] = [
  ...HEADS.map((h): Variant => ({ name: `chained (${h}x heads)`, usesHashes: true, build: (i) => buildChainedTable(i, { slotsPerRow: h }) })),
  { name: 'linear', usesHashes: true, build: (i) => buildLinearTable(i) },
  { name: 'swiss', usesHashes: true, build: (i) => buildSwissTable(i) },
  { name: 'array', usesHashes: false, build: (i) => buildArrayTable(i) },
  { name: 'rank', usesHashes: false, build: (i) => buildRankTable(i) },
];
const VARIANTS = ALL_VARIANTS.filter((v) => ONLY === null || ONLY.some((o) => v.name.startsWith(o)));

const ms = (x: number) => x.toFixed(1).padStart(8);
console.log(`hashmap micro-benchmark: build ${BUILD_ROWS} int64 keys, probe ${PROBE_ROWS} uniform keys in [0, ${PROBE_DOMAIN}), batches of ${BATCH}; best of ${RUNS} runs, ms`);
const [probeHashes, probeHashMs] = time(hashProbes);
console.log(`hash ${PROBE_ROWS} probe keys (hashKeys, once for chained and linear): ${probeHashMs.toFixed(1)} ms`);

for (const [setName, values] of [['sparse k=10i', sparse10], ['sparse k=20i', sparse], [`sparse k=${SPARSE_STEP}i`, sparse64], ['dense k=shuffled 0..1M-1', dense]] as const) {
  const keys = [int64Column(values)];
  const [buildHashes, buildHashMs] = time(() => hashKeys(keys, TABLE_SEED));
  const input: BuildInput = { keys, hashes: buildHashes, rows: BUILD_ROWS, nullEqualsNull: false };
  console.log(`\n${setName}: auto picks ${chooseLayout(input)}; hashing the build keys ${buildHashMs.toFixed(1)} ms`);
  console.log(`${'layout'.padEnd(20)} ${'build'.padStart(8)} ${'probe'.padStart(8)} ${'contains'.padStart(8)}  ${'pairs'.padStart(9)} ${'MB'.padStart(6)}`);
  for (const v of VARIANTS) {
    let best = { build: Infinity, probe: Infinity, contains: Infinity };
    let pairs = 0;
    let hits = 0;
    let mb = 0;
    for (let run = 0; run < RUNS; run++) {
      const [table, buildMs] = time(() => v.build(input));
      const [p, probeMs] = time(() => probeAll(table, v.usesHashes ? probeHashes : null));
      const [h, containsMs] = time(() => containsAll(table, v.usesHashes ? probeHashes : null));
      if (run > 0 && (p !== pairs || h !== hits)) throw new Error(`${v.name}: results differ between runs`);
      pairs = p;
      hits = h;
      mb = table.memoryBytes / (1024 * 1024);
      best = { build: Math.min(best.build, buildMs), probe: Math.min(best.probe, probeMs), contains: Math.min(best.contains, containsMs) };
    }
    if (pairs !== hits) throw new Error(`${v.name}: ${pairs} pairs but ${hits} members (keys are unique)`);
    console.log(`${v.name.padEnd(20)} ${ms(best.build)} ${ms(best.probe)} ${ms(best.contains)}  ${String(pairs).padStart(9)} ${mb.toFixed(1).padStart(6)}`);
  }
}
