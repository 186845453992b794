/**
 * Spilling record batches to disk (Arrow IPC stream files) when an operator outgrows its memory
 * reservation, and streaming them back.
 *
 * Why this shape:
 * - One private directory per manager, `os.tmpdir()/joinlab-spill-<pid>-<random>/`, created on the
 *   first spill (a run that never spills touches no disk). `close()` removes it and is idempotent;
 *   until then the directory is registered in core/cleanup.ts, so a process exit or a handled
 *   signal removes it too. SIGKILL leaves it: its name carries the pid for a later clean-up.
 * - Writing streams batch by batch: the IPC writer's output for one batch is written (awaited)
 *   before the next batch is pulled, so an async source is never buffered whole.
 * - Reading streams too: apache-arrow's RecordBatchReader over a file read stream.
 * - A spill file records its byte length and batch count; a file whose size differs (truncated)
 *   or that yields a different number of batches, or that Arrow cannot decode, raises
 *   CorruptFileError naming the file. A file that vanished raises FileNotFoundError.
 * - A failed spill (source throws, disk full) removes its partial file before rethrowing.
 * Metrics: `spilledBytes` and `spillFiles` only grow (deleting a file does not undo them); pass an
 * OperatorMetrics (or any object with those two counters) to have them counted there.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { RecordBatchReader, type RecordBatch, type Schema } from 'apache-arrow';
import { ChunkedStreamWriter, conformBatch } from '../arrow/ipc-chunks.ts';
import { trackTempPath, untrackTempPath } from '../cleanup.ts';
import { CorruptFileError, FileNotFoundError } from '../errors.ts';

export interface SpillMetrics {
  spilledBytes: number;
  spillFiles: number;
}

/** One spilled run of batches. Treat as opaque apart from the counters. */
export interface SpillFile {
  readonly path: string;
  readonly schema: Schema;
  /** Bytes written (the file's size). */
  readonly bytes: number;
  readonly batches: number;
  readonly rows: number;
}

export interface SpillManagerOptions {
  /** Parent directory for the spill directory (default `os.tmpdir()`). */
  readonly parentDir?: string;
  /** Where to count `spilledBytes` / `spillFiles` (e.g. an operator's OperatorMetrics). */
  readonly metrics?: SpillMetrics;
}

function isAsyncIterable<T>(x: unknown): x is AsyncIterable<T> {
  return x != null && typeof (x as AsyncIterable<T>)[Symbol.asyncIterator] === 'function';
}

export class SpillManager {
  readonly metrics: SpillMetrics;
  private readonly parentDir: string;
  private dir: string | null = null;
  private dirPromise: Promise<string> | null = null;
  private closed = false;
  private counter = 0;
  private readonly files = new Set<string>();
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(options: SpillManagerOptions = {}) {
    this.parentDir = options.parentDir ?? os.tmpdir();
    this.metrics = options.metrics ?? { spilledBytes: 0, spillFiles: 0 };
  }

  /** The spill directory, or null before the first spill / after close. */
  get directory(): string | null {
    return this.dir;
  }

  /** Write `batches` (all with `schema`) to a new spill file. */
  spill(batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>, schema: Schema): Promise<SpillFile> {
    if (this.closed) return Promise.reject(new Error('SpillManager is closed'));
    const p = this.write(batches, schema);
    this.inFlight.add(p);
    const done = () => this.inFlight.delete(p);
    p.then(done, done);
    return p;
  }

  private async ensureDir(): Promise<string> {
    if (this.dir !== null) return this.dir;
    this.dirPromise ??= (async () => {
      await fs.mkdir(this.parentDir, { recursive: true });
      const dir = await fs.mkdtemp(path.join(this.parentDir, `joinlab-spill-${process.pid}-`));
      trackTempPath(dir);
      this.dir = dir;
      return dir;
    })();
    return this.dirPromise;
  }

  private async write(batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>, schema: Schema): Promise<SpillFile> {
    // a spill accepted before `close` finishes: close waits for it (`inFlight`) before removing the directory
    const writer = await this.openWriter(schema, true);
    try {
      const source = isAsyncIterable<RecordBatch>(batches) ? batches : toAsync(batches);
      for await (const batch of source) await writer.append(batch);
    } catch (err) {
      await writer.abort();
      throw err;
    }
    return writer.finish();
  }

  /**
   * A spill file written a batch at a time by its owner (a key group that grows while it is
   * buffered): `append` writes one batch to the end of the file (awaited: nothing is buffered),
   * `finish` ends the stream and returns the file to read back, `abort` removes the partial file.
   * Appends only ever add to the one file; it is never rewritten.
   */
  writer(schema: Schema): SpillWriter {
    if (this.closed) throw new Error('SpillManager is closed');
    let opened: Promise<OpenSpillWriter> | null = null;
    const open = () => (opened ??= this.openWriter(schema));
    let done = false;
    return {
      append: async (batch) => {
        if (done) throw new Error('spill writer is finished');
        await (await open()).append(batch);
      },
      finish: async () => {
        done = true;
        return (await open()).finish();
      },
      abort: async () => {
        done = true;
        if (opened !== null) await (await opened.catch(() => null))?.abort();
      },
    };
  }

  private async openWriter(schema: Schema, inFlight = false): Promise<OpenSpillWriter> {
    const dir = await this.ensureDir();
    if (this.closed && !inFlight) throw new Error('SpillManager is closed');
    const file = path.join(dir, `spill-${String(++this.counter).padStart(6, '0')}-${randomUUID().slice(0, 8)}.arrows`);
    const handle = await fs.open(file, 'wx', 0o600);
    this.files.add(file);
    let bytes = 0;
    let count = 0;
    let rows = 0;
    let failed = false;
    const writer = new ChunkedStreamWriter();
    const flush = async () => {
      const chunks = writer.take();
      for (const c of chunks) bytes += c.byteLength;
      if (chunks.length > 0) await handle.writev(chunks);
    };
    const removePartial = async () => {
      failed = true;
      await handle.close().catch(() => {});
      this.files.delete(file);
      await fs.rm(file, { force: true }).catch(() => {});
    };
    const guarded = async <T>(step: () => Promise<T>): Promise<T> => {
      if (failed) throw new Error(`spill file ${file} was abandoned after an error`);
      try {
        return await step();
      } catch (err) {
        await removePartial();
        throw err;
      }
    };
    await guarded(async () => writer.reset(undefined, schema)); // the schema message, even for no batches
    return {
      append: (batch) =>
        guarded(async () => {
          writer.write(conformBatch(batch, schema));
          count++;
          rows += batch.numRows;
          await flush();
        }),
      finish: () =>
        guarded(async () => {
          writer.finish(); // end-of-stream marker
          await flush();
          await handle.close();
          this.metrics.spilledBytes += bytes;
          this.metrics.spillFiles += 1;
          return { path: file, schema, bytes, batches: count, rows };
        }),
      abort: () => (failed ? Promise.resolve() : removePartial()),
    };
  }

  /** Stream a spill file's batches back from disk. */
  read(file: SpillFile): AsyncIterable<RecordBatch> {
    return { [Symbol.asyncIterator]: () => this.readBatches(file) };
  }

  private async *readBatches(file: SpillFile): AsyncGenerator<RecordBatch> {
    if (!this.files.has(file.path)) throw new Error(`spill file ${file.path} is not live in this SpillManager (deleted or closed?)`);
    let size: number;
    try {
      size = (await fs.stat(file.path)).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new FileNotFoundError(file.path);
      throw err;
    }
    if (size !== file.bytes) {
      throw new CorruptFileError(file.path, `spill file is ${size} bytes, expected ${file.bytes} (truncated or overwritten)`);
    }
    // (apache-arrow yields one empty placeholder batch for a stream without batches)
    if (file.batches === 0) return;
    const stream = createReadStream(file.path);
    let count = 0;
    try {
      let reader: AsyncIterable<RecordBatch>;
      try {
        reader = (await RecordBatchReader.from(stream)) as AsyncIterable<RecordBatch>;
      } catch (err) {
        throw new CorruptFileError(file.path, `not an Arrow IPC stream (${(err as Error).message})`, { cause: err });
      }
      const it = reader[Symbol.asyncIterator]();
      for (;;) {
        let r: IteratorResult<RecordBatch>;
        try {
          r = await it.next();
        } catch (err) {
          throw new CorruptFileError(file.path, `cannot decode batch ${count + 1} (${(err as Error).message})`, { cause: err });
        }
        if (r.done) break;
        count++;
        if (count > file.batches) break;
        yield r.value;
      }
      if (count !== file.batches) {
        throw new CorruptFileError(file.path, `spill file holds ${count} batches, expected ${file.batches}`);
      }
    } finally {
      stream.destroy();
    }
  }

  /** Remove one spill file (idempotent). */
  async delete(file: SpillFile): Promise<void> {
    this.files.delete(file.path);
    await fs.rm(file.path, { force: true });
  }

  /** Remove every spill file and the directory (idempotent; waits for spills in flight). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
    if (this.dirPromise !== null) await this.dirPromise.catch(() => {});
    const dir = this.dir;
    this.files.clear();
    if (dir === null) return;
    this.dir = null;
    await fs.rm(dir, { recursive: true, force: true });
    untrackTempPath(dir);
  }
}

/** An appendable spill file (see `SpillManager.writer`). */
export interface SpillWriter {
  append(batch: RecordBatch): Promise<void>;
  finish(): Promise<SpillFile>;
  abort(): Promise<void>;
}

type OpenSpillWriter = SpillWriter;

async function* toAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}
