/**
 * Test helpers shared by the hash-map tests: Arrow vectors from JS values, normalised key columns
 * for both sides, a naive nested-loop oracle over the JS values (independent of normalisation and
 * hashing), a driver that probes with a given capacity until the cursor is done, and int64 key
 * builders for the size tests (no BigInt per row).
 */
import { DataType, Int64, makeBuilder, makeVector } from 'apache-arrow';
import { expect } from 'vitest';
import type { Vector } from 'apache-arrow';
import { ProbeCursor } from '../../core/hashmap.ts';
import type { BuildInput, JoinHashTable, ProbeInput } from '../../core/hashmap.ts';
import { hashKeys } from '../../core/keys/hash.ts';
import { normalizeKeyColumn } from '../../core/keys/normalize.ts';
import { TABLE_SEED } from '../../core/keys/partition.ts';
import { keyKindOf, resolveKeyKind } from '../../core/keys/resolve.ts';
import type { KeyColumn, KeyKind } from '../../core/keys/types.ts';

export type Val = number | bigint | string | boolean | null;
export type Row = readonly Val[];

/** A vector of `type`; numbers headed for a 64-bit integer column are passed as bigints. */
export function vector(type: DataType, values: readonly Val[]): Vector {
  const b = makeBuilder({ type, nullValues: [null] });
  const wide = DataType.isInt(type) && type.bitWidth === 64;
  for (const v of values) b.append((wide && typeof v === 'number' ? BigInt(v) : v) as never);
  return b.finish().toVector();
}

export interface Sides {
  readonly kinds: KeyKind[];
  readonly build: BuildInput;
  readonly probe: ProbeInput;
}

/** Normalise both sides' columns (column c of every row) to the common kinds and hash them. */
export function sides(buildTypes: readonly DataType[], probeTypes: readonly DataType[], build: readonly Row[], probe: readonly Row[], nullEqualsNull: boolean): Sides {
  const kinds = buildTypes.map((t, c) => resolveKeyKind(t, probeTypes[c]!, `b${c}`, `p${c}`));
  const bk: KeyColumn[] = kinds.map((k, c) => normalizeKeyColumn(vector(buildTypes[c]!, build.map((r) => r[c]!)), k, `b${c}`));
  const pk: KeyColumn[] = kinds.map((k, c) => normalizeKeyColumn(vector(probeTypes[c]!, probe.map((r) => r[c]!)), k, `p${c}`));
  return {
    kinds,
    build: { keys: bk, hashes: hashKeys(bk, TABLE_SEED), rows: build.length, nullEqualsNull },
    probe: { keys: pk, hashes: hashKeys(pk, TABLE_SEED), rows: probe.length },
  };
}

/** SQL equality of two non-NULL values: ints across widths, -0 = 0, NaN = NaN. */
export function valueEquals(a: Val, b: Val): boolean {
  if (typeof a === 'bigint' || typeof b === 'bigint') return BigInt(a as never) === BigInt(b as never);
  if (typeof a === 'number' && typeof b === 'number') return a === b || (a !== a && b !== b);
  return a === b;
}

export function rowEquals(p: Row, b: Row, nullEqualsNull: boolean): boolean {
  for (let c = 0; c < p.length; c++) {
    const x = p[c]!;
    const y = b[c]!;
    if (x === null || y === null) {
      if (!(nullEqualsNull && x === null && y === null)) return false;
    } else if (!valueEquals(x, y)) return false;
  }
  return true;
}

/** Every equal pair, probe rows ascending, build rows ascending within a probe row. */
export function oraclePairs(build: readonly Row[], probe: readonly Row[], nullEqualsNull: boolean): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < probe.length; i++) {
    for (let j = 0; j < build.length; j++) if (rowEquals(probe[i]!, build[j]!, nullEqualsNull)) out.push([i, j]);
  }
  return out;
}

/** Probe to completion with `capacity`, checking every call's contract on the way. */
export function probeAll(table: JoinHashTable, probe: ProbeInput, capacity: number, maxCalls = 1e7): [number, number][] {
  const cursor = new ProbeCursor();
  const op = new Int32Array(capacity);
  const ob = new Int32Array(capacity);
  const out: [number, number][] = [];
  let calls = 0;
  while (!cursor.done) {
    const n = table.probe(probe, cursor, op, ob, capacity);
    if (n < 0 || n > capacity) throw new Error(`probe returned ${n} with capacity ${capacity}`);
    if (n < capacity && !cursor.done) throw new Error(`probe returned ${n} < capacity ${capacity} without finishing`);
    for (let k = 0; k < n; k++) out.push([op[k]!, ob[k]!]);
    if (++calls > maxCalls) throw new Error('probe does not terminate');
  }
  if (table.probe(probe, cursor, op, ob, capacity) !== 0) throw new Error('a finished cursor still produced pairs');
  return out;
}

const BIGINT = keyKindOf(new Int64(), 'k');

/** An Int64 key column from word generators (no BigInt per row). */
export function int64Keys(n: number, lo: (i: number) => number, hi: (i: number) => number = () => 0): KeyColumn {
  const words = new Int32Array(2 * n);
  for (let i = 0; i < n; i++) {
    words[2 * i] = lo(i);
    words[2 * i + 1] = hi(i);
  }
  return normalizeKeyColumn(makeVector(new BigInt64Array(words.buffer)), BIGINT);
}

/** A build of n Int64 keys with low words lo(i), hashed with the table seed. */
export function int64BuildInput(n: number, lo: (i: number) => number, nullEqualsNull = false): BuildInput {
  const keys = [int64Keys(n, lo)];
  return { keys, hashes: hashKeys(keys, TABLE_SEED), rows: n, nullEqualsNull };
}

/** A probe of the given Int64 values, hashed with the table seed. */
export function int64ProbeInput(values: readonly number[]): ProbeInput {
  const keys = [int64Keys(values.length, (i) => values[i]!)];
  return { keys, hashes: hashKeys(keys, TABLE_SEED), rows: values.length };
}

/** `contains` over every probe row (untouched entries would show as 9). */
export function membership(table: JoinHashTable, probe: ProbeInput): number[] {
  const out = new Uint8Array(probe.rows).fill(9);
  table.contains(probe, out, null);
  return Array.from(out);
}

/** Probes with capacity 8 and checks the stream of pairs equals `expected`, in order; returns the count. */
export function expectStream(table: JoinHashTable, probe: ProbeInput, expected: Iterable<[number, number]>): number {
  const cursor = new ProbeCursor();
  const op = new Int32Array(8);
  const ob = new Int32Array(8);
  const it = expected[Symbol.iterator]();
  let total = 0;
  while (!cursor.done) {
    const n = table.probe(probe, cursor, op, ob, 8);
    for (let k = 0; k < n; k++) {
      const e = it.next();
      if (e.done || e.value[0] !== op[k] || e.value[1] !== ob[k]) {
        throw new Error(`pair ${total + k}: got (${op[k]}, ${ob[k]}), expected ${e.done ? 'end' : `(${e.value})`}`);
      }
    }
    total += n;
  }
  expect(it.next().done).toBe(true);
  return total;
}

/** Every build row 0..rows-1 for each of `probeRows`, in order: the pairs of an all-equal build. */
export function* heavyPairs(rows: number, probeRows: readonly number[]): Generator<[number, number]> {
  for (const r of probeRows) for (let j = 0; j < rows; j++) yield [r, j];
}
