/**
 * The buffered side's current key group: every row of the inner input that has the key the merge
 * is joining, possibly spanning many batches, kept until the streamed side's group with the same
 * key has been joined against it.
 *
 * Rows are added a batch slice at a time; each slice is reserved in the pool first (its share of
 * the batch's bytes). When the pool refuses, or the group would hold more than its budget (half
 * the pool's limit: the output batches, the scans' batches and the other side's state need the
 * rest — a group that takes all it can starves the gather of the very pairs it exists for), the
 * group spills: that slice and every later one are
 * appended to one spill file for this group (core/memory/spill.ts `writer`: appended to, never
 * rewritten), and the slices already in memory stay there. Only the join's keys decide group
 * membership and the cursor has already used them, so nothing but the rows themselves is kept.
 * Reading the group back (`chunks`) yields the in-memory slices, then the spilled ones batch by
 * batch — as often as the streamed side needs (once per streamed batch the group spans); a reader
 * may stop early (the bitwise stream does once every outer row has matched) and the file is not
 * read further. `release` frees the reservation and deletes the file; a group is released when
 * the key group ends, and the operator releases it also when the join fails or is cancelled (the
 * run's spill manager removes whatever is left on close).
 *
 * `matched` (one byte per group row, allocated on demand and reserved) records which buffered
 * rows found a partner, for the outer joins that return unmatched buffered rows.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { batchByteSize } from '../../core/arrow/size.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import type { SpillFile, SpillManager, SpillWriter } from '../../core/memory/spill.ts';

/** A run of group rows: rows [0, batch.numRows) of `batch`, group rows [offset, offset + numRows). */
export interface GroupChunk {
  readonly batch: RecordBatch;
  readonly offset: number;
}

export interface GroupSpillStats {
  groupsSpilled: number;
  rowsSpilled: number;
  /** Slices appended to group spill files (more than groupsSpilled: a group was appended to again). */
  groupSpillAppends: number;
}

export class BufferedGroup {
  rows = 0;
  #memory: GroupChunk[] = [];
  #memoryRows = 0;
  #writer: SpillWriter | null = null;
  #file: SpillFile | null = null;
  #matched: Uint8Array | null = null;

  constructor(
    private readonly schema: Schema,
    private readonly reservation: Reservation,
    private readonly spill: SpillManager,
    private readonly stats: GroupSpillStats,
    /** Most bytes the group may hold in memory (the rest of the pool is for output and scans). */
    private readonly budget: number,
  ) {}

  get spilled(): boolean {
    return this.#writer !== null;
  }

  /** Adds rows [start, end) of `batch` to the group (in memory if the pool allows, else to its spill file). */
  async add(batch: RecordBatch, start: number, end: number): Promise<void> {
    const n = end - start;
    if (n <= 0) return;
    const slice = start === 0 && end === batch.numRows ? batch : batch.slice(start, end);
    const bytes = Math.ceil((batchByteSize(batch) * n) / batch.numRows);
    if (this.#writer === null && this.reservation.size + bytes <= this.budget && this.reservation.tryGrow(bytes)) {
      this.#memory.push({ batch: slice, offset: this.rows });
      this.#memoryRows += n;
    } else {
      if (this.#writer === null) {
        this.#writer = this.spill.writer(this.schema);
        this.stats.groupsSpilled++;
      }
      await this.#writer.append(slice);
      this.stats.rowsSpilled += n;
      this.stats.groupSpillAppends++;
    }
    this.rows += n;
  }

  /** The group's rows, in order: the in-memory slices, then the spilled ones read back. */
  async *chunks(): AsyncGenerator<GroupChunk> {
    yield* this.#memory;
    if (this.#writer === null) return;
    this.#file ??= await this.#writer.finish();
    let offset = this.#memoryRows;
    for await (const batch of this.spill.read(this.#file)) {
      yield { batch, offset };
      offset += batch.numRows;
    }
  }

  /** The in-memory slices when nothing spilled (a synchronous fast path), else null. */
  memoryChunks(): readonly GroupChunk[] | null {
    return this.#writer === null ? this.#memory : null;
  }

  /** Per group row, 1 once it found a partner (reserved on first use). */
  matched(): Uint8Array {
    if (this.#matched === null) {
      this.reservation.grow(this.rows);
      this.#matched = new Uint8Array(this.rows);
    }
    return this.#matched;
  }

  /** Frees the memory and deletes the spill file; the group is empty and reusable afterwards. */
  async release(): Promise<void> {
    const writer = this.#writer;
    const file = this.#file;
    this.#writer = null;
    this.#file = null;
    this.#memory = [];
    this.#memoryRows = 0;
    this.#matched = null;
    this.rows = 0;
    this.reservation.free();
    if (file !== null) await this.spill.delete(file);
    else if (writer !== null) await writer.abort();
  }
}
