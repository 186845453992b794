/**
 * Arrow IPC files. We write the *file* format (`ARROW1` magic + footer, what `.arrow`/`.feather`
 * v2 readers expect), atomically; on read we accept both the file and the stream format
 * (apache-arrow tells them apart by the magic), so spill files and other tools' streams load too.
 *
 * apache-arrow happily "reads" some inputs that are not IPC at all (an empty file, a run of zero
 * bytes: both look like an empty stream), so we check for a plausible start first — `ARROW1`, a
 * continuation marker `0xFFFFFFFF`, or a legacy positive length prefix — and report anything else,
 * or any decoder error, as a `CorruptFileError` naming the file. Body-compressed IPC (LZ4/ZSTD
 * buffers) is not supported by apache-arrow and is reported the same way, with its message.
 */
import { open } from 'node:fs/promises';
import { tableFromIPC, type RecordBatch, type Schema, type Table } from 'apache-arrow';
import { ChunkedFileWriter, ChunkedStreamWriter, conformBatch } from '../../core/arrow/ipc-chunks.ts';
import { CorruptFileError } from '../../core/errors.ts';
import { readFileBytes, writeFileAtomic } from './atomic.ts';
import { FileDictionaries } from './ipc-dictionaries.ts';

export const IPC_EXTENSIONS: readonly string[] = ['.arrow', '.ipc', '.feather'];

export function isIpcPath(path: string): boolean {
  const p = path.toLowerCase();
  return IPC_EXTENSIONS.some((ext) => p.endsWith(ext));
}

const FILE_MAGIC = [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31]; // "ARROW1"

function plausibleStart(b: Uint8Array): string | null {
  if (b.length < 8) return `too short (${b.length} bytes) to be Arrow IPC`;
  if (FILE_MAGIC.every((x, i) => b[i] === x)) return null;
  const first = new DataView(b.buffer, b.byteOffset, 8).getInt32(0, true);
  if (first === -1) {
    const len = new DataView(b.buffer, b.byteOffset, 8).getInt32(4, true);
    return len > 0 ? null : 'stream holds no schema message';
  }
  if (first > 0) return null; // pre-0.15 stream: length prefix without continuation marker
  return 'not an Arrow IPC file or stream';
}

/** Decode IPC bytes (file or stream format); `path` names the source in errors. */
export function decodeIpc(bytes: Uint8Array, path: string): Table {
  const problem = plausibleStart(bytes);
  if (problem !== null) throw new CorruptFileError(path, problem);
  try {
    return tableFromIPC(bytes);
  } catch (e) {
    throw new CorruptFileError(path, `Arrow IPC does not decode: ${(e as Error).message}`, { cause: e });
  }
}

export async function readIpcFile(path: string): Promise<Table> {
  return decodeIpc(await readFileBytes(path), path);
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
