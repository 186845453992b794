/**
 * The footer model: a Parquet file's FileMetaData as read once at open, checked (parquet-footer-
 * check.ts), parsed by hyparquet and walked into what reading needs — top-level fields with their
 * schema and leaf ranges, and per row group and leaf the column chunk's absolute byte range. No
 * data page is read. Degenerate files are `ThriftError`s saying what is wrong: shorter than 12
 * bytes, no PAR1 magic, an encrypted (PARE) footer, a footer length of 0 or longer than the bytes
 * before the trailer, a schema tree cut short or with elements left over, a row group whose chunk
 * count is not the leaf count, a chunk outside [4, footer start). Encrypted column chunks are
 * flagged (`encrypted`), not refused: the handle then decodes from the original bytes.
 */
import { DataType, Schema, tableFromIPC } from 'apache-arrow';
import { parquetMetadata, type FileMetaData, type SchemaElement } from 'hyparquet';
import { decodeHint, leafCount, readFixOf, type ReadFix } from './parquet-types.ts';
import { checkStruct, FILE_META_DATA } from './parquet-footer-check.ts';
import { T_LIST, T_STRUCT, tbytes, tget, ThriftError, ThriftReader, ThriftWriter, ti64, tlist, tstruct, twith, type TStruct } from './thrift.ts';

export const MAGIC = 0x31524150; // "PAR1" little-endian
const MAGIC_ENCRYPTED = 0x45524150; // "PARE"
export const utf8 = new TextDecoder('utf-8', { ignoreBOM: true }); // a leading U+FEFF is data, not a byte-order mark

/** A top-level field: its subtree in the flat schema list and its leaf (column chunk) range. */
export interface TopField {
  readonly name: string;
  readonly schemaStart: number;
  readonly schemaEnd: number;
  readonly leafStart: number;
  readonly leafEnd: number;
  /** Set when the field is one primitive leaf (the only case with usable statistics). */
  readonly leafElement: SchemaElement | undefined;
}

export interface Footer {
  readonly raw: TStruct;
  readonly meta: FileMetaData;
  readonly footerStart: number;
  readonly tops: readonly TopField[];
  readonly numLeaves: number;
  /** Per row group, per leaf: [start, length] of the chunk bytes in the file. */
  readonly chunkRanges: ReadonlyArray<Float64Array>;
  /** Per leaf: true when min_value/max_value follow the type's own order. */
  readonly typeDefinedOrder: readonly boolean[];
  readonly encrypted: boolean;
  /** Per leaf (by index): what arrow-rs does not carry on its own (parquet-types.ts). */
  readonly fixes: ReadonlyMap<number, ReadFix>;
  /** Index into the schema list of each leaf's element. */
  readonly leafElements: readonly number[];
}

export class NeedsFallback extends Error {}

/** The footer's length from the file's last 8 bytes (after checking the magic there). */
export function footerLength(last8: Uint8Array, fileSize: number): number {
  const view = new DataView(last8.buffer, last8.byteOffset, 8);
  const magic = view.getUint32(4, true);
  if (magic === MAGIC_ENCRYPTED) throw new ThriftError('encrypted footers (PARE) are not supported');
  if (magic !== MAGIC) throw new ThriftError('missing PAR1 magic at the end (truncated or not a Parquet file)');
  const metaLen = view.getUint32(0, true);
  // the footer sits between the leading magic (4 bytes) and the trailer (length + magic, 8 bytes)
  const room = fileSize - 12;
  if (metaLen > room) {
    throw new ThriftError(
      `footer length field claims ${metaLen} bytes, but only ${fileSize - 8} precede it (${room} after the leading PAR1 magic): truncated or not a Parquet file`,
    );
  }
  if (metaLen === 0) throw new ThriftError('footer length field is 0: the file has no footer');
  return metaLen;
}

/** The footer, its length and the closing magic: what follows the last column chunk. */
export function footerTail(footer: Uint8Array): Uint8Array {
  const out = new Uint8Array(footer.length + 8);
  out.set(footer);
  const dv = new DataView(out.buffer);
  dv.setUint32(footer.length, footer.length, true);
  dv.setUint32(footer.length + 4, MAGIC, true);
  return out;
}

/**
 * The footer as handed to hyparquet: the same Thrift without column statistics (and the size and
 * geospatial statistics hyparquet would parse too). We decode statistics ourselves, lazily, from
 * the raw footer, treating anything malformed as "unknown"; hyparquet parses every one of them at
 * open and throws on a bound of the wrong length.
 */
function footerForHyparquet(raw: TStruct): Uint8Array {
  const rgs = tlist(raw, 4)!;
  const rowGroups = (rgs.items as TStruct[]).map((rg) => {
    const cols = tlist(rg, 1)!;
    const items = (cols.items as TStruct[]).map((chunk) => {
      const md = tstruct(chunk, 3);
      return md ? twith(chunk, [[3, T_STRUCT, twith(md, [[12, T_STRUCT, null], [16, T_STRUCT, null], [17, T_STRUCT, null]])]]) : chunk;
    });
    return twith(rg, [[1, T_LIST, { elemType: cols.elemType, items }]]);
  });
  const w = new ThriftWriter();
  w.struct(twith(raw, [[4, T_LIST, { elemType: rgs.elemType, items: rowGroups }]]));
  return footerTail(w.bytes());
}

/**
 * Parses the footer from `tail`, the file's last bytes (at least the footer, its length and the
 * magic) of a file of `fileSize` bytes; chunk ranges are absolute file offsets.
 */
export function parseFooter(tail: Uint8Array, fileSize: number): Footer {
  const n = fileSize;
  if (n < 12) throw new ThriftError(`file is too short (${n} bytes) to be Parquet`);
  const metaLen = footerLength(tail.subarray(tail.length - 8), n);
  const footerStart = n - 8 - metaLen;
  const tailStart = n - tail.length;
  if (footerStart < tailStart) throw new ThriftError(`footer of ${metaLen} bytes is not within the bytes read`);
  const reader = new ThriftReader(tail, footerStart - tailStart, tail.length - 8);
  const raw = reader.struct();
  checkStruct(raw, FILE_META_DATA, 'FileMetaData');
  const schemaList = tlist(raw, 2)!;
  if (schemaList.items.length === 0) throw new ThriftError('footer schema is empty (not even a root element)');
  let meta: FileMetaData;
  try {
    const hy = footerForHyparquet(raw);
    meta = parquetMetadata(hy.buffer.slice(hy.byteOffset, hy.byteOffset + hy.byteLength) as ArrayBuffer, { geoparquet: false });
  } catch (e) {
    throw new ThriftError(`footer does not parse (hyparquet: ${(e as Error).message})`);
  }
  if (meta.schema.length !== schemaList.items.length) throw new ThriftError('footer schema does not parse');
  // Walk the flat (depth-first) schema list into top-level subtrees.
  const elements = meta.schema;
  const rootChildren = elements[0]!.num_children ?? 0;
  const tops: TopField[] = [];
  let idx = 1;
  let leaf = 0;
  const leafElements: number[] = [];
  const fixes = new Map<number, ReadFix>();
  const walk = (): void => {
    if (idx >= elements.length) throw new ThriftError(`schema tree is cut short: its num_children counts need more than the ${elements.length} schema elements`);
    const el = elements[idx++]!;
    const children = el.num_children ?? 0;
    if (el.type !== undefined && children === 0) {
      const fix = readFixOf(el);
      if (fix !== null) fixes.set(leaf, fix);
      leafElements.push(idx - 1);
      leaf++;
    }
    for (let c = 0; c < children; c++) walk();
  };
  for (let c = 0; c < rootChildren; c++) {
    const start = idx;
    const leafStart = leaf;
    walk();
    const el = elements[start]!;
    tops.push({
      name: el.name,
      schemaStart: start,
      schemaEnd: idx,
      leafStart,
      leafEnd: leaf,
      leafElement: idx === start + 1 && el.type !== undefined ? el : undefined,
    });
  }
  if (idx !== elements.length) throw new ThriftError(`schema lists ${elements.length - idx} elements after the root's ${rootChildren} children`);
  const numLeaves = leaf;

  const rgList = tlist(raw, 4)?.items ?? [];
  if (rgList.length !== meta.row_groups.length) throw new ThriftError('row group list does not parse');
  let encrypted = tget(raw, 8) !== undefined;
  const chunkRanges: Float64Array[] = [];
  for (let r = 0; r < rgList.length; r++) {
    const cols = tlist(rgList[r] as TStruct, 1)?.items ?? [];
    if (cols.length !== numLeaves) {
      throw new ThriftError(`row group ${r} has ${cols.length} column chunks, the schema ${numLeaves} leaf columns`);
    }
    const ranges = new Float64Array(numLeaves * 2);
    for (let c = 0; c < numLeaves; c++) {
      const chunk = cols[c] as TStruct;
      if (tget(chunk, 8) !== undefined || tget(chunk, 9) !== undefined) encrypted = true;
      const md = tstruct(chunk, 3);
      if (!md) {
        if (encrypted) continue;
        throw new ThriftError(`row group ${r} column ${c} has no metadata`);
      }
      const dataOff = ti64(md, 9) ?? -1n;
      const dictOff = ti64(md, 11);
      const start = dictOff !== undefined && dictOff > 0n && dictOff < dataOff ? dictOff : dataOff;
      const len = ti64(md, 7) ?? -1n;
      if (start < 4n || len < 0n || start + len > BigInt(footerStart)) {
        const path = (meta.row_groups[r]?.columns[c]?.meta_data?.path_in_schema ?? []).join('.');
        throw new ThriftError(
          `row group ${r} column ${c} ('${path}') claims bytes [${start}, ${start + len}), but column data must lie between the leading magic and the footer, [4, ${footerStart})`,
        );
      }
      ranges[c * 2] = Number(start);
      ranges[c * 2 + 1] = Number(len);
    }
    chunkRanges.push(ranges);
  }
  const orders = tlist(raw, 7)?.items;
  const typeDefinedOrder: boolean[] = [];
  for (let c = 0; c < numLeaves; c++) {
    const o = orders && orders.length === numLeaves ? (orders[c] as TStruct) : undefined;
    typeDefinedOrder.push(o !== undefined && tget(o, 1) !== undefined);
  }
  return { raw, meta, footerStart, tops, numLeaves, chunkRanges, typeDefinedOrder, encrypted, fixes, leafElements };
}

/** The Arrow schema stored under `ARROW:schema` (null when there is none or it does not parse). */
function arrowSchemaOf(raw: TStruct): Schema | null {
  const value = arrowSchemaValue(raw);
  if (value === undefined) return null;
  try {
    return tableFromIPC(Buffer.from(utf8.decode(value), 'base64')).schema;
  } catch {
    return null;
  }
}

function arrowSchemaValue(raw: TStruct): Uint8Array | undefined {
  for (const entry of (tlist(raw, 5)?.items ?? []) as TStruct[]) {
    const key = tbytes(entry, 1);
    if (key && utf8.decode(key) === 'ARROW:schema') return tbytes(entry, 2);
  }
  return undefined;
}

/**
 * The interval type the file's ARROW:schema names for each INTERVAL leaf (what arrow-rs wrote it
 * from; parquet-types.ts keeps YEAR_MONTH and DAY_TIME).
 */
export function intervalHints(f: Footer): Map<number, DataType> {
  const hinted = new Map<number, DataType>();
  if (![...f.fixes.values()].includes('interval')) return hinted;
  const schema = arrowSchemaOf(f.raw);
  if (schema === null || schema.fields.length !== f.tops.length) return hinted;
  schema.fields.forEach((field, t) => {
    const top = f.tops[t]!;
    if (leafCount(field.type) === top.leafEnd - top.leafStart) decodeHint(field, f.fixes, top.leafStart, hinted);
  });
  return hinted;
}
