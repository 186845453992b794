/**
 * Checks of Arrow IPC bytes before and after apache-arrow decodes them (used by ipc.ts; the module
 * doc there says why reading needs them).
 *
 * 1. Flatbuffer bounds (`checkFlatbuffer`). apache-arrow's generated flatbuffer accessors do not
 *    bounds-check: a corrupt vector length makes the decoder loop over billions of "fields" or
 *    "nodes" until the process runs out of memory, and a corrupt offset reads other bytes as a
 *    table. So before `Message.decode` / `Footer.decode` see metadata, we walk the tables they
 *    will read (Message, Schema, Field and its type, DictionaryEncoding, RecordBatch,
 *    DictionaryBatch, Footer, KeyValue) and check that every table, vtable, string and vector
 *    (length x element size) lies inside the metadata. Fields we do not know are not read, so they
 *    are not checked — apache-arrow does not read them either.
 * 2. Framing (`framingProblem`): magic, footer, message prefixes, body lengths, buffer regions.
 * 3. Decoded data against its buffers (`dataProblem`): one typed-array pass per column.
 */
import { Data, DataType, Message, MessageHeader, MetadataVersion, Type, UnionMode, type Schema } from 'apache-arrow';
import { isFixedWidth, isOffsetBytes } from '../../core/arrow/type-families.ts';
import { Footer } from 'apache-arrow/ipc/metadata/file';

/** A problem found in the bytes; the caller turns it into a CorruptFileError. */
export class IpcError extends Error {}

// ---------------------------------------------------------------------------------------------
// Flatbuffer bounds
// ---------------------------------------------------------------------------------------------

const MAX_DEPTH = 64;
/** flatbuffers' Type union (Schema.fbs): the members whose tables hold vectors or sub-tables. */
const FB_TYPE_UNION = 14;
/** The last member of the Type union apache-arrow 21 knows (LargeListView). */
const FB_TYPE_LAST = 26;

class Fb {
  readonly dv: DataView;
  constructor(
    readonly b: Uint8Array,
    readonly what: string,
  ) {
    this.dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  fail(msg: string): never {
    throw new IpcError(`${this.what}: ${msg}`);
  }
  need(at: number, n: number, what: string): void {
    if (!(at >= 0 && at + n <= this.b.length)) this.fail(`${what} at metadata byte ${at} runs past its ${this.b.length} bytes`);
  }
  u32(at: number, what: string): number {
    this.need(at, 4, what);
    return this.dv.getUint32(at, true);
  }
  /** Follows the uoffset stored at `at`. */
  ref(at: number, what: string): number {
    return at + this.u32(at, what);
  }
  /** Absolute positions of the fields of the table at `t` (0 = absent), checking its vtable. */
  table(t: number, what: string): (i: number, size: number) => number {
    this.need(t, 4, what);
    const vt = t - this.dv.getInt32(t, true);
    this.need(vt, 4, `${what} vtable`);
    const vtSize = this.dv.getUint16(vt, true);
    const tableSize = this.dv.getUint16(vt + 2, true);
    if (vtSize < 4 || vtSize % 2 !== 0) this.fail(`${what} has a vtable of ${vtSize} bytes`);
    this.need(vt, vtSize, `${what} vtable`);
    this.need(t, tableSize, what);
    return (i, size) => {
      if (4 + 2 * i >= vtSize) return 0;
      const off = this.dv.getUint16(vt + 4 + 2 * i, true);
      if (off === 0) return 0;
      if (off + size > tableSize) this.fail(`${what} field ${i} lies outside its table`);
      return t + off;
    };
  }
  /** [start, length] of the vector whose uoffset is at `at`, checking length x elemSize. */
  vector(at: number, elemSize: number, what: string): [number, number] {
    const v = this.ref(at, what);
    const n = this.u32(v, what);
    if (n * elemSize > this.b.length - v - 4) this.fail(`${what}: ${n} entries of ${elemSize} bytes do not fit in the metadata`);
    return [v + 4, n];
  }
  /** Each table of a vector of tables at `at`. */
  tables(at: number, what: string, each: (t: number, i: number) => void): void {
    const [start, n] = this.vector(at, 4, what);
    for (let i = 0; i < n; i++) each(this.ref(start + 4 * i, `${what}[${i}]`), i);
  }
}

function checkKeyValues(fb: Fb, at: number, what: string): void {
  if (at === 0) return;
  fb.tables(at, what, (t, i) => {
    const f = fb.table(t, `${what}[${i}]`);
    const k = f(0, 4);
    const v = f(1, 4);
    if (k) fb.vector(k, 1, `${what}[${i}].key`);
    if (v) fb.vector(v, 1, `${what}[${i}].value`);
  });
}

function checkField(fb: Fb, t: number, what: string, depth: number): void {
  if (depth > MAX_DEPTH) fb.fail(`${what}: fields nested more than ${MAX_DEPTH} deep`);
  const f = fb.table(t, what);
  const name = f(0, 4);
  if (name) fb.vector(name, 1, `${what}.name`);
  const typeType = f(2, 1);
  const type = f(3, 4);
  const tt0 = typeType ? fb.b[typeType]! : 0;
  if (tt0 === 0 || tt0 > FB_TYPE_LAST || !type) fb.fail(`${what} has ${tt0 === 0 || !type ? 'no type' : `unknown type id ${tt0}`}`);
  if (type) {
    const tt = fb.table(fb.ref(type, `${what}.type`), `${what}.type`);
    if (typeType && fb.b[typeType] === FB_TYPE_UNION) {
      const ids = tt(1, 4);
      if (ids) fb.vector(ids, 4, `${what}.type.typeIds`);
    }
  }
  const dict = f(4, 4);
  if (dict) {
    const d = fb.table(fb.ref(dict, `${what}.dictionary`), `${what}.dictionary`);
    const indexType = d(1, 4);
    if (!indexType) fb.fail(`${what}.dictionary has no index type`);
    fb.table(fb.ref(indexType, `${what}.dictionary.indexType`), `${what}.dictionary.indexType`);
  }
  const children = f(5, 4);
  if (children) fb.tables(children, `${what}.children`, (c, i) => checkField(fb, c, `${what}.children[${i}]`, depth + 1));
  checkKeyValues(fb, f(6, 4), `${what}.custom_metadata`);
}

function checkSchema(fb: Fb, t: number, what: string): void {
  const s = fb.table(t, what);
  const fields = s(1, 4);
  if (fields) fb.tables(fields, `${what}.fields`, (c, i) => checkField(fb, c, `${what}.fields[${i}]`, 0));
  checkKeyValues(fb, s(2, 4), `${what}.custom_metadata`);
  const features = s(3, 4);
  if (features) fb.vector(features, 8, `${what}.features`);
}

function checkRecordBatch(fb: Fb, t: number, what: string): void {
  const r = fb.table(t, what);
  const nodes = r(1, 4);
  if (nodes) fb.vector(nodes, 16, `${what}.nodes`);
  const buffers = r(2, 4);
  if (buffers) fb.vector(buffers, 16, `${what}.buffers`);
  const compression = r(3, 4);
  if (compression) fb.table(fb.ref(compression, `${what}.compression`), `${what}.compression`);
  const variadic = r(4, 4);
  if (variadic) fb.vector(variadic, 8, `${what}.variadicBufferCounts`);
}

/** Bounds of a Message flatbuffer (`kind` = its header type) or, with `kind` 'footer', a Footer. */
export function checkFlatbuffer(b: Uint8Array, kind: 'message' | 'footer', what: string): void {
  const fb = new Fb(b, what);
  const root = fb.ref(0, 'root');
  const m = fb.table(root, kind);
  if (kind === 'footer') {
    const schema = m(1, 4);
    if (!schema) fb.fail('footer without a schema');
    checkSchema(fb, fb.ref(schema, 'schema'), 'schema');
    const dicts = m(2, 4);
    if (dicts) fb.vector(dicts, 24, 'dictionaries');
    const batches = m(3, 4);
    if (batches) fb.vector(batches, 24, 'recordBatches');
    checkKeyValues(fb, m(4, 4), 'custom_metadata');
    return;
  }
  const headerType = m(1, 1);
  const header = m(2, 4);
  if (headerType && header) {
    const h = fb.ref(header, 'header');
    const ht = b[headerType]!;
    if (ht === MessageHeader.Schema) checkSchema(fb, h, 'schema');
    else if (ht === MessageHeader.RecordBatch) checkRecordBatch(fb, h, 'record batch');
    else if (ht === MessageHeader.DictionaryBatch) {
      const d = fb.table(h, 'dictionary batch');
      const data = d(1, 4);
      if (data) checkRecordBatch(fb, fb.ref(data, 'dictionary batch data'), 'dictionary batch data');
    }
  }
  checkKeyValues(fb, m(4, 4), 'custom_metadata');
}

// ---------------------------------------------------------------------------------------------
// Framing
// ---------------------------------------------------------------------------------------------

const FILE_MAGIC = [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31]; // "ARROW1"
/** "ARROW1" + 2 bytes of padding at the start; footer length + "ARROW1" at the end. */
const FILE_HEAD = 8;
const FILE_TAIL = 10;
const CONTINUATION = -1; // 0xFFFFFFFF as int32
const COMPRESSION_NAMES = ['LZ4_FRAME', 'ZSTD'];
/** Arrow JS indexes rows with 32-bit ints. */
const MAX_ROWS = 0x7fffffff;

export function hasFileMagic(b: Uint8Array, at = 0): boolean {
  return at >= 0 && at + 6 <= b.length && FILE_MAGIC.every((x, i) => b[at + i] === x);
}

function int32(b: Uint8Array, at: number): number {
  return new DataView(b.buffer, b.byteOffset + at, 4).getInt32(0, true);
}

function messageKind(t: number): string {
  return t === MessageHeader.Schema ? 'schema' : t === MessageHeader.RecordBatch ? 'record batch' : t === MessageHeader.DictionaryBatch ? 'dictionary batch' : `type ${t}`;
}

interface FramedMessage {
  readonly msg: Message;
  readonly kind: number;
  readonly bodyStart: number;
  readonly bodyLength: number;
  /** Where the next message starts (after the body). */
  readonly end: number;
}

/**
 * The message whose prefix starts at `at`; `null` at an end-of-stream marker. Its metadata must
 * end by `metaEnd` and its body, which starts at `bodyAt` (default: right after the metadata, as
 * in a stream; a file block says where), by `limit`. `what` names it in errors ("message 3").
 */
function readMessage(b: Uint8Array, at: number, limit: number, what: string, metaEnd = limit, bodyAt?: number): FramedMessage | null {
  if (at + 4 > limit) throw new IpcError(`${what} at byte ${at}: its length prefix is cut off (${limit - at} of at least 4 bytes)`);
  let len = int32(b, at);
  let prefix = 4;
  if (len === CONTINUATION) {
    if (at + 8 > limit) throw new IpcError(`${what} at byte ${at}: its length prefix is cut off (${limit - at} of 8 bytes)`);
    len = int32(b, at + 4);
    prefix = 8;
  }
  if (len === 0) return null;
  if (len < 0) throw new IpcError(`${what} at byte ${at}: negative metadata length ${len}`);
  const metaStart = at + prefix;
  if (metaStart + len > metaEnd) {
    throw new IpcError(`${what} at byte ${at}: metadata claims ${len} bytes but only ${Math.max(0, metaEnd - metaStart)} follow`);
  }
  const meta = b.subarray(metaStart, metaStart + len);
  checkFlatbuffer(meta, 'message', `${what} at byte ${at}`);
  let msg: Message;
  try {
    msg = Message.decode(meta);
  } catch (e) {
    throw new IpcError(`${what} at byte ${at}: metadata does not decode (${(e as Error).message})`);
  }
  const kind = msg.headerType as number;
  if (kind !== MessageHeader.Schema && kind !== MessageHeader.RecordBatch && kind !== MessageHeader.DictionaryBatch) {
    throw new IpcError(`${what} at byte ${at}: unexpected message ${messageKind(kind)}`);
  }
  const bodyLength = Number(msg.bodyLength);
  const bodyStart = bodyAt ?? metaStart + len;
  if (!Number.isSafeInteger(bodyLength) || bodyLength < 0) throw new IpcError(`${what} at byte ${at}: invalid body length ${String(msg.bodyLength)}`);
  if (bodyStart + bodyLength > limit) {
    throw new IpcError(`${what} at byte ${at}: body claims ${bodyLength} bytes but only ${Math.max(0, limit - bodyStart)} follow`);
  }
  return { msg, kind, bodyStart, bodyLength, end: bodyStart + bodyLength };
}

function decodeSchema(m: FramedMessage, what: string): Schema {
  let schema: Schema | null;
  try {
    schema = m.msg.header() as Schema | null;
  } catch (e) {
    throw new IpcError(`${what}: schema does not decode (${(e as Error).message})`);
  }
  if (schema === null) throw new IpcError(`${what}: schema message without a schema`);
  checkSchemaTypes(schema, what);
  return schema;
}

/** Every (nested) type of `schema` is one apache-arrow can use: the children it needs, a known width. */
function checkSchemaTypes(schema: Schema, what: string): void {
  const check = (t: DataType, name: string, depth: number): void => {
    const bad = (why: string): never => {
      throw new IpcError(`${what}: field '${name}' has an invalid type (${why})`);
    };
    if (depth > MAX_DEPTH) bad(`nested more than ${MAX_DEPTH} deep`);
    try {
      void (t as DataType & { ArrayType?: unknown }).ArrayType; // throws for an unknown Int/Float width
    } catch (e) {
      bad((e as Error).message);
    }
    const kids = t.children ?? [];
    switch (t.typeId) {
      case Type.List:
      case Type.LargeList:
      case Type.FixedSizeList:
        if (kids.length !== 1) bad(`a list with ${kids.length} children`);
        break;
      case Type.Map:
        if (kids.length !== 1 || kids[0]!.type.typeId !== Type.Struct || kids[0]!.type.children.length !== 2) bad('a map whose entries are not a struct of key and value');
        break;
      case Type.Union:
        if ((t as DataType & { typeIds: number[] }).typeIds.length !== kids.length) bad('a union whose type ids and children differ in number');
        break;
      case Type.Dictionary:
        check((t as DataType & { dictionary: DataType }).dictionary, name, depth + 1);
        check((t as DataType & { indices: DataType }).indices, name, depth + 1);
        break;
    }
    for (const c of kids) check(c.type, `${name}.${c.name}`, depth + 1);
  };
  for (const f of schema.fields) check(f.type, f.name, 0);
}

interface BatchHeader {
  length: number;
  nodes: { length: number; nullCount: number }[];
  buffers: { offset: number; length: number }[];
  compression: { type: number } | null;
  variadicBufferCounts: number[];
}

/**
 * What apache-arrow's VectorLoader will take from a batch for `types`, in its order: one node per
 * type visited, and per buffer the byte alignment its typed array needs (1 for validity bitmaps,
 * which are read as bytes). Mirrors visitor/vectorloader.mjs.
 */
function plan(types: readonly DataType[], version: number, variadicCounts: readonly number[]): { nodes: number; tops: number[]; buffers: number[]; names: string[] } {
  let nodes = 0;
  const tops: number[] = [];
  let variadic = 0;
  const buffers: number[] = [];
  const names: string[] = [];
  const buf = (align: number, name: string) => {
    buffers.push(align);
    names.push(name);
  };
  const visit = (t: DataType, path: string): void => {
    nodes++;
    switch (t.typeId) {
      case Type.Null:
        return;
      case Type.Utf8:
      case Type.Binary:
      case Type.LargeUtf8:
      case Type.LargeBinary: {
        const large = t.typeId === Type.LargeUtf8 || t.typeId === Type.LargeBinary;
        buf(1, `validity of ${path}`);
        buf(large ? 8 : 4, `offsets of ${path}`);
        buf(1, `data of ${path}`);
        return;
      }
      case Type.Utf8View:
      case Type.BinaryView: {
        buf(1, `validity of ${path}`);
        buf(1, `views of ${path}`);
        const n = variadicCounts[variadic++] ?? 0;
        for (let i = 0; i < n; i++) buf(1, `data buffer ${i} of ${path}`);
        return;
      }
      case Type.List:
      case Type.LargeList:
      case Type.Map:
        buf(1, `validity of ${path}`);
        buf(t.typeId === Type.LargeList ? 8 : 4, `offsets of ${path}`);
        visit(t.children[0]!.type, `${path}.${t.children[0]!.name}`);
        return;
      case Type.FixedSizeList:
      case Type.Struct:
        buf(1, `validity of ${path}`);
        for (const c of t.children) visit(c.type, `${path}.${c.name}`);
        return;
      case Type.Union: {
        if (version < MetadataVersion.V5) buf(1, `validity of ${path}`);
        buf(1, `type ids of ${path}`);
        if ((t as DataType & { mode: number }).mode === UnionMode.Dense) buf(4, `offsets of ${path}`);
        for (const c of t.children) visit(c.type, `${path}.${c.name}`);
        return;
      }
      case Type.Dictionary:
        buf(1, `validity of ${path}`);
        buf((t as DataType & { indices: DataType }).indices.ArrayType.BYTES_PER_ELEMENT, `codes of ${path}`);
        return;
      default: {
        buf(1, `validity of ${path}`);
        const A = (t as DataType & { ArrayType?: { BYTES_PER_ELEMENT: number } }).ArrayType;
        buf(t.typeId === Type.Bool ? 1 : (A?.BYTES_PER_ELEMENT ?? 1), `values of ${path}`);
      }
    }
  };
  for (const [i, t] of types.entries()) {
    tops.push(nodes);
    visit(t, `column ${i}`);
  }
  return { nodes, tops, buffers, names };
}

/** Counts, buffer regions and their alignment of a record or dictionary batch against `types`. */
function checkBatch(m: FramedMessage, types: readonly DataType[], version: number, what: string): BatchHeader {
  let header: BatchHeader;
  try {
    const h = m.msg.header() as unknown as (BatchHeader & { data: BatchHeader | null }) | null;
    if (h === null || (m.kind === MessageHeader.DictionaryBatch && h.data === null)) throw new Error('no header');
    header = m.kind === MessageHeader.DictionaryBatch ? h.data! : h;
  } catch (e) {
    throw new IpcError(`${what}: batch header does not decode (${(e as Error).message})`);
  }
  if (!(header.length >= 0 && header.length <= MAX_ROWS)) throw new IpcError(`${what}: invalid row count ${header.length}`);
  if (header.compression != null) {
    const name = COMPRESSION_NAMES[header.compression.type] ?? `codec ${header.compression.type}`;
    throw new IpcError(`${what}: buffers are ${name}-compressed, which apache-arrow cannot decode (write the file uncompressed)`);
  }
  header.nodes.forEach((n, i) => {
    if (!(n.length >= 0 && n.length <= MAX_ROWS && n.nullCount >= 0 && n.nullCount <= n.length)) {
      throw new IpcError(`${what}: field node ${i} has length ${n.length} and null count ${n.nullCount}`);
    }
  });
  const need = plan(types, version, header.variadicBufferCounts ?? []);
  if (header.nodes.length < need.nodes) throw new IpcError(`${what}: ${header.nodes.length} field nodes, the schema needs ${need.nodes}`);
  if (header.buffers.length < need.buffers.length) throw new IpcError(`${what}: ${header.buffers.length} buffers, the schema needs ${need.buffers.length}`);
  need.tops.forEach((node, c) => {
    if (header.nodes[node]!.length !== header.length) {
      throw new IpcError(`${what}: column ${c} has ${header.nodes[node]!.length} rows, the batch ${header.length}`);
    }
  });
  header.buffers.forEach((r, i) => {
    if (!(r.offset >= 0 && r.length >= 0 && r.offset + r.length <= m.bodyLength)) {
      throw new IpcError(`${what}: buffer ${i}${i < need.names.length ? ` (${need.names[i]})` : ''} [${r.offset}, +${r.length}) lies outside the ${m.bodyLength}-byte body`);
    }
    const align = need.buffers[i] ?? 1;
    if ((m.bodyStart + r.offset) % align !== 0) {
      throw new IpcError(`${what}: buffer ${i} (${need.names[i]}) at byte ${m.bodyStart + r.offset} is not aligned to ${align} bytes`);
    }
  });
  return header;
}

/** Tracks dictionaries: a record batch may only use ids a dictionary batch has defined. */
class Dictionaries {
  readonly #seen = new Set<number>();
  constructor(readonly schema: Schema) {}
  dictionary(m: FramedMessage, what: string): void {
    let h: { id: number; isDelta: boolean } | null;
    try {
      h = m.msg.header() as unknown as { id: number; isDelta: boolean } | null;
    } catch (e) {
      throw new IpcError(`${what}: dictionary batch header does not decode (${(e as Error).message})`);
    }
    if (h === null) throw new IpcError(`${what}: dictionary batch without a header`);
    const type = this.schema.dictionaries.get(h.id);
    if (type === undefined) throw new IpcError(`${what}: dictionary id ${h.id} is not used by any field of the schema`);
    if (h.isDelta && !this.#seen.has(h.id)) throw new IpcError(`${what}: a delta for dictionary ${h.id} before its first batch`);
    checkBatch(m, [type], this.schema.metadataVersion, what);
    this.#seen.add(h.id);
  }
  records(m: FramedMessage, what: string): void {
    for (const id of this.schema.dictionaries.keys()) {
      if (!this.#seen.has(id)) throw new IpcError(`${what}: uses dictionary ${id} before any dictionary batch defines it`);
    }
    checkBatch(
      m,
      this.schema.fields.map((f) => f.type),
      this.schema.metadataVersion,
      what,
    );
  }
}

function checkStream(b: Uint8Array): void {
  let at = 0;
  let dicts: Dictionaries | null = null;
  for (let n = 0; ; n++) {
    if (at === b.length) {
      throw new IpcError(`stream ends after ${n} message${n === 1 ? '' : 's'} (byte ${at}) without the end-of-stream marker: truncated`);
    }
    const what = `message ${n} at byte ${at}`;
    const m = readMessage(b, at, b.length, `message ${n}`);
    if (m === null) {
      if (n === 0) throw new IpcError('stream holds no schema message');
      return; // bytes after the end-of-stream marker are not part of this stream
    }
    if (dicts === null) {
      if (m.kind !== MessageHeader.Schema) throw new IpcError(`the first message is a ${messageKind(m.kind)}, not the schema`);
      dicts = new Dictionaries(decodeSchema(m, what));
    } else if (m.kind === MessageHeader.Schema) throw new IpcError(`${what} is a second schema`);
    else if (m.kind === MessageHeader.DictionaryBatch) dicts.dictionary(m, `${what} (dictionary batch)`);
    else dicts.records(m, `${what} (record batch)`);
    at = m.end;
  }
}

function checkFile(b: Uint8Array): void {
  if (b.length < FILE_HEAD + FILE_TAIL) throw new IpcError(`file is too short (${b.length} bytes) for the Arrow IPC file format (at least ${FILE_HEAD + FILE_TAIL})`);
  if (!hasFileMagic(b, b.length - 6)) throw new IpcError('the ARROW1 magic at the end is missing: truncated, or not a complete Arrow IPC file');
  const footerLength = int32(b, b.length - FILE_TAIL);
  const room = b.length - FILE_TAIL - FILE_HEAD;
  if (footerLength <= 0 || footerLength > room) {
    throw new IpcError(`footer length field claims ${footerLength} bytes, but only ${room} lie between the leading magic and the footer length`);
  }
  const footerStart = b.length - FILE_TAIL - footerLength;
  const footerBytes = b.subarray(footerStart, footerStart + footerLength);
  checkFlatbuffer(footerBytes, 'footer', `footer at byte ${footerStart}`);
  type Block = { offset: number; metaDataLength: number; bodyLength: number };
  let footer: Footer;
  let blocks: { blk: Block; what: string; kind: number }[];
  try {
    footer = Footer.decode(footerBytes);
    blocks = [
      ...[...footer.dictionaryBatches()].map((blk, i) => ({ blk, what: `dictionary batch ${i}`, kind: MessageHeader.DictionaryBatch as number })),
      ...[...footer.recordBatches()].map((blk, i) => ({ blk, what: `record batch ${i}`, kind: MessageHeader.RecordBatch as number })),
    ];
  } catch (e) {
    throw new IpcError(`footer at byte ${footerStart} does not decode (${(e as Error).message})`);
  }
  checkSchemaTypes(footer.schema, `footer at byte ${footerStart}`);
  const dicts = new Dictionaries(footer.schema);
  for (const { blk, what, kind } of blocks) {
    const { offset, metaDataLength, bodyLength } = blk;
    const end = offset + metaDataLength + bodyLength;
    if (!(Number.isSafeInteger(end) && offset >= FILE_HEAD && metaDataLength > 0 && bodyLength >= 0 && end <= footerStart)) {
      throw new IpcError(`footer lists ${what} at bytes [${offset}, ${end}), outside the data region [${FILE_HEAD}, ${footerStart})`);
    }
    const m = readMessage(b, offset, end, what, offset + metaDataLength, offset + metaDataLength);
    if (m === null || m.kind !== kind) {
      throw new IpcError(`${what} at byte ${offset}: the footer says ${messageKind(kind)}, the message is ${m === null ? 'an end-of-stream marker' : messageKind(m.kind)}`);
    }
    if (m.bodyLength !== bodyLength) throw new IpcError(`${what} at byte ${offset}: body of ${m.bodyLength} bytes, the footer says ${bodyLength}`);
    if (kind === MessageHeader.DictionaryBatch) dicts.dictionary(m, `${what} at byte ${offset}`);
    else dicts.records(m, `${what} at byte ${offset}`);
  }
}

/** What is wrong with the framing of `b` (null: it looks like complete IPC). */
export function framingProblem(b: Uint8Array): string | null {
  if (b.length < 8) return `too short (${b.length} bytes) to be Arrow IPC`;
  try {
    if (hasFileMagic(b)) checkFile(b);
    else if (b[0] === 0x50 && b[1] === 0x41 && b[2] === 0x52 && b[3] === 0x31) return 'this is a Parquet file (PAR1 magic), not Arrow IPC';
    else {
      const first = int32(b, 0);
      if (first !== CONTINUATION && first <= 0) return 'not an Arrow IPC file or stream (no ARROW1 magic, no message length prefix)';
      checkStream(b);
    }
  } catch (e) {
    if (e instanceof IpcError) return e.message;
    // anything else came out of apache-arrow's metadata decoding of these bytes
    return `metadata does not decode (${(e as Error).message})`;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Decoded data against its buffers
// ---------------------------------------------------------------------------------------------

function bitsOk(bits: Uint8Array | null | undefined, offset: number, length: number): boolean {
  return !bits || bits.length === 0 || bits.length * 8 >= offset + length;
}

/** Offsets [0, length] rise and stay within `limit`; returns a problem or null. */
function offsetsProblem(o: ArrayLike<number | bigint> | undefined, length: number, limit: number): string | null {
  // a 0-row array may omit its offsets (apache-arrow writes an empty buffer for an empty batch)
  if (length === 0 && (!o || o.length === 0)) return null;
  if (!o || o.length < length + 1) return `${length} rows need ${length + 1} offsets, the buffer has ${o?.length ?? 0}`;
  let prev = Number(o[0]!);
  if (prev < 0) return `offset 0 is negative (${prev})`;
  for (let i = 1; i <= length; i++) {
    const v = Number(o[i]!);
    if (v < prev) return `offsets fall at row ${i - 1} (${prev} -> ${v})`;
    prev = v;
  }
  if (prev > limit) return `offsets reach ${prev}, past the ${limit} values`;
  return null;
}

function childProblem(child: Data, c: number): string | null {
  const p = dataProblem(child);
  return p === null ? null : `child ${c}: ${p}`;
}

/** What is wrong with `d` against its own buffers, or null. Recursive over children. */
export function dataProblem(d: Data): string | null {
  const t = d.type;
  const n = d.length;
  if (!(n >= 0)) return `invalid length ${n}`;
  if (t.typeId === Type.Null) return null;
  if (!bitsOk(d.nullBitmap, d.offset, n)) {
    return `${n} rows at offset ${d.offset} need ${Math.ceil((d.offset + n) / 8)} validity bytes, the buffer has ${d.nullBitmap!.length}`;
  }
  const values = d.values as ArrayLike<number> | undefined;
  if (isFixedWidth(t.typeId)) {
    const need = n * d.stride;
    return values && values.length >= need ? null : `${n} rows need ${need} values, the buffer has ${values?.length ?? 0}`;
  }
  if (isOffsetBytes(t.typeId)) return offsetsProblem(d.valueOffsets as ArrayLike<number | bigint>, n, values?.length ?? 0);
  switch (t.typeId) {
    case Type.Bool:
      return values && bitsOk(values as Uint8Array, d.offset, n) ? null : `${n} booleans need ${Math.ceil((d.offset + n) / 8)} bytes, the buffer has ${values?.length ?? 0}`;
    case Type.Utf8View:
    case Type.BinaryView: {
      const views = d.values as Uint8Array | undefined;
      if (!views || views.length < 16 * n) return `${n} rows need ${16 * n} view bytes, the buffer has ${views?.length ?? 0}`;
      const w = new DataView(views.buffer, views.byteOffset, views.byteLength);
      const bufs = d.variadicBuffers;
      for (let i = 0; i < n; i++) {
        const size = w.getInt32(16 * i, true);
        if (size < 0) return `view ${i} has negative size ${size}`;
        if (size <= 12) continue;
        const idx = w.getInt32(16 * i + 8, true);
        const off = w.getInt32(16 * i + 12, true);
        if (idx < 0 || idx >= bufs.length || off < 0 || off + size > bufs[idx]!.length) return `view ${i} points outside its data buffers`;
      }
      return null;
    }
    case Type.List:
    case Type.LargeList:
    case Type.Map: {
      const child = d.children[0];
      if (!child) return 'list without a child';
      return offsetsProblem(d.valueOffsets as ArrayLike<number | bigint>, n, child.length) ?? childProblem(child, 0);
    }
    case Type.FixedSizeList: {
      const child = d.children[0];
      const size = (t as DataType & { listSize: number }).listSize;
      if (!child || child.length < n * size) return `${n} lists of ${size} need ${n * size} child values, the child has ${child?.length ?? 0}`;
      return childProblem(child, 0);
    }
    case Type.Struct: {
      for (let c = 0; c < d.children.length; c++) {
        if (d.children[c]!.length < n) return `field ${c} has ${d.children[c]!.length} rows, the struct ${n}`;
        const p = childProblem(d.children[c]!, c);
        if (p) return p;
      }
      return null;
    }
    case Type.Union: {
      const ids = d.typeIds as Int8Array | undefined;
      if (!ids || ids.length < n) return `${n} rows need ${n} type ids, the buffer has ${ids?.length ?? 0}`;
      const typeIds = (t as DataType & { typeIds: number[] }).typeIds;
      const member = new Int32Array(128).fill(-1);
      typeIds.forEach((id, c) => (member[id & 127] = c));
      const offsets = d.valueOffsets as Int32Array | undefined;
      if (offsets && offsets.length < n) return `${n} rows need ${n} union offsets, the buffer has ${offsets.length}`;
      for (let i = 0; i < n; i++) {
        const c = ids[i]! >= 0 ? member[ids[i]!]! : -1;
        if (c < 0 || !d.children[c]) return `row ${i} has unknown type id ${ids[i]}`;
        const at = offsets ? offsets[i]! : i;
        if (at < 0 || at >= d.children[c]!.length) return `row ${i} points at row ${at} of union member ${c}, which has ${d.children[c]!.length}`;
      }
      for (let c = 0; c < d.children.length; c++) {
        const p = childProblem(d.children[c]!, c);
        if (p) return p;
      }
      return null;
    }
    case Type.Dictionary: {
      const dict = d.dictionary;
      if (!dict) return 'dictionary column without a dictionary';
      const codes = d.values as ArrayLike<number | bigint> | undefined;
      if (!codes || codes.length < n) return `${n} rows need ${n} dictionary codes, the buffer has ${codes?.length ?? 0}`;
      const size = dict.length;
      const bits = d.nullCount > 0 ? d.nullBitmap : null;
      for (let i = 0; i < n; i++) {
        if (bits && bits.length > 0 && ((bits[(d.offset + i) >> 3]! >> ((d.offset + i) & 7)) & 1) === 0) continue;
        const k = Number(codes[i]!);
        if (!(k >= 0 && k < size)) return `row ${i} has dictionary code ${k}, the dictionary ${size} entries`;
      }
      for (const chunk of dict.data) {
        const p = dataProblem(chunk);
        if (p) return `dictionary: ${p}`;
      }
      return null;
    }
    default:
      return null; // a type apache-arrow decoded but we have no check for: its own reader is all there is
  }
}
