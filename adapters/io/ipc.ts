/**
 * Arrow IPC files. We write the *file* format (`ARROW1` magic + footer, what `.arrow`/`.feather`
 * v2 readers expect), atomically; on read we accept both the file and the stream format, so other
 * tools' streams load too.
 *
 * Why reading checks the framing itself before apache-arrow decodes anything: apache-arrow reads
 * what it can and stops. A stream cut at a message boundary, or a file whose footer is gone (it
 * then falls back to reading the bytes as a stream), "decodes" to fewer batches — silently fewer
 * rows — and a cut inside a message fails deep inside the decoder with messages such as "Cannot
 * read properties of null (reading 'fieldsLength')". Some non-IPC inputs (an empty file, zero
 * bytes) even look like an empty stream. So `decodeIpc` first walks the framing and reports the
 * first thing wrong, with its byte offset, as a `CorruptFileError` naming the file:
 * - file format: `ARROW1` at both ends, a footer length that fits between them, a footer that
 *   decodes, and every block it lists (dictionaries, record batches) inside the data region,
 *   holding the message kind the footer says with the body length the block says;
 * - stream format (also the legacy pre-0.15 framing without the 0xFFFFFFFF marker): message after
 *   message, each prefix, metadata and body inside the file, a schema first, then dictionary and
 *   record batches, until the end-of-stream marker. A stream without that marker is reported as
 *   truncated: the format allows a writer to just stop, but then a cut at a message boundary
 *   cannot be told from a complete stream, and every writer we know of (apache-arrow, arrow-rs,
 *   pyarrow, Arrow C++) writes the marker when it closes the stream;
 * - every metadata flatbuffer (messages, the footer) before apache-arrow decodes it: tables,
 *   strings and vectors inside the metadata (its generated accessors do not check, and a corrupt
 *   vector length makes the decoder allocate until the process dies);
 * - in every batch message: row and node counts that are not negative, and every buffer region
 *   inside the message body.
 * Then apache-arrow decodes, and every column of every batch is checked against its buffers
 * (validity bits, values, offsets that rise and stay within the data, dictionary codes within the
 * dictionary, child lengths), one typed-array pass per column, so corrupt bytes inside a body
 * become a `CorruptFileError` naming the column instead of wrong values later. Anything the
 * decoder still throws is reported with its message. Body-compressed IPC (LZ4/ZSTD buffers) needs
 * a codec apache-arrow does not ship: reported as such. The checks live in ipc-check.ts. (One
 * more apache-arrow quirk is undone on read: a field named '' comes back named null.)
 */
import { open } from 'node:fs/promises';
import { Data, DataType, Field, makeData, RecordBatch, RecordBatchReader, Schema, Struct, Table, tableFromIPC } from 'apache-arrow';
import { hasDuplicateNames, recordBatchOf } from '../../core/arrow/record-batch.ts';
import { ChunkedFileWriter, ChunkedStreamWriter, conformBatch } from '../../core/arrow/ipc-chunks.ts';
import { CorruptFileError } from '../../core/errors.ts';
import { readFileBytes, writeFileAtomic } from './atomic.ts';
import { dataProblem, framingProblem } from './ipc-check.ts';
import { FileDictionaries } from './ipc-dictionaries.ts';

export const IPC_EXTENSIONS: readonly string[] = ['.arrow', '.ipc', '.feather'];

export function isIpcPath(path: string): boolean {
  const p = path.toLowerCase();
  return IPC_EXTENSIONS.some((ext) => p.endsWith(ext));
}

/** Decode IPC bytes (file or stream format); `path` names the source in errors. */
export function decodeIpc(input: Uint8Array, path: string): Table {
  // buffer alignment is checked against file offsets: keep those aligned in memory too
  const bytes = input.byteOffset % 8 === 0 ? input : input.slice();
  const problem = framingProblem(bytes);
  if (problem !== null) throw new CorruptFileError(path, problem);
  let table: Table;
  try {
    table = withRepeatedNames(tableFromIPC(bytes), bytes);
  } catch (e) {
    throw new CorruptFileError(path, `Arrow IPC does not decode: ${(e as Error).message}`, { cause: e });
  }
  table.batches.forEach((batch, b) => {
    batch.schema.fields.forEach((f, c) => {
      const p = dataProblem(batch.data.children[c]!);
      if (p !== null) throw new CorruptFileError(path, `record batch ${b}, column '${f.name}' (${String(f.type)}): ${p}`);
    });
  });
  return withEmptyNames(table);
}

/**
 * apache-arrow builds each batch read with `new RecordBatch(schema, data)`, which merges fields of
 * the same name (`SELECT 1 AS k, 'x' AS k` written to a file): the table's schema then says Utf8
 * for both. The file's own schema (read again from the footer / first message) is put back,
 * position for position, over the column data, which was decoded right.
 */
function withRepeatedNames(table: Table, bytes: Uint8Array): Table {
  const schema = RecordBatchReader.from(bytes).open().schema;
  if (!hasDuplicateNames(schema)) return table;
  const batches = table.batches.map((b) => recordBatchOf(schema, makeData({ type: new Struct(schema.fields), length: b.numRows, nullCount: 0, children: b.data.children })));
  return new Table(schema, batches);
}

// ---------------------------------------------------------------------------------------------
// apache-arrow writes a field named '' without a name and reads it back as null (DuckDB's
// UNION-as-STRUCT has such a member): names are given back as ''.
// ---------------------------------------------------------------------------------------------

function hasNullName(fields: readonly Field[]): boolean {
  return fields.some((f) => f.name == null || hasNullName(f.type.children ?? []));
}

function renamedType(t: DataType): DataType {
  if (!t.children || t.children.length === 0) return t;
  const kids = t.children.map((f: Field) => new Field(f.name ?? '', renamedType(f.type), f.nullable, f.metadata));
  const copy = Object.create(Object.getPrototypeOf(t) as object) as DataType & { children: Field[] };
  Object.assign(copy, t);
  copy.children = kids;
  return copy;
}

function retyped(d: Data, t: DataType): Data {
  const kids = d.children.map((c, i) => retyped(c, t.children[i]!.type));
  return d.clone(t, d.offset, d.length, d.nullCount, d as never, kids);
}

function withEmptyNames(table: Table): Table {
  if (!hasNullName(table.schema.fields)) return table;
  const fields = table.schema.fields.map((f) => new Field(f.name ?? '', renamedType(f.type), f.nullable, f.metadata));
  const schema = new Schema(fields, table.schema.metadata);
  const batches = table.batches.map(
    (b) =>
      recordBatchOf(
        schema,
        makeData({ type: new Struct(fields), length: b.numRows, nullCount: 0, children: b.data.children.map((c, i) => retyped(c, fields[i]!.type)) }),
      ),
  );
  return new Table(schema, batches);
}

/**
 * The file as a Table whose buffers are views of one `SharedArrayBuffer` the file was read into:
 * with `threads` > 1 its batches reach the workers without a copy (core/parallel/wire.ts).
 */
export async function readIpcFile(path: string): Promise<Table> {
  return decodeIpc(await readFileBytes(path, 'input', { shared: true }), path);
}

export interface IpcWriteOptions {
  /** 'file' (default) or 'stream'. */
  readonly format?: 'file' | 'stream';
}

export async function writeIpcFile(path: string, table: Table, options: IpcWriteOptions = {}): Promise<void> {
  await writeIpcBatches(path, table.schema, table.batches, options);
}

/**
 * Write `batches` (all of `schema`) as Arrow IPC, atomically: each batch's bytes reach the temp
 * file before the next batch is pulled, so the output is never held whole. Returns the rows.
 */
export async function writeIpcBatches(path: string, schema: Schema, batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>, options: IpcWriteOptions = {}): Promise<number> {
  let rows = 0;
  await writeFileAtomic(path, async (tmp) => {
    const fh = await open(tmp, 'wx');
    try {
      const stream = options.format === 'stream';
      const writer = stream ? new ChunkedStreamWriter() : new ChunkedFileWriter();
      // the file format cannot replace a dictionary: each new one becomes a delta
      const dictionaries = stream ? null : new FileDictionaries(schema);
      writer.reset(undefined, schema); // schema (and magic) even when no batch follows
      for await (const b of batches) {
        const conformed = conformBatch(b, schema);
        writer.write(dictionaries ? dictionaries.conform(conformed) : conformed);
        rows += b.numRows;
        await fh.writev(writer.take());
      }
      writer.finish();
      await fh.writev(writer.take());
      await fh.sync();
    } finally {
      await fh.close();
    }
  });
  return rows;
}
