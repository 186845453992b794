/**
 * Assembling output columns from *runs* instead of row indices: a run is `len` consecutive output
 * rows that read either a contiguous range of a source column (`copyRanges`) or one source row
 * repeated (`repeatRows`). A join whose pairs come as (one row of one side) x (a range of the
 * other) — the piecewise merge join's streamed row against the suffix of its sorted buffered side,
 * a cross product — produces exactly that, and then an output column costs a block copy or a fill
 * per run instead of a located, bounds-checked, indexed read per row (the general gather,
 * gather.ts, ~5-8 ns a row and column; a run's copy is a memcpy).
 *
 * Only what such a copy is exact for: fixed-width values (ints, floats, dates, times, timestamps,
 * durations, decimals, fixed-size binary) of a column without NULLs and not dictionary-encoded —
 * `runnable` says so, and a caller falls back to the general gather for anything else. The output
 * has no validity bitmap (no NULL can come out of a column without one).
 */
import { makeData, Type, type Data } from 'apache-arrow';
import { isFixedWidth } from './type-families.ts';

const make = makeData as unknown as (props: Record<string, unknown>) => Data;

/** Whether `d` can be assembled by `copyRanges` / `repeatRows`. */
export function runnable(d: Data): boolean {
  // the fixed-width types but intervals, which this never took
  return d.nullCount === 0 && d.typeId !== Type.Interval && isFixedWidth(d.typeId);
}

/** The values of `d` as 32-bit words when each row is a whole number of aligned words, else bytes. */
function valueWords(d: Data): { readonly words: Int32Array | Uint8Array; readonly perRow: number } {
  const v = d.values as unknown as ArrayBufferView & { readonly BYTES_PER_ELEMENT: number; readonly length: number };
  const rowBytes = v.BYTES_PER_ELEMENT * d.stride;
  if (rowBytes % 4 === 0 && v.byteOffset % 4 === 0) return { words: new Int32Array(v.buffer, v.byteOffset, (v.length * v.BYTES_PER_ELEMENT) / 4), perRow: rowBytes / 4 };
  return { words: new Uint8Array(v.buffer, v.byteOffset, v.length * v.BYTES_PER_ELEMENT), perRow: rowBytes };
}

function output(words: Int32Array | Uint8Array, perRow: number, count: number): { out: Int32Array | Uint8Array; buffer: ArrayBuffer } {
  const bytes = count * perRow * words.BYTES_PER_ELEMENT;
  const buffer = new ArrayBuffer(Math.ceil(bytes / 8) * 8);
  return { out: words instanceof Int32Array ? new Int32Array(buffer) : new Uint8Array(buffer), buffer };
}

function finish(d: Data, buffer: ArrayBuffer, count: number): Data {
  const Ctor = d.type.ArrayType as unknown as { new (b: ArrayBuffer): ArrayBufferView };
  return make({ type: d.type, length: count, nullCount: 0, data: new Ctor(buffer) });
}

/** `count` rows: for each run i < `runs`, rows [starts[i], starts[i] + lens[i]) of `d`. */
export function copyRanges(d: Data, starts: Int32Array, lens: Int32Array, runs: number, count: number): Data {
  const { words, perRow } = valueWords(d);
  const { out, buffer } = output(words, perRow, count);
  let at = 0;
  for (let i = 0; i < runs; i++) {
    const a = starts[i]! * perRow;
    const n = lens[i]! * perRow;
    if (n > 16) out.set(words.subarray(a, a + n), at);
    else for (let k = 0; k < n; k++) out[at + k] = words[a + k]!;
    at += n;
  }
  if (at !== count * perRow) throw new RangeError(`runs cover ${at / perRow} rows, not ${count}`);
  return finish(d, buffer, count);
}

/** `count` rows: for each run i < `runs`, row rows[i] of `d` repeated lens[i] times. */
export function repeatRows(d: Data, rows: Int32Array, lens: Int32Array, runs: number, count: number): Data {
  const { words, perRow } = valueWords(d);
  const { out, buffer } = output(words, perRow, count);
  let at = 0;
  if (perRow === 1) {
    for (let i = 0; i < runs; i++) {
      const n = lens[i]!;
      out.fill(words[rows[i]!]!, at, at + n);
      at += n;
    }
  } else if (perRow === 2) {
    for (let i = 0; i < runs; i++) {
      const lo = words[2 * rows[i]!]!;
      const hi = words[2 * rows[i]! + 1]!;
      for (let end = at + 2 * lens[i]!; at < end; at += 2) {
        out[at] = lo;
        out[at + 1] = hi;
      }
    }
  } else {
    for (let i = 0; i < runs; i++) {
      const a = rows[i]! * perRow;
      for (let r = 0; r < lens[i]!; r++, at += perRow) for (let k = 0; k < perRow; k++) out[at + k] = words[a + k]!;
    }
  }
  if (at !== count * perRow) throw new RangeError(`runs cover ${at / perRow} rows, not ${count}`);
  return finish(d, buffer, count);
}
