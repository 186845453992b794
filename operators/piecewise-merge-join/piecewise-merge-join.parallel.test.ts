/**
 * The piecewise merge join with its streamed phase on worker threads (parallel.ts,
 * stream-task.ts) against the single-threaded join and the nested-loop oracle: random data —
 * NULL keys, duplicates, a hot key (skew), empty and all-NULL buffered sides, tiny and odd batch
 * sizes with empty batches between them, Int32 / Int32-vs-Int64 / Float64 (-0.0, NaN, ±Infinity)
 * / Utf8 keys, both searches, the prefilter on and off — every join type x every operator at
 * threads 2 and 4 (`parallel.minProbeRows: 0`, so even tiny inputs run on the workers). Then:
 * morsels whose output takes several replies (the follow-up protocol, both output paths),
 * Parquet row groups decoded in the workers, the existence joins' early stop, and the failure
 * paths — an error thrown inside a worker, a memory limit hit by a worker, an abort mid-stream —
 * each a typed error with nothing left reserved in the query's pool (every worker has closed its
 * session, which frees what it held) and the pool serving the next join.
 */
import * as arrow from 'apache-arrow';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { writeSortedParquet } from '../../adapters/datagen/sorted-parquet.ts';
import { CancelledError, ExpressionError, MemoryLimitError } from '../../core/errors.ts';
import { WorkerPool } from '../../core/parallel/worker-pool.ts';
import { Rng } from '../../core/random.ts';
import type { Scan } from '../../core/scan/scan.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { JOIN_TYPES, RANGE_OPS } from '../../core/types.ts';
import { slicedScan } from '../sort-merge-join/test-helpers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REFUSING_SEARCH = './operators/piecewise-merge-join/fixtures/worker-refusing-search.ts';

const engines = new Map<string, Promise<Engine>>();
const engineFor = (config: Record<string, unknown>) => {
  const key = JSON.stringify(config);
  let e = engines.get(key);
  if (e === undefined) engines.set(key, (e = Engine.create(config, { baseDir: ROOT })));
  return e;
};

const KEY_TYPES = ['int32', 'int32-int64', 'float64', 'utf8'] as const;
type KeyType = (typeof KEY_TYPES)[number];

/** `n` rows of key `k` and payload `v`: NULLs, a domain of `domain` values, a hot value with probability `hot`. */
function sideTable(rng: Rng, n: number, type: KeyType, side: 0 | 1, domain: number, hot: number, allNull: boolean): arrow.Table {
  const draw = (): number | null => (allNull || rng.chance(0.15) ? null : rng.chance(hot) ? 3 : rng.int(0, domain));
  let k: arrow.Vector;
  if (type === 'int32' || (type === 'int32-int64' && side === 0)) k = arrow.vectorFromArray(Array.from({ length: n }, draw), new arrow.Int32());
  else if (type === 'int32-int64') k = arrow.vectorFromArray(Array.from({ length: n }, () => { const v = draw(); return v === null ? null : BigInt(v); }), new arrow.Int64());
  else if (type === 'float64') {
    const specials = [-0, 0, Number.NaN, Infinity, -Infinity, 2.5];
    k = arrow.vectorFromArray(Array.from({ length: n }, () => { const v = draw(); return v !== null && rng.chance(0.1) ? specials[rng.int(0, specials.length - 1)]! : v; }), new arrow.Float64());
  } else k = arrow.vectorFromArray(Array.from({ length: n }, () => { const v = draw(); return v === null ? null : `k${String(v).padStart(2, '0')}`; }), new arrow.Utf8());
  const nullPayload = rng.chance(0.3);
  const v = arrow.vectorFromArray(Array.from({ length: n }, (_, i) => (nullPayload && i % 7 === 0 ? null : i * 10 + side)), new arrow.Int32());
  return new arrow.Table({ k, v });
}

/** The rows cut into batches of 1..`max` rows, with empty batches between some of them. */
function slices(table: arrow.Table, rng: Rng, max: number): arrow.RecordBatch[] {
  if (table.numRows === 0) return [];
  const whole = table.batches[0]!; // built from single-chunk vectors: one batch
  const out: arrow.RecordBatch[] = [];
  for (let at = 0; at < whole.numRows; ) {
    if (rng.chance(0.1)) out.push(whole.slice(at, at));
    const n = Math.min(whole.numRows - at, rng.int(1, max));
    out.push(whole.slice(at, at + n));
    at += n;
  }
  return out;
}

afterAll(async () => {
  await WorkerPool.closeAll();
});

describe('piecewise merge join on worker threads', () => {
  // six cases cover every key type, an empty and an all-NULL buffered side; `joinlab parity` draws many more
  const CASES = 6;
  for (let from = 0; from < CASES; from += 3) {
    it(`cases ${from}..${from + 2}: every join type x operator at threads 2 and 4 gives the threads=1 answer and the oracle's`, async () => {
      const oracle = await engineFor({ join: 'nested-loop' });
      for (let c = from; c < from + 3; c++) {
        const rng = new Rng(4242 + c);
        const type = KEY_TYPES[c % KEY_TYPES.length]!;
        const domain = rng.pick([2, 8, 40]);
        const hot = rng.pick([0, 0.5]);
        const emptyBuffered = c % 6 === 5;
        const left = sideTable(rng, emptyBuffered ? 0 : rng.int(1, 90), type, 0, domain, hot, c % 6 === 4);
        const right = sideTable(rng, rng.int(0, 500), type, 1, domain, hot, false);
        const maxBatch = rng.pick([1, 5, 37, 200]);
        const lb = slices(left, rng, maxBatch);
        const rb = slices(right, rng, maxBatch);
        // half the cases through in-memory tables (their scans hand out morsels, pruned by the
        // extreme-key filter), half through scans of exactly those batches, empty ones included
        const tables = c % 2 === 0;
        const input = (t: arrow.Table, b: arrow.RecordBatch[], name: string): arrow.Table | Scan => (tables ? new arrow.Table(t.schema, b) : slicedScan(b, t.schema, name));
        const base = { join: 'piecewise', batchSize: rng.pick([3, 16, 1000]), 'pwmj.search': rng.pick(['binary', 'linear']), 'pwmj.prefilter': rng.chance(0.7), 'pwmj.partitions': rng.int(1, 3) };
        for (const joinType of JOIN_TYPES) {
          for (const op of RANGE_OPS) {
            const spec = toJoinSpec({ type: joinType, range: `k ${op} k` });
            const what = `case ${c} ${type} ${joinType} k ${op} k ${JSON.stringify(base)} maxBatch=${maxBatch}`;
            const expected = (await oracle.join(spec, left, right)).table;
            const single = await (await engineFor({ ...base, threads: 1 })).join(spec, input(left, lb, 'l'), input(right, rb, 'r'));
            const vsOracle = compareResults(single.table, expected);
            expect(vsOracle.equal, `${what}: threads=1 vs oracle\n${formatComparison(vsOracle)}`).toBe(true);
            expect(single.metrics.operators.join!.details.threads).toBe('1');
            for (const threads of c % 2 === 0 ? [2, 4] : [2]) {
              const par = await (await engineFor({ ...base, threads, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 })).join(spec, input(left, lb, 'l'), input(right, rb, 'r'));
              const cmp = compareResults(par.table, expected);
              expect(cmp.equal, `${what}: threads=${threads} vs oracle\n${formatComparison(cmp)}`).toBe(true);
              expect(par.table.batches.every((b) => b.numRows <= base.batchSize), what).toBe(true);
              const d = par.metrics.operators.join!.details;
              const bufferedKeys = (joinType.endsWith('semi') || joinType.endsWith('anti') || joinType.endsWith('mark')) && joinType.startsWith('right') ? right : left;
              const hasKey = bufferedKeys.getChild('k')!.length > bufferedKeys.getChild('k')!.nullCount;
              // the extreme key may prune every streamed container: then nothing reaches a worker
              if (hasKey) expect([String(threads), '1 (nothing to stream: the streamed input is empty or the extreme key pruned every container)'], what).toContain(d.threads);
              else expect(String(d.threads), what).toMatch(/^1 \(no non-NULL buffered key/);
              expect(d.minMarked, what).toBe(single.metrics.operators.join!.details.minMarked);
            }
          }
        }
      }
    }, 240_000);
  }

  it('a streamed input below parallel.minProbeRows stays on the calling thread, and says so', async () => {
    const t = sideTable(new Rng(5), 50, 'int32', 0, 10, 0, false);
    const r = await (await engineFor({ join: 'piecewise', threads: 2 })).join({ type: 'inner', range: 'k < k' }, t, t);
    expect(r.metrics.operators.join!.details.threads).toBe('1 (streamed input of 50 estimated rows, below parallel.minProbeRows=100000)');
  });

  it('a streamed input whose every container the extreme key prunes opens no session and never sorts the buffered side', async () => {
    const buffered = new arrow.Table({ k: arrow.vectorFromArray(Int32Array.from({ length: 1000 }, (_, i) => 5000 + ((i * 37) % 1000))) });
    const streamed = new arrow.Table(Array.from({ length: 10 }, (_, b) => new arrow.RecordBatch({ k: arrow.vectorFromArray(Int32Array.from({ length: 100 }, (_, i) => b * 100 + i)).data[0]! })));
    for (const type of ['inner', 'left', 'left-semi', 'left-anti'] as const) {
      const r = await (await engineFor({ join: 'piecewise', threads: 2, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 })).join({ type, range: 'l.k < r.k' }, buffered, streamed);
      const m = r.metrics.operators.join!;
      expect(m.details.threads, type).toBe('1 (nothing to stream: the streamed input is empty or the extreme key pruned every container)');
      expect(r.metrics.scans.right.containersPruned, type).toBe(10);
      expect(m.details.bufferedSort, type).toMatch(/not needed/);
      expect(m.counters.morsels ?? 0, type).toBe(0);
      expect(r.table.numRows, type).toBe(type === 'left' || type === 'left-anti' ? 1000 : 0);
    }
  });

  /** Rows, and sums of the payloads and of the NULLs in them: an order-free summary of a large output. */
  const fold = (t: arrow.Table) => {
    let sum = 0;
    let nulls = 0;
    for (const b of t.batches) {
      for (const name of ['v', 'v_right']) {
        for (const d of b.getChild(name)?.data ?? []) {
          const values = d.values as Int32Array;
          for (let i = 0; i < d.length; i++) {
            if (d.getValid(i)) sum += values[d.offset + i]!;
            else nulls++;
          }
        }
      }
    }
    return { rows: t.numRows, sum, nulls };
  };

  it('morsels whose output takes several replies, interleaved in a worker, keep their own partition state (runs and gathered output)', async () => {
    // 4 streamed batches of 3000 rows against 1000 buffered rows, `<`, about half the pairs
    // match: ~1.5M pairs (12 MB) a morsel, past a reply's 8 MB, so each worker drains a morsel
    // over several replies while its second one is open
    const rng = new Rng(99);
    const table = (n: number, nullPayload: boolean) =>
      new arrow.Table({
        k: arrow.vectorFromArray(Int32Array.from({ length: n }, () => rng.int(0, 1000))),
        v: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => (nullPayload && i % 5 === 0 ? null : i % 1000)), new arrow.Int32()),
      });
    for (const nullPayload of [false, true]) {
      const buffered = table(1000, nullPayload);
      const streamed = table(12_000, false);
      const streamedBatches = new arrow.Table(streamed.schema, [0, 1, 2, 3].map((b) => streamed.batches[0]!.slice(b * 3000, b * 3000 + 3000)));
      for (const type of ['inner', 'full'] as const) {
        const spec = { type, range: 'l.k < r.k' };
        const serial = await (await engineFor({ join: 'piecewise', threads: 1 })).join(spec, buffered, streamedBatches);
        const r = await (await engineFor({ join: 'piecewise', threads: 2, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 })).join(spec, buffered, streamedBatches);
        const m = r.metrics.operators.join!;
        expect(m.details.threads).toBe('2');
        expect(m.counters.morselReplies!, `${type} nullPayload=${nullPayload}`).toBeGreaterThan(m.counters.morsels!);
        expect((m.counters.runBatches ?? 0) > 0, 'runs only without NULLs in the output').toBe(!nullPayload);
        expect(fold(r.table), `${type} nullPayload=${nullPayload}`).toEqual(fold(serial.table));
      }
    }
  }, 120_000);

  it('Parquet row groups are decoded in the workers, and the answer is the single-threaded one', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pwmj-parallel-'));
    try {
      const rng = new Rng(7);
      const n = 6000;
      const streamed = new arrow.Table({
        id: arrow.vectorFromArray(Int32Array.from({ length: n }, (_, i) => i)),
        k: arrow.vectorFromArray(Array.from({ length: n }, () => (rng.chance(0.1) ? null : rng.int(0, 5000))), new arrow.Int32()),
        v: arrow.vectorFromArray(Int32Array.from({ length: n }, (_, i) => i % 100)),
      });
      const file = path.join(dir, 'streamed.parquet');
      await writeSortedParquet(file, streamed, [{ column: 'id' }], { rowGroupSize: 500 });
      const buffered = new arrow.Table({ k: arrow.vectorFromArray(Int32Array.from({ length: 300 }, () => rng.int(2000, 6000))), w: arrow.vectorFromArray(Int32Array.from({ length: 300 }, (_, i) => i)) });
      for (const type of ['inner', 'right', 'left-semi', 'left-anti', 'left-mark'] as const) {
        const spec = toJoinSpec({ type, range: 'l.k < r.k' });
        const serial = await (await engineFor({ join: 'piecewise', threads: 1 })).join(spec, buffered, file);
        const r = await (await engineFor({ join: 'piecewise', threads: 2, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 })).join(spec, buffered, file);
        expect(r.metrics.operators.join!.details.threads, type).toBe('2');
        expect(r.metrics.operators.join!.counters.morselsDecodedByWorkers ?? 0, type).toBeGreaterThan(0);
        const cmp = compareResults(r.table, serial.table);
        expect(cmp.equal, `${type}\n${formatComparison(cmp)}`).toBe(true);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('an existence join stops reading the streamed side once every buffered row is marked', async () => {
    // the first streamed batch holds a key above every buffered one: for `l.k < r.k` it marks all
    const buffered = new arrow.Table({ k: arrow.vectorFromArray(Int32Array.from({ length: 1000 }, (_, i) => i)) });
    const batches = Array.from({ length: 100 }, (_, b) => new arrow.RecordBatch({ k: arrow.vectorFromArray(Int32Array.from({ length: 200 }, (_, i) => (b === 0 && i === 0 ? 10_000 : (b * 7 + i) % 500))).data[0]! }));
    const streamed = new arrow.Table(batches);
    for (const type of ['left-semi', 'left-anti', 'left-mark'] as const) {
      const r = await (await engineFor({ join: 'piecewise', threads: 2, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 })).join({ type, range: 'l.k < r.k' }, buffered, streamed);
      expect(r.metrics.operators.join!.details.threads).toBe('2');
      expect(r.table.numRows).toBe(type === 'left-anti' ? 0 : 1000);
      expect(r.metrics.operators.join!.details.minMarked).toBe('0 of 1000 non-NULL buffered keys');
      // the morsels already in flight finish (two per worker), and nothing more is read
      expect(r.metrics.scans.right.containersTotal, type).toBeLessThan(20);
    }
  });

  // 200K streamed rows (four morsels) in [4990, 5100) against buffered keys 0, 5, …, 4995: for
  // `l.k > r.k` a few streamed rows match one buffered row each (a small answer from big morsels)
  const bigStreamed = new arrow.Table({
    k: arrow.vectorFromArray(Int32Array.from({ length: 200_000 }, (_, i) => 4990 + ((i * 7919) % 110))),
    v: arrow.vectorFromArray(Int32Array.from({ length: 200_000 }, (_, i) => i)),
  });
  const smallBuffered = new arrow.Table({ k: arrow.vectorFromArray(Int32Array.from({ length: 1000 }, (_, i) => i * 5)), v: arrow.vectorFromArray(Int32Array.from({ length: 1000 }, (_, i) => i)) });

  /** Runs the join to its end through `Engine.stream`; the error (or null) and the pool's bytes still reserved after it. */
  async function drain(engine: Engine, spec: Parameters<Engine['stream']>[0], left: arrow.Table, right: arrow.Table, onBatch?: (n: number) => void, signal?: AbortSignal) {
    const s = await engine.stream(spec, left, right, { signal });
    let batches = 0;
    let error: unknown = null;
    try {
      for await (const _ of s.batches) onBatch?.(++batches);
    } catch (e) {
      error = e;
    }
    return { error, batches, reserved: s.pool.reserved };
  }

  it('an error thrown inside a worker reaches the caller as the same typed error; nothing stays reserved, and the pool serves the next join', async () => {
    const spec = { type: 'left' as const, range: 'l.k > r.k' };
    const config = { join: 'piecewise', extensions: [REFUSING_SEARCH], 'pwmj.search': 'test-refused-on-workers' };
    // the same search at threads=1 runs (on the main thread) and gives the answer
    const serial = await (await engineFor({ ...config, threads: 1 })).join(spec, smallBuffered, bigStreamed);
    expect(serial.table.numRows).toBeGreaterThan(0);
    for (const threads of [2, 4]) {
      const r = await drain(await engineFor({ ...config, threads, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 }), spec, smallBuffered, bigStreamed);
      expect(r.error, `threads=${threads}`).toBeInstanceOf(ExpressionError);
      expect((r.error as Error).message).toMatch(/refused on a worker thread/);
      expect(r.reserved, 'every worker closed its session and freed what it held').toBe(0);
    }
    const ok = await (await engineFor({ join: 'piecewise', threads: 2, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 })).join(spec, smallBuffered, bigStreamed);
    expect(fold(ok.table)).toEqual(fold(serial.table));
  });

  it('a memory limit hit inside a worker is a MemoryLimitError naming the worker; nothing stays reserved', async () => {
    // the buffered side (1000 rows) fits in 1 MB on the main thread; a worker's scratch for a
    // 65,536-row morsel (the batch, its key, the mask, numbers and rows: ~1.6 MB) does not
    const engine = await engineFor({ join: 'piecewise', threads: 2, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0, memoryLimit: 1 << 20 });
    for (const type of ['inner', 'left-semi'] as const) {
      const r = await drain(engine, { type, range: 'l.k > r.k' }, smallBuffered, bigStreamed);
      expect(r.error, type).toBeInstanceOf(MemoryLimitError);
      expect((r.error as MemoryLimitError).consumer, type).toMatch(/piecewise merge join streamed partition.*\(worker \d\)/);
      expect((r.error as MemoryLimitError).limit).toBe(1 << 20);
      expect(r.reserved, type).toBe(0);
    }
  });

  it('an abort mid-stream stops the join with a CancelledError, no hang; nothing stays reserved, and the pool serves the next join', async () => {
    const engine = await engineFor({ join: 'piecewise', threads: 2, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0, batchSize: 256 });
    const spec = { type: 'inner' as const, range: 'l.k > r.k' };
    const controller = new AbortController();
    const r = await drain(engine, spec, smallBuffered, bigStreamed, (n) => n === 3 && controller.abort(), controller.signal);
    expect(r.error).toBeInstanceOf(CancelledError);
    expect(r.batches).toBe(3);
    expect(r.reserved).toBe(0);
    const serial = await (await engineFor({ join: 'piecewise', threads: 1 })).join(spec, smallBuffered, bigStreamed);
    const ok = await engine.join(spec, smallBuffered, bigStreamed);
    expect(fold(ok.table)).toEqual(fold(serial.table));
  }, 120_000);
});
