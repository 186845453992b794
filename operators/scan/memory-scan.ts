/**
 * `MemoryScan`: the Scan contract over an in-memory Arrow Table. Each RecordBatch is one
 * container; before "decoding" it (here: handing it on) the scan re-reads the dynamic filter and
 * skips the batch when `mayContain(zoneMap)` is false, so pruning behaves exactly as over Parquet
 * row groups and experiments can compare the two.
 *
 * Invariants:
 * - `containersTotal = containersPruned + kept` for the containers visited (a consumer that stops
 *   early leaves the rest uncounted); `bytesDecoded + bytesSkipped` = buffer bytes of the needed
 *   columns (requested ∪ predicate) of the visited batches.
 * - rows are gathered only when the row filter actually drops some; otherwise the batch is passed
 *   through (projected, zero-copy). Empty results are not emitted.
 * - `elapsedMs` counts time spent inside the scan, not in the consumer between batches.
 *
 * Also home of the scan-side helpers `projectBatch` and `takeRows` (a typed-array gather: fixed
 * width via 32/16/8-bit word views — no BigInt per row —, bits, var-length bytes with 32- or
 * 64-bit offsets, dictionary indices, structs, lists/maps (by gathering their child rows); unions
 * and view types fall back to apache-arrow builders, slow but only hit by exotic payload columns).
 */
import {
  Data,
  DataType,
  makeBuilder,
  makeData,
  makeVector,
  RecordBatch,
  Schema,
  Struct,
  type Field,
  type Table,
} from 'apache-arrow';
import { CancelledError, MissingColumnError } from '../../core/errors.ts';
import { newScanMetrics, type ScanMetrics } from '../../core/metrics.ts';
import type { Scan, ScanOptions, ScanPredicate } from './types.ts';
import { zoneMapOf } from './zone-map.ts';

// ------------------------------------------------------------------------------------------------
// Helpers shared with ParquetScan
// ------------------------------------------------------------------------------------------------

export function throwIfAborted(signal: AbortSignal | undefined, source: string): void {
  if (signal?.aborted) throw new CancelledError(`scan of ${source} cancelled`);
}

/** The batch restricted to `names`, in that order (zero-copy). */
export function projectBatch(batch: RecordBatch, names: readonly string[], where = 'batch'): RecordBatch {
  const fields: Field[] = [];
  const children: Data[] = [];
  const all = batch.schema.fields;
  let identity = names.length === all.length;
  for (let j = 0; j < names.length; j++) {
    const i = all.findIndex((f) => f.name === names[j]);
    if (i < 0) throw new MissingColumnError(names[j]!, where, all.map((f) => f.name));
    if (i !== j) identity = false;
    fields.push(all[i]!);
    children.push(batch.data.children[i]!);
  }
  if (identity) return batch;
  const schema = new Schema(fields, batch.schema.metadata);
  return new RecordBatch(schema, makeData({ type: new Struct(fields), length: batch.numRows, nullCount: 0, children }));
}

type Typed = Exclude<Data['values'], undefined>;
type TypedCtor = new (buffer: ArrayBufferLike) => Typed;

/** Gather fixed-width values (`bytesPer` bytes each) through the widest aligned word view. */
function gatherFixed(values: Typed, bytesPer: number, idx: Int32Array): Typed {
  const k = idx.length;
  const bo = values.byteOffset;
  const Ctor = values.constructor as TypedCtor;
  if (bytesPer % 4 === 0 && bo % 4 === 0) {
    const w = bytesPer >> 2;
    const src = new Uint32Array(values.buffer, bo, values.byteLength >> 2);
    const out = new Uint32Array(k * w);
    if (w === 1) for (let j = 0; j < k; j++) out[j] = src[idx[j]!]!;
    else if (w === 2) {
      for (let j = 0; j < k; j++) {
        const s = idx[j]! * 2;
        out[2 * j] = src[s]!;
        out[2 * j + 1] = src[s + 1]!;
      }
    } else {
      for (let j = 0; j < k; j++) {
        const s = idx[j]! * w;
        for (let q = 0; q < w; q++) out[j * w + q] = src[s + q]!;
      }
    }
    return new Ctor(out.buffer);
  }
  if (bytesPer % 2 === 0 && bo % 2 === 0) {
    const w = bytesPer >> 1;
    const src = new Uint16Array(values.buffer, bo, values.byteLength >> 1);
    const out = new Uint16Array(k * w);
    for (let j = 0; j < k; j++) {
      const s = idx[j]! * w;
      for (let q = 0; q < w; q++) out[j * w + q] = src[s + q]!;
    }
    return new Ctor(out.buffer);
  }
  const src = new Uint8Array(values.buffer, bo, values.byteLength);
  const out = new Uint8Array(k * bytesPer);
  for (let j = 0; j < k; j++) {
    const s = idx[j]! * bytesPer;
    for (let q = 0; q < bytesPer; q++) out[j * bytesPer + q] = src[s + q]!;
  }
  return new Ctor(out.buffer);
}

function gatherBits(bits: Uint8Array, offset: number, idx: Int32Array): Uint8Array {
  const out = new Uint8Array((idx.length + 7) >> 3);
  for (let j = 0; j < idx.length; j++) {
    const p = offset + idx[j]!;
    if ((bits[p >> 3]! >> (p & 7)) & 1) out[j >> 3]! |= 1 << (j & 7);
  }
  return out;
}

function gatherVarBytes(d: Data, idx: Int32Array): { offsets: Int32Array | BigInt64Array; data: Uint8Array } {
  const k = idx.length;
  const src = d.values as Uint8Array;
  const o = d.valueOffsets;
  const large = !(o instanceof Int32Array);
  const w = large ? new Uint32Array(o.buffer, o.byteOffset, o.byteLength >> 2) : null;
  const o32 = large ? null : (o as Int32Array);
  let total = 0;
  for (let j = 0; j < k; j++) {
    const i = idx[j]!;
    total += o32 !== null ? o32[i + 1]! - o32[i]! : w![2 * i + 2]! + w![2 * i + 3]! * 4294967296 - (w![2 * i]! + w![2 * i + 1]! * 4294967296);
  }
  const data = new Uint8Array(total);
  const outW = large ? new Uint32Array((k + 1) * 2) : null;
  const out32 = large ? null : new Int32Array(k + 1);
  let pos = 0;
  for (let j = 0; j < k; j++) {
    const i = idx[j]!;
    let s: number;
    let e: number;
    if (o32 !== null) {
      s = o32[i]!;
      e = o32[i + 1]!;
    } else {
      s = w![2 * i]! + w![2 * i + 1]! * 4294967296;
      e = w![2 * i + 2]! + w![2 * i + 3]! * 4294967296;
    }
    const len = e - s;
    if (len < 16) for (let q = 0; q < len; q++) data[pos + q] = src[s + q]!;
    else data.set(src.subarray(s, e), pos);
    pos += len;
    if (out32 !== null) out32[j + 1] = pos;
    else {
      outW![2 * j + 2] = pos >>> 0;
      outW![2 * j + 3] = Math.floor(pos / 4294967296);
    }
  }
  return { offsets: out32 ?? new BigInt64Array(outW!.buffer), data };
}

/** Gather rows `idx` (ascending or not, in range) of one column. */
export function takeData(d: Data, idx: Int32Array): Data {
  const k = idx.length;
  const type = d.type;
  if (DataType.isNull(type)) return makeData({ type, length: k, nullCount: k });
  let nullBitmap: Uint8Array | undefined;
  let nullCount = 0;
  if (d.nullCount > 0 && d.nullBitmap && d.nullBitmap.length > 0) {
    nullBitmap = gatherBits(d.nullBitmap, d.offset, idx);
    let valid = 0;
    for (let b = 0; b < nullBitmap.length; b++) {
      let x = nullBitmap[b]!;
      while (x) {
        x &= x - 1;
        valid++;
      }
    }
    nullCount = k - valid;
    if (nullCount === 0) nullBitmap = undefined;
  }
  const base = { type, length: k, nullCount, nullBitmap } as const;
  if (DataType.isBool(type)) {
    return makeData({ ...base, type, data: gatherBits(d.values as Uint8Array, d.offset, idx) });
  }
  if (DataType.isUtf8(type) || DataType.isBinary(type) || DataType.isLargeUtf8(type) || DataType.isLargeBinary(type)) {
    const { offsets, data } = gatherVarBytes(d, idx);
    return makeData({ ...base, type, valueOffsets: offsets, data } as never);
  }
  if (DataType.isDictionary(type)) {
    const v = d.values as Typed;
    return makeData({ ...base, type, data: gatherFixed(v, v.BYTES_PER_ELEMENT, idx) as never, dictionary: d.dictionary });
  }
  if (DataType.isStruct(type)) {
    return makeData({ ...base, type, children: d.children.map((c) => takeData(c, idx)) });
  }
  if ((DataType.isList(type) || DataType.isMap(type) || DataType.isLargeList(type)) && d.valueOffsets) {
    // Offsets index the (unsliced) child: gather the child rows of every selected list.
    const o = d.valueOffsets;
    const large = !(o instanceof Int32Array);
    const w = large ? new Uint32Array(o.buffer, o.byteOffset, o.byteLength >> 2) : null;
    const at = (i: number): number => (w !== null ? w[2 * i]! + w[2 * i + 1]! * 4294967296 : (o as Int32Array)[i]!);
    let total = 0;
    for (let j = 0; j < k; j++) total += at(idx[j]! + 1) - at(idx[j]!);
    const childIdx = new Int32Array(total);
    const offsets = new Int32Array(k + 1);
    let pos = 0;
    for (let j = 0; j < k; j++) {
      const e = at(idx[j]! + 1);
      for (let s = at(idx[j]!); s < e; s++) childIdx[pos++] = s;
      offsets[j + 1] = pos;
    }
    const child = takeData(d.children[0]!, childIdx);
    const valueOffsets = large ? BigInt64Array.from(offsets, (x) => BigInt(x)) : offsets;
    return makeData({ ...base, type, valueOffsets, child } as never);
  }
  if (DataType.isFixedSizeList(type)) {
    // The child of a sliced fixed-size list is sliced too: row i owns child rows [i*size, (i+1)*size).
    const size = type.listSize;
    const childIdx = new Int32Array(k * size);
    for (let j = 0; j < k; j++) for (let q = 0; q < size; q++) childIdx[j * size + q] = idx[j]! * size + q;
    return makeData({ ...base, type, child: takeData(d.children[0]!, childIdx) });
  }
  const fixed =
    DataType.isInt(type) ||
    DataType.isFloat(type) ||
    DataType.isDate(type) ||
    DataType.isTimestamp(type) ||
    DataType.isTime(type) ||
    DataType.isDuration(type) ||
    DataType.isDecimal(type) ||
    DataType.isInterval(type) ||
    DataType.isFixedSizeBinary(type);
  if (fixed && d.values) {
    const v = d.values as Typed;
    return makeData({ ...base, type, data: gatherFixed(v, v.BYTES_PER_ELEMENT * d.stride, idx) } as never);
  }
  // Cold path (unions, views, …): row-by-row through a builder.
  const vec = makeVector(d);
  const builder = makeBuilder({ type, nullValues: [null, undefined] });
  for (let j = 0; j < k; j++) builder.append(vec.get(idx[j]!));
  return builder.finish().flush();
}

/** The batch's rows `idx` (every column). */
export function takeRows(batch: RecordBatch, idx: Int32Array): RecordBatch {
  const children = batch.data.children.map((c) => takeData(c, idx));
  return new RecordBatch(
    batch.schema,
    makeData({ type: new Struct(batch.schema.fields), length: idx.length, nullCount: 0, children }),
  );
}

/** Apply the row filter and the projection; gathers only when the filter drops rows. */
export function filterAndProject(
  batch: RecordBatch,
  predicate: ScanPredicate | null,
  columns: readonly string[],
  where: string,
): RecordBatch {
  const sel = predicate ? predicate.selectRows(batch) : null;
  if (sel !== null && sel.length > batch.numRows) {
    throw new Error(`filter ${predicate!.description}: selectRows returned ${sel.length} rows of ${batch.numRows}`);
  }
  const projected = projectBatch(batch, columns, where);
  if (sel === null || sel.length === batch.numRows) return projected;
  return takeRows(projected, sel);
}

/** `columns` ∪ the predicate's columns, each checked against the schema. */
export function neededColumns(
  columns: readonly string[],
  predicate: ScanPredicate | null,
  available: readonly string[],
  where: string,
): readonly string[] {
  if (!predicate || predicate.columns.length === 0) return columns;
  let out: string[] | null = null;
  for (const c of predicate.columns) {
    if (!available.includes(c)) throw new MissingColumnError(c, where, available);
    if (!columns.includes(c) && !(out ?? []).includes(c)) (out ??= columns.slice()).push(c);
  }
  return out ?? columns;
}

// ------------------------------------------------------------------------------------------------
// MemoryScan
// ------------------------------------------------------------------------------------------------

export interface MemoryScanOptions {
  /** Override `source` (e.g. the path of the IPC file the table came from). */
  readonly source?: string;
}

export class MemoryScan implements Scan {
  readonly source: string;
  readonly schema: Schema;
  readonly numRows: number;
  readonly numContainers: number;
  readonly metrics: ScanMetrics = newScanMetrics();
  readonly #batches: readonly RecordBatch[];
  readonly #names: readonly string[];

  constructor(table: Table, name = 'table', options: MemoryScanOptions = {}) {
    this.source = options.source ?? `memory:${name}`;
    this.schema = table.schema;
    this.numRows = table.numRows;
    this.#batches = table.batches;
    this.numContainers = table.batches.length;
    this.#names = table.schema.fields.map((f) => f.name);
  }

  async *batches(options: ScanOptions = {}): AsyncGenerator<RecordBatch> {
    const { filter, signal } = options;
    const columns = options.columns ?? this.#names;
    for (const c of columns) if (!this.#names.includes(c)) throw new MissingColumnError(c, this.source, this.#names);
    const m = this.metrics;
    let t0 = performance.now();
    let inScan = true;
    try {
      for (let i = 0; i < this.#batches.length; i++) {
        throwIfAborted(signal, this.source);
        const batch = this.#batches[i]!;
        m.containersTotal++;
        const predicate = filter?.current() ?? null;
        const needed = neededColumns(columns, predicate, this.#names, this.source);
        const zm = zoneMapOf(batch, i);
        let bytes = 0;
        for (const c of needed) bytes += zm.columnBytes(c);
        if (predicate && !predicate.mayContain(zm)) {
          m.containersPruned++;
          m.bytesSkipped += bytes;
          continue;
        }
        m.rowsDecoded += batch.numRows;
        m.bytesDecoded += bytes;
        const out = filterAndProject(batch, predicate, columns, this.source);
        m.rowsAfterFilter += out.numRows;
        if (out.numRows === 0) continue;
        m.elapsedMs += performance.now() - t0;
        inScan = false;
        yield out;
        inScan = true;
        t0 = performance.now();
      }
    } finally {
      if (inScan) m.elapsedMs += performance.now() - t0;
    }
  }
}
