/**
 * Large key columns for benchmarks, generated straight into typed arrays (a 10M-row probe must
 * not go through per-row JS values): int64 keys and their decimal-string twins as Utf8 built
 * from offsets + bytes.
 */
import { Float64, Int64, RecordBatch, Schema, Field, Table, Utf8, makeData, type DataType, type Data } from 'apache-arrow';
import { Struct } from 'apache-arrow';
import { Rng } from '../../core/random.ts';

/** `n` int64 values from `f(i)` (f returns a safe integer). */
export function int64Values(n: number, f: (i: number) => number): BigInt64Array {
  const out = new BigInt64Array(n);
  const words = new Int32Array(out.buffer);
  for (let i = 0; i < n; i++) {
    const v = f(i);
    words[2 * i] = v | 0;
    words[2 * i + 1] = Math.floor(v / 4294967296);
  }
  return out;
}

/** Uniform integers in [0, bound) from a seeded generator. */
export function uniformInts(n: number, bound: number, seed: number): Float64Array {
  const rng = new Rng(seed);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(rng.next() * bound);
  return out;
}

/** Decimal strings of non-negative integers as Utf8 data (prefix + digits). */
export function utf8Digits(values: ArrayLike<number>, prefix = 'key-'): Data<Utf8> {
  const n = values.length;
  const pre = new TextEncoder().encode(prefix);
  const offsets = new Int32Array(n + 1);
  let total = 0;
  for (let i = 0; i < n; i++) {
    total += pre.length + digitCount(values[i]!);
    offsets[i + 1] = total;
  }
  const bytes = new Uint8Array(total);
  for (let i = 0; i < n; i++) {
    let at = offsets[i]!;
    bytes.set(pre, at);
    at += pre.length;
    let v = values[i]!;
    const len = digitCount(v);
    for (let d = len - 1; d >= 0; d--) {
      bytes[at + d] = 48 + (v % 10);
      v = Math.floor(v / 10);
    }
  }
  return makeData({ type: new Utf8(), length: n, nullCount: 0, valueOffsets: offsets, data: bytes });
}

function digitCount(v: number): number {
  return v < 10 ? 1 : Math.floor(Math.log10(v)) + 1;
}

/** A table of the given columns, cut into record batches of `batchRows`. */
export function tableOf(columns: Record<string, Data>, batchRows: number): Table {
  const names = Object.keys(columns);
  const datas = names.map((k) => columns[k]!);
  const n = datas[0]!.length;
  const schema = new Schema(names.map((k, i) => new Field(k, datas[i]!.type as DataType, false)));
  const batches: RecordBatch[] = [];
  for (let off = 0; off < n; off += batchRows) {
    const len = Math.min(batchRows, n - off);
    const children = datas.map((d) => d.slice(off, len));
    batches.push(new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: len, nullCount: 0, children })));
  }
  return new Table(schema, batches);
}

export function int64Data(values: BigInt64Array): Data<Int64> {
  return makeData({ type: new Int64(), length: values.length, nullCount: 0, data: values });
}

export function float64Data(values: Float64Array): Data<Float64> {
  return makeData({ type: new Float64(), length: values.length, nullCount: 0, data: values });
}
