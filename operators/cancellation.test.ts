/**
 * An AbortSignal fired by a timer (a query timeout, the CLI's SIGINT/SIGTERM handler) stops every
 * operator within a fraction of a second, with the abort's error. Inputs already in memory arrive
 * on microtasks alone, so an operator that never gives the event loop a turn never sees the timer
 * fire and runs to its end: each case here is large enough to run for seconds without the turns
 * (core/next-turn.ts `Pacer`), so it resolves — and the test fails — unless the operator (or its
 * scan) paces. The signal fires 50 ms after the call; the 5 s bound only guards against a hang.
 *
 * The second block aborts inside what used to be one synchronous step of seconds (the argsort of
 * an in-memory sort run, the sort-merge join's input sorts, the piecewise merge join's buffered
 * sort, a partition's hash table): the abort fires 30 ms after the input that step reads has been
 * read to its end, and the run must end within a second of it (the old single step took 2 s and
 * more on these sizes; the bound is about responsiveness, not speed).
 */
import { makeVector, RecordBatch, Table } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Engine } from '../composition.ts';
import { CancelledError } from '../core/errors.ts';
import type { ScanOptions } from '../core/scan/scan.ts';
import { MemoryScan } from './memory-scan/memory-scan.ts';

/** `n` rows of (k, v) in batches of `batch` rows: k = key(i), v a scrambled double. */
function table(n: number, key: (i: number) => number, batch = 8192): Table {
  const batches: RecordBatch[] = [];
  for (let start = 0; start < n; start += batch) {
    const len = Math.min(batch, n - start);
    const k = new Int32Array(len);
    const v = new Float64Array(len);
    for (let i = 0; i < len; i++) {
      k[i] = key(start + i);
      v[i] = ((start + i) * 2654435761) % 1000003;
    }
    batches.push(new Table({ k: makeVector(k), v: makeVector(v) }).batches[0]!);
  }
  return new Table(batches);
}

/** `run` with a signal aborted `afterMs` later: rejects with the abort's CancelledError, well before 5 s. */
async function abortsSoon(run: (signal: AbortSignal) => Promise<unknown>, afterMs = 50): Promise<void> {
  const ac = new AbortController();
  const started = performance.now();
  const timer = setTimeout(() => ac.abort(new CancelledError('test abort')), afterMs);
  try {
    await expect(run(ac.signal)).rejects.toBeInstanceOf(CancelledError);
  } finally {
    clearTimeout(timer);
  }
  expect(performance.now() - started).toBeLessThan(5000);
}

/** Drains a join stream, keeping nothing. */
async function drain(engine: Engine, spec: Parameters<Engine['stream']>[0], left: Table, right: Table, signal: AbortSignal): Promise<number> {
  const s = await engine.stream(spec, left, right, { signal });
  let rows = 0;
  for await (const b of s.batches) rows += b.numRows;
  return rows;
}

/** Drains a join stream over two scans, keeping nothing. */
async function drainScans(engine: Engine, spec: Parameters<Engine['stream']>[0], left: MemoryScan, right: MemoryScan, signal: AbortSignal): Promise<number> {
  const s = await engine.stream(spec, left, right, { signal });
  let rows = 0;
  for await (const b of s.batches) rows += b.numRows;
  return rows;
}

const M = 1_000_000;
// the timeout is short on purpose: an operator that ignores the signal fails here, not after 120 s
const T = { timeout: 20_000 };

describe('an abort stops a long operator', () => {
  it('nested-loop join: 20K x 20K pairs, a filter that never passes', T, async () => {
    const engine = await Engine.create({ join: 'nested-loop' });
    const l = table(20_000, (i) => i);
    const r = table(20_000, (i) => i);
    await abortsSoon((signal) => drain(engine, { type: 'inner', filter: 'left.v + right.v < 0' }, l, r, signal));
  });

  it('nested-loop join: a 20K x 20K cross product collected by Engine.join', T, async () => {
    const engine = await Engine.create({ join: 'nested-loop' });
    const l = table(20_000, (i) => i);
    const r = table(20_000, (i) => i);
    await abortsSoon((signal) => engine.join({ type: 'inner', filter: 'left.k >= 0' }, l, r, { signal }));
  });

  it('hash join: the build of 1M rows', T, async () => {
    const engine = await Engine.create({ join: 'hash', 'hash.build': 'right' });
    const l = table(M, (i) => 2 * i + 1);
    const r = table(M, (i) => 2 * i);
    await abortsSoon((signal) => drain(engine, { type: 'inner', on: 'k=k' }, l, r, signal));
  });

  it('hash join: the probe of 3M rows that match nothing', T, async () => {
    const engine = await Engine.create({ join: 'hash', 'hash.build': 'right', pushdown: 'none' });
    const l = table(3 * M, (i) => 2 * i + 1);
    const r = table(10_000, (i) => 2 * i);
    await abortsSoon((signal) => drain(engine, { type: 'inner', on: 'k=k' }, l, r, signal), 100);
  });

  it('hash join with worker threads: a long build, then a probe its filter prunes entirely', { timeout: 60_000 }, async () => {
    const engine = await Engine.create({ join: 'hash', 'hash.build': 'right', threads: 2 });
    try {
      await engine.workers()!.ready(); // (the workers' start-up is not what is timed)
      // the abort fires during the build's synchronous table; no pruned morsel gave a turn after it
      const l = table(3 * M, (i) => 3 * M + i);
      const r = table(2 * M, (i) => i);
      await abortsSoon((signal) => drain(engine, { type: 'inner', on: 'k=k' }, l, r, signal), 100);
    } finally {
      await engine.close();
    }
  });

  it('sort-merge join: 1M x 1M unsorted rows', T, async () => {
    const engine = await Engine.create({ join: 'sort-merge' });
    const l = table(M, (i) => (i * 7919) % M);
    const r = table(M, (i) => M + ((i * 104729) % M));
    await abortsSoon((signal) => drain(engine, { type: 'inner', on: 'k=k' }, l, r, signal));
  });

  it('piecewise merge join: 3M streamed rows against a small side, one in 1000 matching', T, async () => {
    const engine = await Engine.create({ join: 'piecewise', 'pwmj.prefilter': false });
    // one left row in 1000 (k = -5) is below the right side's keys: no batch can be skipped
    const l = table(3 * M, (i) => (i % 1000) - 5);
    const r = table(1000, () => -4);
    await abortsSoon((signal) => drain(engine, { type: 'inner', range: 'k < k' }, l, r, signal), 100);
  });

  it('asof join: one left batch of 3M rows searching 100K right rows, none matching', T, async () => {
    const engine = await Engine.create({ join: 'asof' });
    // every left k is below every right k: no output batch gives the event loop a turn
    const l = table(3 * M, (i) => (i * 7919) % M, 3 * M);
    const r = table(M / 10, (i) => M + ((i * 7919) % (M / 10)));
    await abortsSoon((signal) => drain(engine, { type: 'inner', range: 'k >= k' }, l, r, signal), 100);
  });

  it('sort: 1M rows', T, async () => {
    const engine = await Engine.create({});
    const t = table(M, (i) => (i * 7919) % M);
    await abortsSoon((signal) => engine.sort(t, 'k desc, v', { signal }));
  });

  it('aggregate: 3M rows into 3M groups', T, async () => {
    const engine = await Engine.create({});
    const t = table(3 * M, (i) => i);
    await abortsSoon((signal) => engine.aggregate(t, { groupBy: ['k'], aggregates: [{ fn: 'sum', column: 'v', distinct: false, as: 's' }] }, { signal }));
  });

  it('sql: a filtered 20K x 20K cross join', T, async () => {
    const engine = await Engine.create({});
    const a = table(20_000, (i) => i);
    const b = table(20_000, (i) => i);
    // later than the others: DuckDB parses the statement first
    await abortsSoon((signal) => engine.sql('SELECT count(*) FROM a, b WHERE a.v + b.v < 0', { a, b }, { signal }), 400);
  });
});

/**
 * A table's scan that calls `on` once its last batch has been read (the consumer asked past it)
 * or, with `at: 'first'`, as its first batch is handed out.
 */
class Hooked extends MemoryScan {
  constructor(
    table: Table,
    name: string,
    private readonly on: () => void,
    private readonly at: 'first' | 'end',
  ) {
    super(table, name);
  }
  override batches(options?: ScanOptions): AsyncGenerator<RecordBatch> {
    const inner = super.batches(options);
    const { on, at } = this;
    return (async function* () {
      for await (const b of inner) {
        if (at === 'first') on();
        yield b;
      }
      on();
    })();
  }
}

/**
 * `run` over scans of `tables`, with a signal aborted 30 ms after the scan of `tables[last]` has
 * been read to its end (`at: 'first'`: has handed out its first batch): rejects with the abort's
 * CancelledError within a second of the time the abort was due.
 */
async function abortsSoonAfterInput(
  tables: readonly Table[],
  last: number,
  run: (scans: MemoryScan[], signal: AbortSignal) => Promise<unknown>,
  at: 'first' | 'end' = 'end',
): Promise<void> {
  const ac = new AbortController();
  let abortedAt = -1;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const scans = tables.map(
    (t, i) =>
      new Hooked(
        t,
        `t${i}`,
        () => {
          if (i !== last || timer !== undefined) return;
        // timed from when the abort is due: a synchronous step delays the timer's callback itself
        abortedAt = performance.now() + 30;
          timer = setTimeout(() => ac.abort(new CancelledError('test abort')), 30);
        },
        at,
      ),
  );
  try {
    await expect(run(scans, ac.signal)).rejects.toBeInstanceOf(CancelledError);
  } finally {
    clearTimeout(timer);
  }
  expect(abortedAt, 'the abort fired after the input was read').toBeGreaterThan(0);
  expect(performance.now() - abortedAt, 'ms from the abort to the end of the run').toBeLessThan(1000);
}

// ~2-3 s for the old single step on this machine (more under load); batches as a Parquet scan's
const BIG = 8 * M;
const BIG_BATCH = 65_536;

describe('an abort stops what used to be one long synchronous step', () => {
  it('sort: the in-memory sort of 8M rows (keys normalised, argsorted)', { timeout: 60_000 }, async () => {
    const engine = await Engine.create({ threads: 1 });
    const t = table(BIG, (i) => (i * 7919) % BIG, BIG_BATCH);
    await abortsSoonAfterInput([t], 0, ([scan], signal) => engine.sort(scan!, 'k desc, v', { signal }));
  });

  it('sort-merge join: the sort of an 8M-row input', { timeout: 60_000 }, async () => {
    const engine = await Engine.create({ join: 'sort-merge', threads: 1 });
    const l = table(1000, (i) => i);
    const r = table(BIG, (i) => (i * 7919) % BIG, BIG_BATCH);
    await abortsSoonAfterInput([l, r], 1, ([ls, rs], signal) => drainScans(engine, { type: 'inner', on: 'k=k' }, ls!, rs!, signal));
  });

  it('piecewise merge join: the sort of an 8M-row buffered side (a semi join, the prefilter on)', { timeout: 60_000 }, async () => {
    const engine = await Engine.create({ join: 'piecewise', threads: 1 });
    // left (buffered) keys 0 .. 8M-1 scrambled; the streamed key 4M matches half of them: neither
    // the prefilter's end checks nor the watermark spare the sort
    const l = table(BIG, (i) => (i * 7919) % BIG, BIG_BATCH);
    const r = table(1000, () => BIG / 2);
    // the abort is due 30 ms after the first streamed batch arrives: the sort it needs is under way
    await abortsSoonAfterInput([l, r], 1, ([ls, rs], signal) => drainScans(engine, { type: 'left-semi', range: 'k < k' }, ls!, rs!, signal), 'first');
  });

  it('hash join: the build of one 6M-row table (keys, hashes, swiss table)', { timeout: 60_000 }, async () => {
    // one partition: the concatenation of the input and its split into partitions are still one
    // step each (a copy of the build side: a few hundred ms at this size), the table is not
    const engine = await Engine.create({ join: 'hash', 'hash.build': 'right', 'hash.partitions': 1, threads: 1 });
    const l = table(1000, (i) => i);
    const r = table(6 * M, (i) => (i * 2654435761) | 0, BIG_BATCH); // sparse keys: a hashed table, not an array
    await abortsSoonAfterInput([l, r], 1, ([ls, rs], signal) => drainScans(engine, { type: 'inner', on: 'k=k' }, ls!, rs!, signal));
  });
});
