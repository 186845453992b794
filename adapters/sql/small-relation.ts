/**
 * A relation's rows read into memory when they turn out to be few — what DuckDB's
 * duplicate-eliminated join does with the outer side of a correlated subquery (it materialises the
 * outer rows and hands their keys to the subquery: src/execution/operator/join/
 * physical_delim_join.cpp), without trusting an estimate: the rows are read until either the
 * stream ends (small: a table, `rows` set) or it passes `maxRows` rows or a quarter of the memory
 * the pool had left (large: nothing is thrown away — the returned relation replays the batches read
 * so far, then goes on with the same stream).
 *
 * Either way the rows are the same and come once. What is lost is routing: the stream is already
 * running, so a dynamic filter from a join above cannot reach its scans any more (the columns'
 * routes are cleared; a filter only ever says "maybe", so this drops nothing). A second read of the
 * replaying relation (a nested-loop join re-reads an input) runs the stream again from the start.
 * The held rows stay reserved in the query's pool (`correlated subquery outer rows`) while they
 * are held: a small table for the query's life, replayed batches until they are handed on.
 */
import { Table, type Data, type RecordBatch } from 'apache-arrow';
import { makeRecordBatch } from '../../core/arrow/gather.ts';
import { heldBatchBytes } from '../../core/arrow/size.ts';
import type { MemoryPool, Reservation } from '../../core/memory/pool.ts';
import type { Scan, ScanOptions } from '../../core/scan/scan.ts';
import { ScanWrapper } from '../../core/scan/scan-wrapper.ts';
import { MemoryScan } from '../../operators/memory-scan/memory-scan.ts';
import { projectBatch } from '../../core/scan/batch-shape.ts';
import type { Relation } from './relation.ts';

export interface SmallOrNot {
  /** The same rows as the relation read (its columns without routes). */
  readonly relation: Relation;
  /** The rows as a table when there were at most `maxRows` (and the pool held them); else null. */
  readonly table: Table | null;
}

/** Reads `rel` while it stays small (see the module comment). */
export async function readIfSmall(rel: Relation, maxRows: number, pool: MemoryPool, signal?: AbortSignal): Promise<SmallOrNot> {
  const schema = rel.input.schema;
  const held = pool.reservation('correlated subquery outer rows');
  const stream = rel.input.batches({ signal })[Symbol.asyncIterator]();
  const batches: RecordBatch[] = [];
  let rows = 0;
  // a quarter of what the pool has left: what follows (the subquery, the join) needs memory too
  const maxBytes = pool.available / 4;
  const columns = rel.columns.map((c) => ({ ...c, route: null }));
  try {
    for (;;) {
      const next = await stream.next();
      if (next.done === true) break;
      const b = next.value;
      rows += b.numRows;
      batches.push(b);
      const bytes = heldBatchBytes(b);
      if (rows > maxRows || held.size + bytes > maxBytes || !held.tryGrow(bytes)) return { relation: { ...rel, columns, input: new ReplayScan(rel.input, batches, stream, held) }, table: null };
    }
  } catch (e) {
    held.free();
    throw e;
  }
  const table = new Table(schema, batches.map((b) => makeRecordBatch(schema, b.data.children as Data[], b.numRows)));
  return { relation: { ...rel, columns, input: new MemoryScan(table, rel.input.source) }, table };
}

/** The batches read so far, then the rest of the same stream; a second read runs the scan again. */
class ReplayScan extends ScanWrapper {
  #first = true;
  constructor(
    inner: Scan,
    readonly read: RecordBatch[],
    readonly rest: AsyncIterator<RecordBatch>,
    readonly held: Reservation,
  ) {
    super(inner);
  }
  batches(options: ScanOptions = {}): AsyncIterable<RecordBatch> {
    if (!this.#first) return this.inner.batches(options);
    this.#first = false;
    return this.#replay(options);
  }
  async *#replay(options: ScanOptions): AsyncGenerator<RecordBatch> {
    const shape = (b: RecordBatch) => (options.columns === undefined ? b : projectBatch(b, options.columns, this.source));
    try {
      while (this.read.length > 0) {
        options.signal?.throwIfAborted();
        yield shape(this.read.shift()!);
      }
      this.held.free();
      for (;;) {
        const next = await this.rest.next();
        if (next.done === true) return;
        yield shape(next.value);
      }
    } finally {
      this.held.free();
      this.read.length = 0;
      await this.rest.return?.();
    }
  }
}
