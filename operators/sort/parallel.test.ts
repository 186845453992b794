/**
 * The sort on worker threads (parallel.ts) against the single-threaded sort, row for row: every
 * key type x direction x NULL placement (floats with -0.0 / NaN, strings, dictionaries, a second
 * key), inputs cut into batches of random sizes, tiny output batch sizes — the same rows in the
 * same order (stable: the inputs' `rid` column says so). Then under memory limits (spilling, or a
 * typed MemoryLimitError, never anything else; no spill file and no reservation left), an abort
 * while the input is read (a CancelledError, or the abort's own reason), a sort closed before it
 * is read, and a scan that fails mid-way.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Float32, Float64, Int64, RecordBatch, Table, makeData, makeVector, vectorFromArray, type Vector } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { LOGICAL_TYPES, randomColumn, type ColumnGen, type LogicalType } from '../../adapters/datagen/random-tables.ts';
import { CancelledError, CorruptFileError, MemoryLimitError } from '../../core/errors.ts';
import { MemoryPool } from '../../core/memory/pool.ts';
import { SpillManager } from '../../core/memory/spill.ts';
import { newScanMetrics } from '../../core/metrics.ts';
import { WorkerPool } from '../../core/parallel/worker-pool.ts';
import { Rng } from '../../core/random.ts';
import type { Scan } from '../../core/scan/scan.ts';
import { MemoryScan } from '../memory-scan/memory-scan.ts';
import { takeRows } from '../../core/scan/batch-shape.ts';
import { ParallelSort } from './parallel.ts';
import { newSortMetrics, sortScan, type SortKey } from './sort.ts';

const root = mkdtempSync(join(tmpdir(), 'joinlab-psort-'));
let dirs = 0;
const spillIn = () => new SpillManager({ parentDir: join(root, `case-${dirs++}`) });
/** Spill files left anywhere under this test's directory (every case spills there). */
const anyFiles = () => readdirSync(root, { recursive: true }).map(String).filter((f) => f.endsWith('.arrows'));

let workers: WorkerPool;
let workers4: WorkerPool;
beforeAll(async () => {
  workers = (await Engine.create({ threads: 2 })).workers()!;
  workers4 = (await Engine.create({ threads: 4 })).workers()!;
  await Promise.all([workers.ready(), workers4.ready()]);
});
afterAll(async () => {
  await WorkerPool.closeAll();
  rmSync(root, { recursive: true, force: true });
});

/** `table`'s rows as batches of random sizes in [1, maxRows], each its own copy, with empty ones between some. */
function cut(table: Table, rng: Rng, maxRows: number): RecordBatch[] {
  const whole = table.batches.length === 1 ? table.batches[0]! : new Table(table.schema, table.batches).batches[0]!;
  const batches: RecordBatch[] = [];
  for (let start = 0; start < table.numRows; ) {
    if (rng.chance(0.1)) batches.push(whole.slice(start, start));
    const n = Math.min(rng.int(1, maxRows), table.numRows - start);
    batches.push(takeRows(whole, Int32Array.from({ length: n }, (_, i) => start + i)));
    start += n;
  }
  return batches;
}

/** A scan over exactly `batches` that runs `hook(i)` before yielding batch i (to throw or abort). */
function scanOf(batches: readonly RecordBatch[], table: Table, hook: (i: number) => void = () => {}): Scan {
  return {
    source: 'memory:psort',
    schema: table.schema,
    numRows: table.numRows,
    numContainers: batches.length,
    metrics: newScanMetrics(),
    async *batches() {
      let i = 0;
      for (const b of batches) {
        hook(i++);
        yield b;
      }
    },
  };
}

const SPECIAL_FLOATS = [-Infinity, -1.5, -0, 0, 0.5, 2, Infinity, NaN];

function specialFloats(rng: Rng, n: number, type: 'float32' | 'float64'): Vector {
  const values = new (type === 'float32' ? Float32Array : Float64Array)(n);
  const valid = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    values[i] = rng.pick(SPECIAL_FLOATS);
    if (rng.chance(0.15)) nulls++;
    else valid[i >> 3]! |= 1 << (i & 7);
  }
  return makeVector(makeData({ type: type === 'float32' ? new Float32() : new Float64(), length: n, nullCount: nulls, nullBitmap: valid, data: values }));
}

type KeyType = LogicalType | 'float32-special' | 'float64-special';
const KEY_TYPES: readonly KeyType[] = [...LOGICAL_TYPES, 'float32-special', 'float64-special'];

function keyTable(rng: Rng, t: KeyType, n: number, second?: LogicalType): Table {
  const k = t === 'float32-special' || t === 'float64-special' ? specialFloats(rng, n, t === 'float32-special' ? 'float32' : 'float64') : randomColumn(rng, { name: 'k', type: t, domain: rng.pick([3, 20, 200]), nullRate: 0.2, skew: rng.pick([0, 0.5]) }, n);
  const payload: ColumnGen = { name: 'p', type: 'utf8', domain: 1000, nullRate: 0.1 };
  return new Table({
    k,
    ...(second ? { k2: randomColumn(rng, { name: 'k2', type: second, domain: 5, nullRate: 0.2 }, n) } : {}),
    p: randomColumn(rng, payload, n),
    v: vectorFromArray(Array.from({ length: n }, (_, i) => BigInt(i) * 7919n - 1000n), new Int64()),
    rid: makeVector(Int32Array.from({ length: n }, (_, i) => i)),
  });
}

const rids = (batches: readonly RecordBatch[]) => batches.flatMap((b) => Array.from(b.getChild('rid')!.toArray() as Int32Array));

async function serial(scan: Scan, keys: readonly SortKey[], batchSize: number): Promise<RecordBatch[]> {
  const out: RecordBatch[] = [];
  for await (const b of sortScan(scan, keys, { pool: new MemoryPool(Infinity), batchSize })) out.push(b);
  return out;
}

async function parallel(scan: Scan, keys: readonly SortKey[], batchSize: number, o: { pool?: MemoryPool; spill?: SpillManager; signal?: AbortSignal; pool4?: boolean } = {}) {
  const metrics = newSortMetrics();
  const sort = new ParallelSort(scan, keys, { pool: o.pool ?? new MemoryPool(Infinity), batchSize, metrics, spill: o.spill, signal: o.signal, workers: o.pool4 ? workers4 : workers });
  const batches: RecordBatch[] = [];
  for await (const b of sort.batches()) batches.push(b);
  return { batches, metrics, sort };
}

describe('sort on worker threads vs the single-threaded sort', () => {
  it('every key type x direction x NULL placement: the same rows in the same order, batchSize batches', async () => {
    const rng = new Rng(1515_2026);
    let c = 0;
    for (const t of KEY_TYPES) {
      for (const descending of [false, true]) {
        for (const nullsFirst of [false, true]) {
          const n = rng.int(200, 700);
          const second = c % 3 === 0 ? rng.pick(LOGICAL_TYPES) : undefined;
          const table = keyTable(rng, t, n, second);
          const batches = cut(table, rng, rng.pick([1, 16, 100]));
          const keys: SortKey[] = [{ column: 'k', descending, nullsFirst }];
          if (second) keys.push({ column: 'k2', descending: rng.chance(0.5), nullsFirst: rng.chance(0.5) });
          const batchSize = c % 8 === 5 ? 1 : rng.pick([7, 100, 8192]);
          const label = `case ${c}: ${t} ${descending ? 'DESC' : 'ASC'} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}${second ? ` + k2 ${second}` : ''}; ${n} rows in ${batches.length} batches, batchSize ${batchSize}`;
          const want = rids(await serial(scanOf(batches, table), keys, batchSize));
          const got = await parallel(scanOf(batches, table), keys, batchSize, { pool4: c % 2 === 1 });
          expect(rids(got.batches).join(), label).toBe(want.join());
          expect(got.batches.every((b, i) => b.numRows === (i < got.batches.length - 1 ? batchSize : n - batchSize * i)), label).toBe(true);
          expect(got.metrics.workerRuns, label).toBeGreaterThan(1);
          expect(got.metrics.runsSpilled, label).toBe(0);
          expect(got.metrics.rows, label).toBe(n);
          c++;
        }
      }
    }
  }, 300_000);

  it('an empty input yields nothing; one batch of one row yields it', async () => {
    const table = keyTable(new Rng(3), 'int32', 1);
    expect((await parallel(scanOf([], table), [{ column: 'k' }], 10)).batches).toEqual([]);
    expect((await parallel(scanOf([table.batches[0]!.slice(0, 0)], table), [{ column: 'k' }], 10)).batches).toEqual([]);
    expect(rids((await parallel(scanOf(table.batches, table), [{ column: 'k' }], 10)).batches)).toEqual([0]);
  });

  it('under memory limits: the same order (spilled when the runs do not fit) or a typed MemoryLimitError; nothing left behind', async () => {
    const rng = new Rng(99);
    const table = keyTable(rng, 'utf8', 3000, 'int32');
    const batches = cut(table, rng, 64);
    const keys: SortKey[] = [{ column: 'k', descending: true }, { column: 'k2' }];
    const want = rids(await serial(scanOf(batches, table), keys, 50)).join();
    const inMemory = await parallel(scanOf(batches, table), keys, 50);
    const peak = inMemory.metrics.peakReservedBytes;
    let spilled = 0;
    let refused = 0;
    for (const share of [0.9, 0.5, 0.3, 0.15, 0.08, 0.02, 0.001]) {
      const pool = new MemoryPool(Math.floor(peak * share));
      const spill = spillIn();
      try {
        const got = await parallel(scanOf(batches, table), keys, 50, { pool, spill });
        expect(rids(got.batches).join(), `share ${share}`).toBe(want);
        expect(got.metrics.peakReservedBytes, `share ${share}`).toBeLessThanOrEqual(pool.limit);
        if (got.metrics.runsSpilled > 0) {
          spilled++;
          expect(got.sort.describe()).toMatch(/spilled past the memory limit/);
        }
      } catch (e) {
        expect(e, `share ${share}: ${(e as Error).message}`).toBeInstanceOf(MemoryLimitError);
        refused++;
      }
      expect(anyFiles(), `share ${share}`).toEqual([]);
      expect(pool.reserved, `share ${share}`).toBe(0);
      await spill.close();
    }
    expect(spilled).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    expect(anyFiles()).toEqual([]);
  }, 120_000);

  it('an abort while the input is read: a CancelledError (or the reason given), no hang, nothing left; the pool serves the next sort', async () => {
    const rng = new Rng(5);
    const table = keyTable(rng, 'int64', 4000);
    const batches = cut(table, rng, 40);
    for (const reason of [undefined, new Error('stop (input)')]) {
      for (const limited of [false, true]) {
        const ac = new AbortController();
        const pool = new MemoryPool(limited ? 60_000 : Infinity);
        const spill = spillIn();
        const scan = scanOf(batches, table, (i) => {
          if (i === 60) ac.abort(reason);
        });
        const err = await parallel(scan, [{ column: 'k' }], 100, { pool, spill, signal: ac.signal }).catch((e: unknown) => e);
        if (reason === undefined) expect(err).toBeInstanceOf(CancelledError);
        else expect(err).toBe(reason);
        expect(anyFiles()).toEqual([]);
        expect(pool.reserved).toBe(0);
        await spill.close();
      }
    }
    const ok = await parallel(scanOf(batches, table), [{ column: 'k' }], 100);
    expect(ok.metrics.rows).toBe(4000);
  });

  it('a sort started and closed without being read, and a scan that fails mid-way: nothing left', async () => {
    const rng = new Rng(6);
    const table = keyTable(rng, 'int32', 3000);
    const batches = cut(table, rng, 30);
    const pool = new MemoryPool(40_000); // small: runs are spilled before the sort is closed
    const spill = spillIn();
    const sort = new ParallelSort(scanOf(batches, table), [{ column: 'k' }], { pool, batchSize: 64, spill, workers });
    sort.start();
    await new Promise((r) => setTimeout(r, 50));
    await sort.close();
    expect(anyFiles()).toEqual([]);
    expect(pool.reserved).toBe(0);
    const failing = scanOf(batches, table, (i) => {
      if (i === 70) throw new CorruptFileError('memory:psort', 'batch 71 is broken (simulated)');
    });
    await expect(parallel(failing, [{ column: 'k' }], 64, { pool, spill })).rejects.toThrow(/batch 71 is broken/);
    expect(anyFiles()).toEqual([]);
    expect(pool.reserved).toBe(0);
    await spill.close();
  });
});

