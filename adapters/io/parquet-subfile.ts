/**
 * Sub-files: the selected column chunks of the selected row groups of a Parquet file, byte-copied
 * from the file by ranges, behind a re-encoded footer — what every decode hands to the decoder.
 *
 * Why the decoding path looks the way it does (parquet-wasm 0.8.0, built on arrow-rs 59; verified
 * by tests):
 * - the synchronous `readParquet(bytes, { columns })` ignores `columns` (it always decodes every
 *   column) and copies the *whole* input into wasm memory on every call;
 * - the asynchronous `ParquetFile.read` honours `columns`, but any decode error inside it (a
 *   corrupt page, an out-of-range row group) is a wasm panic thrown from a microtask: it cannot be
 *   caught and kills the process.
 * So we build, per decode, a small *sub-file* — the selected column chunks of the selected row
 * groups, byte-copied, plus a re-encoded footer (Thrift compact, every field keeps its wire type;
 * the embedded `ARROW:schema` is projected to the same columns so types survive) — and hand that
 * to the synchronous reader, whose panics surface as catchable `RuntimeError`s. Memory per decode
 * is therefore bounded by the bytes of what is decoded, not by the file size. If a sub-file cannot
 * be built (encrypted or multi-file Parquet, an `ARROW:schema` apache-arrow cannot parse) or fails
 * to decode, we fall back to decoding whole row groups from the original bytes (all columns) and
 * count it in `fallbackDecodes`; only if that fails too is the file reported corrupt.
 *
 * A chunk may also be copied in part (`ChunkPart`, parquet-page-select.ts chooses them from the
 * page index): its head (the dictionary page, whatever precedes the first data page) and some of
 * its data pages, with `num_values`, the sizes and the page offsets rewritten and the row group's
 * `num_rows` set to the rows of those pages — a well-formed chunk of fewer rows, which the decoder
 * reads page after page as it reads any other. Every chunk of a sub-file's row group must then
 * hold the same rows (the caller groups columns whose kept pages cover the same rows).
 */
import { Schema, Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import { type ByteRange, type FileRanges } from './file-ranges.ts';
import { MAGIC, NeedsFallback, utf8, type Footer } from './parquet-footer.ts';
import { decodeHint, leafCount } from './parquet-types.ts';
import { T_BINARY, T_I16, T_I32, T_I64, T_LIST, T_STRUCT, tbytes, tget, ThriftWriter, ti64, tlist, tstruct, twith, type TStruct, type TValue } from './thrift.ts';

/**
 * Re-encode the Arrow schema stored under `ARROW:schema`, keeping the top-level fields `keep`,
 * with INTERVAL leaves described as the raw bytes the sub-file footer makes them.
 */
function projectArrowSchemaValue(value: Uint8Array, keep: readonly number[], f: Footer): Uint8Array {
  let schema: Schema;
  try {
    schema = tableFromIPC(Buffer.from(utf8.decode(value), 'base64')).schema;
  } catch (e) {
    throw new NeedsFallback(`ARROW:schema does not parse: ${(e as Error).message}`);
  }
  if (schema.fields.length !== f.tops.length) throw new NeedsFallback('ARROW:schema does not match the Parquet schema');
  const sub = new Schema(
    keep.map((i) => {
      const field = schema.fields[i]!;
      const top = f.tops[i]!;
      return leafCount(field.type) === top.leafEnd - top.leafStart ? decodeHint(field, f.fixes, top.leafStart, new Map()) : field;
    }),
    schema.metadata,
  );
  const ipc = tableToIPC(new Table(sub), 'stream');
  const message = ipc.subarray(0, ipc.length - 8); // drop the end-of-stream marker
  return new TextEncoder().encode(Buffer.from(message).toString('base64'));
}

/** Part of a column chunk to copy instead of all of it (see the module doc). */
export interface ChunkPart {
  /** File byte ranges to copy, in order, as [offset, length] pairs: the chunk's head, then data pages. */
  readonly copies: readonly number[];
  /** Rows (= values: flat columns only) in the copied data pages. */
  readonly rows: number;
  /** Where `data_page_offset` falls in the copied bytes (the first copied data page, or a dictionary page in the head). */
  readonly dataPageAt: number;
  /** Uncompressed bytes of the copied pages (an estimate: the footer's `total_uncompressed_size` is per chunk). */
  readonly uncompressedBytes: number;
}

/**
 * A self-contained Parquet file holding only `rowGroups` (in that order) and the top-level fields
 * `keep` (indices into `footer.tops`, ascending; `null` = all); its column chunks are read from
 * `source` straight into place, in one open / close. `part(rowGroup, leaf)` may say to copy part
 * of a chunk (null: all of it).
 */
export function buildSubFile(
  source: FileRanges,
  f: Footer,
  rowGroups: readonly number[],
  keep: readonly number[] | null,
  part?: (rowGroup: number, leaf: number) => ChunkPart | null,
): Uint8Array {
  if (f.encrypted) throw new NeedsFallback('encrypted column chunks');
  const tops = keep ?? f.tops.map((_, i) => i);
  const leaves: number[] = [];
  for (const t of tops) for (let l = f.tops[t]!.leafStart; l < f.tops[t]!.leafEnd; l++) leaves.push(l);

  const schemaItems = (tlist(f.raw, 2)!.items as TStruct[]).slice();
  // INTERVAL leaves: plain FIXED_LEN_BYTE_ARRAY(12), so the decoder hands over all 12 bytes
  f.fixes.forEach((fix, leaf) => {
    if (fix === 'interval') schemaItems[f.leafElements[leaf]!] = twith(schemaItems[f.leafElements[leaf]!]!, [[6, T_I32, null], [10, T_STRUCT, null]]);
  });
  const root = twith(schemaItems[0]!, [[5, T_I32, tops.length]]);
  const newSchema: TValue[] = [root];
  for (const t of tops) for (let i = f.tops[t]!.schemaStart; i < f.tops[t]!.schemaEnd; i++) newSchema.push(schemaItems[i]!);

  const rgItems = tlist(f.raw, 4)!.items as TStruct[];
  let offset = 4;
  let numRows = 0n;
  const copies: number[] = []; // src, len, dst triples
  const newRowGroups: TValue[] = [];
  for (const r of rowGroups) {
    const rg = rgItems[r]!;
    const cols = tlist(rg, 1)!.items as TStruct[];
    const ranges = f.chunkRanges[r]!;
    const newCols: TValue[] = [];
    let totalUncompressed = 0n;
    let totalCompressed = 0n;
    let rgRows: number | null = null;
    const rgStart = offset;
    for (const l of leaves) {
      const chunk = cols[l]!;
      if (tget(chunk, 1) !== undefined) throw new NeedsFallback('column chunk in an external file');
      const md = tstruct(chunk, 3)!;
      const src = ranges[l * 2]!;
      const p = part?.(r, l) ?? null;
      const len = p === null ? ranges[l * 2 + 1]! : partLength(p);
      const delta = BigInt(offset - src);
      const dataOff = ti64(md, 9)!;
      const dictOff = ti64(md, 11);
      const hasDict = dictOff !== undefined && dictOff > 0n && dictOff < dataOff;
      const newDataOff = p === null ? dataOff + delta : BigInt(offset + p.dataPageAt);
      const pageUpdates: Array<readonly [number, number, TValue | null]> =
        p === null
          ? [[9, T_I64, newDataOff]]
          : [
              [5, T_I64, BigInt(p.rows)],
              [6, T_I64, BigInt(p.uncompressedBytes)],
              [7, T_I64, BigInt(len)],
              [9, T_I64, newDataOff],
              [16, T_STRUCT, null], // size statistics: per-chunk histograms no longer match
            ];
      if (p !== null) {
        if (rgRows !== null && rgRows !== p.rows) throw new NeedsFallback('chunk parts of one row group hold different rows');
        rgRows = p.rows;
      }
      const newMd = twith(md, [
        ...pageUpdates,
        [10, T_I64, null], // index page offset: not copied
        [11, T_I64, hasDict ? dictOff + delta : null],
        [14, T_I64, null], // bloom filter offset/length: not copied
        [15, T_I32, null],
      ]);
      totalUncompressed += p === null ? (ti64(md, 6) ?? 0n) : BigInt(p.uncompressedBytes);
      totalCompressed += BigInt(len);
      newCols.push(
        twith(chunk, [
          [2, T_I64, newDataOff],
          [3, T_STRUCT, newMd],
          [4, T_I64, null], // offset/column index: not copied
          [5, T_I32, null],
          [6, T_I64, null],
          [7, T_I32, null],
        ]),
      );
      if (p === null) copies.push(src, len, offset);
      else {
        let at = offset;
        for (let i = 0; i < p.copies.length; i += 2) {
          copies.push(p.copies[i]!, p.copies[i + 1]!, at);
          at += p.copies[i + 1]!;
        }
      }
      offset += len;
    }
    const rows = rgRows === null ? (ti64(rg, 3) ?? 0n) : BigInt(rgRows);
    numRows += rows;
    newRowGroups.push(
      twith(rg, [
        [1, T_LIST, { elemType: T_STRUCT, items: newCols }],
        [2, T_I64, totalUncompressed],
        [3, T_I64, rows],
        [4, T_LIST, null], // sorting columns refer to the old column indices
        [5, T_I64, BigInt(rgStart)],
        [6, T_I64, totalCompressed],
        [7, T_I16, null],
      ]),
    );
  }

  const updates: Array<readonly [number, number, TValue | null]> = [
    [2, T_LIST, { elemType: T_STRUCT, items: newSchema }],
    [3, T_I64, numRows],
    [4, T_LIST, { elemType: T_STRUCT, items: newRowGroups }],
  ];
  const orders = tlist(f.raw, 7);
  if (orders && orders.items.length === f.numLeaves) {
    updates.push([7, T_LIST, { elemType: orders.elemType, items: leaves.map((l) => orders.items[l]!) }]);
  }
  const kv = tlist(f.raw, 5);
  const intervals = leaves.some((l) => f.fixes.get(l) === 'interval');
  if (kv && ((keep !== null && keep.length !== f.tops.length) || intervals)) {
    const items = (kv.items as TStruct[]).map((entry) => {
      const key = tbytes(entry, 1);
      const value = tbytes(entry, 2);
      if (key && value && utf8.decode(key) === 'ARROW:schema') {
        return twith(entry, [[2, T_BINARY, projectArrowSchemaValue(value, tops, f)]]);
      }
      return entry;
    });
    updates.push([5, T_LIST, { elemType: kv.elemType, items }]);
  }
  const w = new ThriftWriter();
  w.struct(twith(f.raw, updates));
  const footer = w.bytes();

  const out = new Uint8Array(offset + footer.length + 8);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, MAGIC, true);
  const ranges: ByteRange[] = [];
  for (let i = 0; i < copies.length; i += 3) ranges.push({ offset: copies[i]!, length: copies[i + 1]!, at: copies[i + 2]! });
  if (ranges.length > 0) source.readRanges(out, ranges);
  out.set(footer, offset);
  dv.setUint32(offset + footer.length, footer.length, true);
  dv.setUint32(offset + footer.length + 4, MAGIC, true);
  return out;
}

function partLength(p: ChunkPart): number {
  let n = 0;
  for (let i = 1; i < p.copies.length; i += 2) n += p.copies[i]!;
  return n;
}
