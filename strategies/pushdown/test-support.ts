/**
 * Test-only helpers for the pushdown tests: Arrow vectors from JS values (64-bit ints, timestamps
 * and decimals from bigints), build partitions exactly as the partitioned hash join forms them
 * (routing with `partitionIds`, keys normalised to the join's kinds, hashes with the partition
 * seed, a `chained` table), a pushdown context, and a nested-loop membership oracle over the
 * normalised keys (word/byte equality via `makeKeyComparator`, independent of hashing).
 *
 * Not on any hot path: closures and per-row allocation are fine here.
 */
import { DataType, makeBuilder, makeData, makeVector, RecordBatch, Table, Type } from 'apache-arrow';
import type { Decimal, Vector } from 'apache-arrow';
import { CORE_SCHEMA, parseConfig, type Config, type ConfigInput } from '../../core/config/schema.ts';
import engines from './engines/extension.ts';
import { makeKeyComparator } from '../../core/keys/compare.ts';
import { hashKeys } from '../../core/keys/hash.ts';
import { anyNullMask, normalizeKeys } from '../../core/keys/normalize.ts';
import { partitionIds, TABLE_SEED } from '../../core/keys/partition.ts';
import { resolveKeyKind } from '../../core/keys/resolve.ts';
import type { BytesKeyColumn, FixedKeyColumn, KeyColumn, KeyKind } from '../../core/keys/types.ts';
import { isBytesKey } from '../../core/keys/types.ts';
import type { BuildPartition, PushdownContext } from '../../core/pushdown/policy.ts';
import { buildChainedTable } from '../hashmap/chained.ts';

export type Val = number | bigint | string | boolean | null;

function validity(values: readonly unknown[]): Uint8Array | undefined {
  if (!values.some((v) => v === null)) return undefined;
  const bm = new Uint8Array(((values.length + 7) >> 3) + 8);
  values.forEach((v, i) => {
    if (v !== null) bm[i >> 3]! |= 1 << (i & 7);
  });
  return bm;
}

function nullCount(values: readonly unknown[]): number {
  return values.filter((v) => v === null).length;
}

/** A one-chunk vector of `type` from JS values (null = NULL). 64-bit ints, timestamps, decimals take bigints. */
export function vec(type: DataType, values: readonly Val[]): Vector {
  const n = values.length;
  const base = { type, length: n, nullCount: nullCount(values), nullBitmap: validity(values) };
  if ((DataType.isInt(type) && type.bitWidth === 64) || DataType.isTimestamp(type)) {
    const signed = !DataType.isInt(type) || type.isSigned;
    const big = values.map((v) => (v === null ? 0n : BigInt(v as bigint | number)));
    const data = signed ? BigInt64Array.from(big) : BigUint64Array.from(big);
    return makeVector(makeData({ ...base, data } as never));
  }
  if (type.typeId === Type.Decimal) {
    const words = new Uint32Array(n * 4);
    values.forEach((v, i) => {
      let u = BigInt.asUintN(128, v === null ? 0n : BigInt(v as bigint | number));
      for (let k = 0; k < 4; k++) {
        words[i * 4 + k] = Number(u & 0xffffffffn);
        u >>= 32n;
      }
    });
    return makeVector(makeData({ ...base, type: type as Decimal, data: words }));
  }
  const b = makeBuilder({ type, nullValues: [null] });
  for (const v of values) b.append(v as never);
  return b.finish().toVector();
}

/** One record batch of the given columns. */
export function batchOf(cols: Record<string, Vector>): RecordBatch {
  const t = new Table(cols);
  if (t.batches.length !== 1) throw new Error(`expected one batch, got ${t.batches.length}`);
  return t.batches[0]!;
}

/** Splits `values` into consecutive chunks of the given sizes. */
export function chunks<T>(values: readonly T[], sizes: readonly number[]): T[][] {
  const out: T[][] = [];
  let at = 0;
  for (const s of sizes) {
    if (at >= values.length) break;
    out.push(values.slice(at, at + s));
    at += s;
  }
  if (at < values.length) out.push(values.slice(at));
  return out;
}

/** Core's keys plus the engines' policies' settings, as an engine with the built-ins validates them. */
const TEST_SCHEMA = CORE_SCHEMA.with([{ owner: engines.name, settings: engines.settings! }]);

export function testConfig(overrides: ConfigInput = {}): Config {
  return parseConfig(overrides, TEST_SCHEMA);
}

/** Kinds for key pairs (probe type, build type). */
export function kindsFor(probeTypes: readonly DataType[], buildTypes: readonly DataType[]): KeyKind[] {
  return probeTypes.map((t, c) => resolveKeyKind(t, buildTypes[c]!, `p${c}`, `b${c}`));
}

export function contextFor(probeTypes: readonly DataType[], kinds: readonly KeyKind[], columns: readonly string[], config: Config = testConfig()): PushdownContext {
  return { config, keyKinds: kinds, probeTypes, probeColumns: columns };
}

/** Rows `rows` of normalised key columns, as new contiguous columns (codes materialised). */
export function gatherKeys(cols: readonly KeyColumn[], rows: readonly number[]): KeyColumn[] {
  return cols.map((c) => {
    const n = rows.length;
    const nulls = c.nulls === null ? null : Uint8Array.from(rows, (r) => c.nulls![r]!);
    const hasNull = nulls !== null && nulls.includes(1);
    if (isBytesKey(c)) {
      const parts = rows.map((r) => {
        const e = c.codes === null ? r : c.codes[r]!;
        return c.bytes.subarray(c.offsets[e]!, c.offsets[e + 1]!);
      });
      const offsets = new Int32Array(n + 1);
      parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.length));
      const bytes = new Uint8Array(offsets[n]!);
      parts.forEach((p, i) => bytes.set(p, offsets[i]!));
      const out: BytesKeyColumn = { kind: c.kind, length: n, offsets, bytes, codes: null, nulls: hasNull ? nulls : null };
      return out;
    }
    const w = c.kind.width;
    const words = new Int32Array(n * w);
    rows.forEach((r, i) => words.set(c.words.subarray(r * w, r * w + w), i * w));
    const out: FixedKeyColumn = { kind: c.kind, length: n, words, nulls: hasNull ? nulls : null };
    return out;
  });
}

export interface PartitionOptions {
  readonly seed?: number;
  readonly nullEqualsNull?: boolean;
}

/** A BuildPartition over already-normalised keys. */
export function partitionFromKeys(keys: readonly KeyColumn[], index = 0, options: PartitionOptions = {}): BuildPartition {
  const seed = options.seed ?? TABLE_SEED;
  const rows = keys[0]!.length;
  const hashes = hashKeys(keys, seed);
  const table = buildChainedTable({ keys, hashes, rows, nullEqualsNull: options.nullEqualsNull ?? false });
  return { index, rows, keys, table, seed };
}

/**
 * The build side split into `count` partitions exactly as the partitioned join routes it
 * (`partitionIds` over the normalised keys; one partition = everything).
 */
export function buildPartitions(
  build: RecordBatch,
  columns: readonly string[],
  kinds: readonly KeyKind[],
  count = 1,
  options: PartitionOptions = {},
): BuildPartition[] {
  const keys = normalizeKeys(build, columns, kinds);
  const n = build.numRows;
  const pid = new Int32Array(n);
  if (count > 1) partitionIds(keys, count, pid);
  const out: BuildPartition[] = [];
  for (let p = 0; p < count; p++) {
    const rows: number[] = [];
    for (let r = 0; r < n; r++) if (pid[r] === p) rows.push(r);
    out.push(partitionFromKeys(gatherKeys(keys, rows), p, options));
  }
  return out;
}

/**
 * Oracle: `m[r] = 1` iff probe row r has no NULL key and equals some NULL-free build row
 * (nested loop over normalised keys, word/byte equality).
 */
export function matchingRows(probe: readonly KeyColumn[], builds: readonly (readonly KeyColumn[])[]): Uint8Array {
  const n = probe[0]!.length;
  const m = new Uint8Array(n);
  const pn = anyNullMask(probe);
  for (const b of builds) {
    const rows = b[0]!.length;
    if (rows === 0) continue;
    const bn = anyNullMask(b);
    const eq = makeKeyComparator(probe, b);
    for (let r = 0; r < n; r++) {
      if (m[r] !== 0 || (pn !== null && pn[r] !== 0)) continue;
      for (let j = 0; j < rows; j++) {
        if (bn !== null && bn[j] !== 0) continue;
        if (eq.equal(r, j)) {
          m[r] = 1;
          break;
        }
      }
    }
  }
  return m;
}

/** Kept-row indices as a 0/1 array (null = every row kept). */
export function keptMask(selected: Int32Array | null, n: number): Uint8Array {
  const m = new Uint8Array(n);
  if (selected === null) m.fill(1);
  else for (const r of selected) m[r] = 1;
  return m;
}

/** A fixed column of the given kind from bigints (2 words per value, two's complement). */
export function int64Column(values: readonly (bigint | null)[], kind: KeyKind): FixedKeyColumn {
  const words = new Int32Array(values.length * 2);
  const nulls = values.some((v) => v === null) ? Uint8Array.from(values, (v) => (v === null ? 1 : 0)) : null;
  values.forEach((v, i) => {
    const u = BigInt.asUintN(64, v ?? 0n);
    words[2 * i] = Number(BigInt.asIntN(32, u));
    words[2 * i + 1] = Number(BigInt.asIntN(32, u >> 32n));
  });
  return { kind, length: values.length, words, nulls };
}

export const BIGINT: KeyKind = { order: 'int', width: 2, sqlType: 'BIGINT' };
export const UBIGINT: KeyKind = { order: 'uint', width: 2, sqlType: 'UBIGINT' };

/** A seeded xorshift PRNG for test data (deterministic, no dependency). */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}
