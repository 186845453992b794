/**
 * The rows `rows` of normalised key columns, as key columns of their own — what the partitioned
 * hash join probes each partition with, instead of cutting every column of the probe batch into
 * per-partition batches (only the keys are needed to probe; output is gathered from the original
 * batch through the same row ids).
 *
 * Fixed-width columns gather their words (and NULL bytes). A plain bytes column is copied into
 * fresh offsets + bytes (so it stays plain: layouts have fast paths for plain strings); a
 * dictionary column keeps its entries and gathers its codes. An equal key stays equal words or
 * bytes, so hashes and comparisons agree with the original rows.
 */
import type { BytesKeyColumn, FixedKeyColumn, KeyColumn } from './types.ts';
import { isBytesKey } from './types.ts';

/**
 * Buffers one caller reuses across calls (fresh arrays per probe batch cost more in first-touch page
 * faults than the copy): the columns a call returns share them and are valid until the next call
 * with the same scratch.
 */
export class KeyRowsScratch {
  #words: Int32Array[] = [];
  #nulls: Uint8Array[] = [];
  words(k: number, n: number): Int32Array {
    let w = this.#words[k];
    if (w === undefined || w.length < n) this.#words[k] = w = new Int32Array(Math.max(n, 2 * (w?.length ?? 0)));
    return w.subarray(0, n);
  }
  /** Bytes of every buffer held for reuse. */
  get bytes(): number {
    let n = 0;
    for (const w of this.#words) n += w?.byteLength ?? 0;
    for (const b of this.#nulls) n += b?.byteLength ?? 0;
    return n;
  }
  nulls(k: number, n: number): Uint8Array {
    let b = this.#nulls[k];
    if (b === undefined || b.length < n) this.#nulls[k] = b = new Uint8Array(Math.max(n, 2 * (b?.length ?? 0)));
    return b.subarray(0, n);
  }
}

export function takeKeyRows(cols: readonly KeyColumn[], rows: Int32Array, scratch?: KeyRowsScratch): KeyColumn[] {
  return cols.map((c, k) => (isBytesKey(c) ? takeBytes(c, rows) : takeFixed(c, rows, k, scratch)));
}

function takeNulls(nulls: Uint8Array | null, rows: Int32Array, out: Uint8Array = new Uint8Array(rows.length)): Uint8Array | null {
  if (nulls === null) return null;
  for (let i = 0; i < rows.length; i++) out[i] = nulls[rows[i]!]!;
  return out;
}

function takeFixed(c: FixedKeyColumn, rows: Int32Array, k: number, scratch?: KeyRowsScratch): FixedKeyColumn {
  const w = c.kind.width;
  const src = c.words;
  const n = rows.length;
  const words = scratch ? scratch.words(k, n * w) : new Int32Array(n * w);
  if (w === 2) {
    for (let i = 0; i < n; i++) {
      const r = rows[i]!;
      words[2 * i] = src[2 * r]!;
      words[2 * i + 1] = src[2 * r + 1]!;
    }
  } else if (w === 1) {
    for (let i = 0; i < n; i++) words[i] = src[rows[i]!]!;
  } else {
    for (let i = 0; i < n; i++) for (let k = 0; k < w; k++) words[i * w + k] = src[rows[i]! * w + k]!;
  }
  return { kind: c.kind, length: n, words, nulls: takeNulls(c.nulls, rows, scratch && c.nulls !== null ? scratch.nulls(k, n) : undefined) };
}

function takeBytes(c: BytesKeyColumn, rows: Int32Array): BytesKeyColumn {
  const n = rows.length;
  const nulls = takeNulls(c.nulls, rows);
  if (c.codes !== null) {
    const codes = new Int32Array(n);
    for (let i = 0; i < n; i++) codes[i] = c.codes[rows[i]!]!;
    return { kind: c.kind, length: n, offsets: c.offsets, bytes: c.bytes, codes, nulls };
  }
  const so = c.offsets;
  const sb = c.bytes;
  const offsets = new Int32Array(n + 1);
  // a NULL row's offsets may be garbage in Arrow: it contributes no bytes
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    offsets[i + 1] = offsets[i]! + (nulls !== null && nulls[i] !== 0 ? 0 : so[r + 1]! - so[r]!);
  }
  const bytes = new Uint8Array(offsets[n]!);
  for (let i = 0; i < n; i++) {
    const from = so[rows[i]!]!;
    const at = offsets[i]!;
    const len = offsets[i + 1]! - at;
    if (len > 32) bytes.set(sb.subarray(from, from + len), at);
    else for (let k = 0; k < len; k++) bytes[at + k] = sb[from + k]!;
  }
  return { kind: c.kind, length: n, offsets, bytes, codes: null, nulls };
}
