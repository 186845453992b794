/**
 * The hash aggregate: SQL `GROUP BY` with count/sum/min/max/avg (DISTINCT too), and `SELECT
 * DISTINCT` (every column a group column, no aggregates), over a stream of Arrow record batches.
 *
 * One pass, batch at a time, as DuckDB's PhysicalHashAggregate sink does it
 * (src/execution/operator/aggregate/physical_hash_aggregate.cpp, one thread, no partitioning):
 *  1. the group columns are normalised (core/keys/normalize.ts) and hashed (core/keys/hash.ts)
 *     column by column, and the group table (group-table.ts) turns them into one group id per row;
 *     rows with a key it has not seen create groups, numbered in order of first appearance;
 *  2. for every row that created a group, its group columns are gathered (core/arrow/gather.ts)
 *     into a small "representatives" batch: the output's group columns are these rows, so they keep
 *     the input's exact Arrow types (dictionaries, time zones, views, field metadata) and values;
 *  3. each aggregate's value column is read once per batch as typed arrays over its Arrow buffers
 *     (values.ts; shared by the aggregates that read the same column the same way) and every state
 *     folds the batch in with one loop over the rows, indexed by group id (states.ts). A DISTINCT aggregate first sends its rows through
 *     a second group table keyed on (group id, value), NULL values left out: only rows creating a
 *     new pair reach its states — DuckDB's distinct aggregates dedupe the same pairs in their own
 *     radix tables (`DistinctAggregateData`).
 * At the end, groups [0, n) are cut into output batches of `batchSize` rows: the group columns
 * gathered from the representatives, then one column per aggregate from its state.
 *
 * Group order: first appearance in the input (group ids are dense and increasing). SQL gives no
 * order, and DuckDB's is arbitrary; callers wanting one sort afterwards.
 *
 * Degenerate cases: with no group-by columns there is exactly one group, which exists before any
 * row is read, so an empty input still gives one row (count 0, sum/min/max/avg NULL); with group
 * columns an empty input gives no rows. Empty batches are skipped. NULL group keys form groups of
 * their own (one per combination of NULL and non-NULL key columns).
 *
 * Memory: everything held across batches — the group table, the per-group states, the string
 * arenas, the representatives and the output batches — is reserved in `ctx.pool` before it is
 * allocated (reservation `hash-aggregate`), so a memory limit fails with the pool's
 * MemoryLimitError; per-batch scratch (normalised keys, hashes, group ids) is a second reservation
 * resized per batch. Both are freed when the operator returns or fails; the returned table is then
 * the caller's to account (as `Engine.sort`'s is). The aggregate does not spill.
 */
import { Field, RecordBatch, Schema, Table } from 'apache-arrow';
import type { Data, Vector } from 'apache-arrow';
import type { AggregateSpec } from '../../core/aggregate.ts';
import { concatBatches, gatherColumns, makeRecordBatch, RowSource } from '../../core/arrow/gather.ts';
import { CancelledError, MissingColumnError } from '../../core/errors.ts';
import { CANCEL_CHECK_MS, nextTurn, TurnClock } from '../../core/next-turn.ts';
import { hashKeys } from '../../core/keys/hash.ts';
import { normalizeKeyColumn } from '../../core/keys/normalize.ts';
import { keyColumnBytes, type FixedKeyColumn, type KeyColumn, type KeyKind } from '../../core/keys/types.ts';
import type { MemoryPool, Reservation } from '../../core/memory/pool.ts';
import { bindAggregate, type BoundAggregateSpec } from './bind.ts';
import { GroupTable } from './group-table.ts';
import type { AggregateInput, AggregateState } from './states.ts';
import { nullBytes, readValues, type ValueView } from './values.ts';

export interface HashAggregateContext {
  readonly pool: MemoryPool;
  readonly signal?: AbortSignal;
  /** Rows per output batch (default 2048). */
  readonly batchSize?: number;
}

const DEFAULT_BATCH_SIZE = 2048;
const GROUP_SEED = 0x41c64e6d;
const DISTINCT_SEED = 0x2c1b3c6d;
/** The group id column of a DISTINCT table's (group, value) key. */
const GROUP_ID_KIND: KeyKind = { order: 'int', width: 1, sqlType: 'INTEGER' };
/** Representatives are merged into one batch once this many small ones (or rows) pile up. */
const MERGE_PIECES = 64;
const MERGE_ROWS = 4096;

/**
 * GROUP BY `spec.groupBy` computing `spec.aggregates` over `input` (whose batches have `schema`).
 * The spec is checked against the schema before the first batch is read.
 */
export async function hashAggregate(input: AsyncIterable<RecordBatch>, schema: Schema, spec: AggregateSpec, ctx: HashAggregateContext): Promise<Table> {
  const bound = bindAggregate(schema, spec);
  const batchSize = Math.max(1, Math.floor(ctx.batchSize ?? DEFAULT_BATCH_SIZE));
  const held = ctx.pool.reservation('hash-aggregate');
  const scratch = ctx.pool.reservation('hash-aggregate batch scratch');
  try {
    const agg = new Aggregation(bound, held, scratch);
    // input already in memory arrives on microtasks alone: a turn now and then lets an abort in
    const clock = ctx.signal === undefined ? null : new TurnClock(CANCEL_CHECK_MS);
    for await (const batch of input) {
      if (clock?.due()) await nextTurn();
      if (ctx.signal?.aborted) throw new CancelledError('hash aggregate cancelled');
      agg.consume(batch);
    }
    if (ctx.signal?.aborted) throw new CancelledError('hash aggregate cancelled');
    scratch.free();
    return agg.finish(batchSize);
  } finally {
    held.free();
    scratch.free();
  }
}

/** One bound input (`BoundInput`) in one batch. */
interface BatchInput extends AggregateInput {
  /** The normalised column a DISTINCT input dedupes on. */
  readonly key: KeyColumn | null;
  /** Scratch bytes it holds beyond the batch (NULL mask, copies). */
  readonly bytes: number;
}

const NO_INPUT: AggregateInput = { values: null, nulls: null };

/** Bytes a value view holds beyond the batch's own buffers (decoded dictionaries, booleans). */
function viewBytes(view: ValueView, v: Vector): number {
  const own = v.data[0]!.values as ArrayBufferView | undefined;
  const arr = (view.numbers ?? view.words) as unknown as ArrayBufferView | null;
  if (arr === null || own === undefined || arr.buffer === own.buffer) return 0;
  return arr.byteLength;
}

/** A DISTINCT input's dedupe table: (group id, value) pairs seen so far. */
interface DistinctTable {
  readonly table: GroupTable;
}

class Aggregation {
  private readonly table: GroupTable | null;
  private readonly states: AggregateState[];
  private readonly distinct: (DistinctTable | null)[];
  private capacity = 0;
  private readonly groupSchema: Schema;
  private readonly pieces: RecordBatch[] = [];
  private small: RecordBatch[] = [];
  private smallRows = 0;
  private readonly seenDictionaries = new Set<Data>();

  // scratch, grown to the largest batch
  private groupOf = new Int32Array(0);
  private hashes = new Uint32Array(0);
  private newRows = new Int32Array(0);
  private sel = new Int32Array(0);
  private pairs = new Int32Array(0);
  private scratchBytes = 0;

  constructor(
    private readonly bound: BoundAggregateSpec,
    private readonly held: Reservation,
    private readonly scratch: Reservation,
  ) {
    this.table = bound.groupBy.length > 0 ? new GroupTable(bound.groupKinds, held, 'group by') : null;
    this.states = bound.aggregates.map((a) => a.makeState(held));
    this.distinct = bound.inputs.map((i) => (i.distinct ? { table: new GroupTable([GROUP_ID_KIND, i.kind!], held, `DISTINCT ${i.column}`) } : null));
    this.groupSchema = new Schema(bound.groupFields as Field[]);
    if (this.table === null) this.ensureCapacity(1); // the one group of an aggregate without GROUP BY
  }

  private get groups(): number {
    return this.table === null ? 1 : this.table.groups;
  }

  consume(batch: RecordBatch): void {
    const n = batch.numRows;
    if (n === 0) return;
    this.fitScratch(n);
    const groupOf = this.groupOf;
    const fields = batch.schema.fields;
    const column = (name: string): Vector => {
      const idx = fields.findIndex((f) => f.name === name);
      if (idx < 0) throw new MissingColumnError(name, 'an aggregate input batch', fields.map((f) => f.name));
      return batch.getChildAt(idx)!;
    };

    // 1. group ids
    let keyBytes = 0;
    if (this.table !== null) {
      const keys: KeyColumn[] = this.bound.groupBy.map((name, k) => normalizeKeyColumn(column(name), this.bound.groupKinds[k]!, name));
      for (const k of keys) keyBytes += keyColumnBytes(k);
      this.scratch.resize(this.scratchBytes + keyBytes);
      const hashes = hashKeys(keys, GROUP_SEED, this.hashes);
      const created = this.table.findOrCreate(keys, hashes, null, n, groupOf, this.newRows);
      if (created > 0) {
        this.ensureCapacity(this.table.groups);
        this.addRepresentatives(batch, this.newRows, created);
      }
    }

    // 2. value columns, read once per batch per bound input (and normalised for a DISTINCT dedupe)
    const inputs: BatchInput[] = this.bound.inputs.map((i) => {
      const v = column(i.column);
      const values = i.layout === null ? null : readValues(v, i.layout, i.column);
      const key = i.distinct ? normalizeKeyColumn(v, i.kind!, i.column) : null;
      const nulls = values !== null ? values.nulls : key !== null ? key.nulls : nullBytes(v.data[0]!);
      const bytes = (nulls?.byteLength ?? 0) + (key === null ? 0 : keyColumnBytes(key)) + (values === null ? 0 : viewBytes(values, v));
      return { values, nulls, key, bytes };
    });
    this.scratch.resize(this.scratchBytes + keyBytes + inputs.reduce((s, i) => s + i.bytes, 0));

    // 3. states; a DISTINCT input first dedupes its (group, value) pairs
    const rowsOf: (Int32Array | null)[] = this.bound.inputs.map(() => null);
    const countOf = new Int32Array(this.bound.inputs.length);
    for (let a = 0; a < this.states.length; a++) {
      const b = this.bound.aggregates[a]!;
      const inputIdx = b.input;
      const state = this.states[a]!;
      const whole = this.table === null && state.updateAll !== undefined; // no GROUP BY: every row in group 0
      if (inputIdx < 0) {
        if (whole) state.updateAll!(NO_INPUT, n);
        else state.update(NO_INPUT, groupOf, null, n);
        continue;
      }
      const d = this.distinct[inputIdx];
      const input = inputs[inputIdx]!;
      if (d === null || d === undefined) {
        if (whole) state.updateAll!(input, n);
        else state.update(input, groupOf, null, n);
        continue;
      }
      if (rowsOf[inputIdx] === null) {
        const count = this.dedupe(d, input.key!, n);
        rowsOf[inputIdx] = this.pairs.slice(0, count);
        countOf[inputIdx] = count;
      }
      this.states[a]!.update(input, groupOf, rowsOf[inputIdx]!, countOf[inputIdx]!);
    }
    this.scratch.resize(this.scratchBytes);
  }

  /**
   * Rows of the batch whose (group, value) pair is new, in the order they created it, into
   * `this.pairs`; returns
   * their count. NULL values never count (DISTINCT aggregates skip them like all aggregates).
   */
  private dedupe(d: DistinctTable, values: KeyColumn, n: number): number {
    const nulls = values.nulls;
    const sel = this.sel;
    let m = 0;
    for (let i = 0; i < n; i++) if (nulls === null || nulls[i] === 0) sel[m++] = i;
    if (m === 0) return 0;
    const gid: FixedKeyColumn = { kind: GROUP_ID_KIND, length: n, words: this.groupOf.subarray(0, n), nulls: null };
    const keys = [gid, values];
    const hashes = hashKeys(keys, DISTINCT_SEED, this.hashes);
    // out (pair id per selected row) goes to `newRows`, the rows creating pairs to `pairs`
    return d.table.findOrCreate(keys, hashes, sel, m, this.newRows, this.pairs);
  }

  private fitScratch(n: number): void {
    if (this.groupOf.length >= n) return;
    const size = Math.max(n, 2 * this.groupOf.length);
    const bytes = size * 4 * 5;
    this.scratch.resize(bytes);
    this.scratchBytes = bytes;
    this.groupOf = new Int32Array(size); // zeros: the one group when there is no GROUP BY
    this.hashes = new Uint32Array(size);
    this.newRows = new Int32Array(size);
    this.sel = new Int32Array(size);
    this.pairs = new Int32Array(size);
  }

  /** Room in every state for `groups` groups (doubling), reserved first. */
  private ensureCapacity(groups: number): void {
    if (groups <= this.capacity) return;
    let cap = Math.max(1024, this.capacity * 2);
    while (cap < groups) cap *= 2;
    if (this.table === null) cap = 1;
    const perGroup = this.states.reduce((s, st) => s + st.bytesPerGroup, 0);
    this.held.grow((cap - this.capacity) * perGroup);
    for (const st of this.states) st.resize(cap);
    this.capacity = cap;
  }

  /** Keep the group columns of the rows that created groups (in group id order). */
  private addRepresentatives(batch: RecordBatch, rows: Int32Array, count: number): void {
    const src = new RowSource([batch], batch.schema);
    const cols = this.bound.groupBy.map((name) => batch.schema.fields.findIndex((f) => f.name === name));
    const piece = makeRecordBatch(this.groupSchema, gatherColumns(src, rows, 0, count, cols, this.held.pool), count);
    this.held.grow(this.pieceBytes(piece));
    this.small.push(piece);
    this.smallRows += count;
    if (this.small.length >= MERGE_PIECES || this.smallRows >= MERGE_ROWS) this.mergeSmall();
  }

  private mergeSmall(): void {
    if (this.small.length === 0) return;
    if (this.small.length === 1) this.pieces.push(this.small[0]!);
    else {
      const merged = concatBatches(this.small, this.groupSchema);
      const before = this.small.reduce((s, b) => s + this.pieceBytes(b, false), 0);
      this.held.grow(this.pieceBytes(merged, false));
      this.held.shrink(Math.min(before, this.held.size));
      this.pieces.push(merged);
    }
    this.small = [];
    this.smallRows = 0;
  }

  /** A piece's buffer bytes, counting each dictionary once over the whole run. */
  private pieceBytes(b: RecordBatch, countDictionaries = true): number {
    let n = 256;
    const visit = (d: Data): void => {
      for (const buf of [d.values, d.valueOffsets, d.nullBitmap, d.typeIds] as (ArrayBufferView | undefined)[]) if (buf) n += buf.byteLength;
      for (const v of d.variadicBuffers ?? []) n += v.byteLength;
      for (const c of d.children ?? []) visit(c);
      if (countDictionaries && d.dictionary) {
        for (const dd of d.dictionary.data) {
          if (this.seenDictionaries.has(dd)) continue;
          this.seenDictionaries.add(dd);
          visit(dd);
        }
      }
    };
    for (const c of b.data.children) visit(c);
    return n;
  }

  finish(batchSize: number): Table {
    this.mergeSmall();
    const total = this.groups;
    const schema = this.bound.schema;
    const keys = this.table === null ? null : new RowSource(this.pieces, this.groupSchema);
    const batches: RecordBatch[] = [];
    const idx = new Int32Array(Math.min(batchSize, total));
    for (let start = 0; start < total; start += batchSize) {
      const count = Math.min(batchSize, total - start);
      for (let k = 0; k < count; k++) idx[k] = start + k;
      const cols: Data[] = keys === null ? [] : gatherColumns(keys, idx, 0, count, undefined, this.held.pool);
      for (const st of this.states) cols.push(st.finish(start, count));
      const b = makeRecordBatch(schema, cols, count);
      this.held.grow(this.pieceBytes(b, false));
      batches.push(b);
    }
    return batches.length === 0 ? new Table(schema) : new Table(schema, batches);
  }
}
