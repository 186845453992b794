/**
 * The external sort against DuckDB's ORDER BY: every key type (ints of every width, floats with
 * -0.0/NaN/±inf, strings, large strings, binary, dictionary strings, decimal, date, timestamps of
 * every unit, boolean) x ASC/DESC x NULLS FIRST/LAST, under memory limits small enough that the
 * input is written as several sorted runs — from one row to hundreds — and, at the smallest
 * limits, more runs than one merge can read (multi-pass). The rows must come out in DuckDB's
 * `ORDER BY k …, rid` order (stability) with every value intact, and the spill directory must be
 * empty afterwards: after success, after an error (a source scan that throws, a key column that
 * turns out wrong mid-way, a spill write that fails), after an abort and after a consumer that
 * stops early. Metrics count runs and bytes; the pool's peak stays within the limit.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Float32, Float64, Int32, Int64, RecordBatch, Table, Utf8, makeData, makeVector, vectorFromArray, type Schema, type Vector } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { LOGICAL_TYPES, randomColumn, type ColumnGen, type LogicalType } from '../../adapters/datagen/random-tables.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { CorruptFileError, MemoryLimitError, UnsupportedTypeError } from '../../core/errors.ts';
import { MemoryPool } from '../../core/memory/pool.ts';
import { SpillManager, type SpillFile, type SpillWriter } from '../../core/memory/spill.ts';
import { Rng } from '../../core/random.ts';
import { newScanMetrics } from '../../core/metrics.ts';
import type { Scan } from '../../core/scan/scan.ts';
import { MemoryScan } from '../memory-scan/memory-scan.ts';
import { takeRows } from '../../core/scan/batch-shape.ts';
import { formatSortKeys, parseSortKeys } from './keys.ts';
import { newSortMetrics, sortScan, type SortKey, type SortMetrics } from './sort.ts';

const root = mkdtempSync(join(tmpdir(), 'joinlab-xsort-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A spill manager in its own directory that records every file it finishes (and can fail on purpose). */
class RecordingSpill extends SpillManager {
  readonly finished: SpillFile[] = [];
  appends = 0;
  constructor(
    readonly parent: string,
    readonly failAtAppend = Infinity,
  ) {
    super({ parentDir: parent });
  }
  override writer(schema: Schema): SpillWriter {
    const w = super.writer(schema);
    return {
      append: async (b) => {
        if (++this.appends >= this.failAtAppend) throw new Error('disk full (simulated)');
        await w.append(b);
      },
      finish: async () => {
        const f = await w.finish();
        this.finished.push(f);
        return f;
      },
      abort: () => w.abort(),
    };
  }
}

let dirs = 0;
function spillIn(failAtAppend?: number): RecordingSpill {
  const parent = join(root, `case-${dirs++}`);
  return new RecordingSpill(parent, failAtAppend);
}
/** Spill files left under the spill manager's parent directory. */
function leftovers(s: RecordingSpill): string[] {
  try {
    return readdirSync(s.parent, { recursive: true }).map(String).filter((f) => f.endsWith('.arrows'));
  } catch {
    return [];
  }
}

/** `table`'s rows as batches of random sizes in [1, maxRows], each its own copy (no shared buffers). */
function cut(table: Table, rng: Rng, maxRows: number): Table {
  const whole = table.batches.length === 1 ? table.batches[0]! : new Table(table.schema, table.batches).batches[0]!;
  const batches: RecordBatch[] = [];
  for (let start = 0; start < table.numRows; ) {
    const n = Math.min(rng.int(1, maxRows), table.numRows - start);
    batches.push(takeRows(whole, Int32Array.from({ length: n }, (_, i) => start + i)));
    start += n;
  }
  return new Table(table.schema, batches);
}

const SPECIAL_FLOATS = [-Infinity, -1.5, -0, 0, 0.5, 2, Infinity, NaN];

/** Floats drawn from -inf, -1.5, -0.0, 0.0, 0.5, 2, +inf, NaN and NULL. */
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

function keyColumn(rng: Rng, t: KeyType, n: number): Vector {
  if (t === 'float32-special') return specialFloats(rng, n, 'float32');
  if (t === 'float64-special') return specialFloats(rng, n, 'float64');
  return randomColumn(rng, { name: 'k', type: t, domain: rng.pick([3, 20, 200]), nullRate: 0.2, skew: rng.pick([0, 0.5]) }, n);
}

/** A table with key `k` (and maybe `k2`), payload columns and `rid` (the input position). */
function keyTable(rng: Rng, t: KeyType, n: number, second?: LogicalType): Table {
  const payload: ColumnGen = { name: 'p', type: 'utf8', domain: 1000, nullRate: 0.1 };
  return new Table({
    k: keyColumn(rng, t, n),
    ...(second ? { k2: randomColumn(rng, { name: 'k2', type: second, domain: 5, nullRate: 0.2 }, n) } : {}),
    p: randomColumn(rng, payload, n),
    v: vectorFromArray(Array.from({ length: n }, (_, i) => BigInt(i) * 7919n - 1000n), new Int64()),
    rid: makeVector(Int32Array.from({ length: n }, (_, i) => i)),
  });
}

interface Sorted {
  table: Table;
  batches: RecordBatch[];
  metrics: SortMetrics;
  pool: MemoryPool;
}

async function sortWith(scan: Scan, keys: readonly SortKey[], batchSize: number, pool: MemoryPool, spill?: SpillManager, signal?: AbortSignal): Promise<Sorted> {
  const metrics = newSortMetrics();
  const batches: RecordBatch[] = [];
  for await (const b of sortScan(scan, keys, { pool, batchSize, metrics, spill, signal })) batches.push(b);
  return { table: new Table(scan.schema, batches), batches, metrics, pool };
}

function orderBy(keys: readonly SortKey[]): string {
  return [...keys.map((k) => `"${k.column}" ${k.descending ? 'DESC' : 'ASC'} NULLS ${k.nullsFirst ? 'FIRST' : 'LAST'}`), 'rid'].join(', ');
}

const rids = (t: Table) => (t.numRows === 0 ? [] : Array.from(t.getChild('rid')!.toArray() as Int32Array));

describe('external sort vs DuckDB ORDER BY …, rid (every key type x direction x NULL placement)', () => {
  let duck: DuckDBSession;
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
  });
  afterAll(() => duck?.close());

  it('spills runs, merges them (multi-pass at the smallest limits) and matches DuckDB', async () => {
    const rng = new Rng(20261111);
    const runRows: number[] = [];
    let multiPass = 0;
    let onePass = 0;
    let c = 0;
    for (const t of KEY_TYPES) {
      for (const descending of [false, true]) {
        for (const nullsFirst of [false, true]) {
          const n = rng.int(300, 800);
          const second = c % 3 === 0 ? rng.pick(LOGICAL_TYPES) : undefined;
          const table = cut(keyTable(rng, t, n, second), rng, rng.pick([1, 16, 100]));
          const keys: SortKey[] = [{ column: 'k', descending, nullsFirst }];
          if (second) keys.push({ column: 'k2', descending: rng.chance(0.5), nullsFirst: rng.chance(0.5) });
          const batchSize = c % 8 === 5 ? 1 : rng.pick([7, 100]);
          // the limit: a fraction of what sorting in memory reserves (at most 60%), so there are
          // several runs, and at least 40 KB (below that, runs are written in batches of a few rows, each costing its
          // JS objects, and the test only gets slower) — raised while it is below what merging two
          // runs into a batchSize batch needs (the planner's up-front refusal; any later refusal
          // fails the test)
          const inMemory = await sortWith(new MemoryScan(table, 't'), keys, batchSize, new MemoryPool(Infinity));
          const peak = inMemory.metrics.peakReservedBytes;
          let limit = Math.min(Math.floor(peak * 0.6), Math.max(40_000, Math.floor(peak / [3, 8, 20][c % 3]!)));
          let spill = spillIn();
          let pool = new MemoryPool(limit);
          const label = (): string => `case ${c}: ${t} ${descending ? 'DESC' : 'ASC'} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}${second ? ` + k2 ${second}` : ''}; ${n} rows in ${table.batches.length} batches, batchSize ${batchSize}, memoryLimit ${limit}`;
          let got: Sorted | null = null;
          while (got === null) {
            try {
              got = await sortWith(new MemoryScan(table, 't'), keys, batchSize, pool, spill);
            } catch (err) {
              expect(leftovers(spill), label()).toEqual([]);
              expect(pool.reserved, label()).toBe(0);
              if (!(err instanceof MemoryLimitError && /^sort (merge|input) \(/.test(err.consumer))) throw new Error(`${label()}: ${(err as Error).message}`, { cause: err });
              limit = Math.min(Math.ceil(limit * 1.25), Math.floor(peak * 0.9));
              await spill.close();
              spill = spillIn();
              pool = new MemoryPool(limit);
            }
          }
          const sorted: Sorted = got;
          await duck.loadTable('t', table);
          const want = await duck.query(`SELECT * FROM t ORDER BY ${orderBy(keys)}`);
          expect(rids(sorted.table).join(), label()).toBe(rids(want).join());
          expect(rids(sorted.table).join(), `${label()}: same order as in memory`).toBe(rids(inMemory.table).join());
          const cmp = compareResults(sorted.table, want);
          if (!cmp.equal) expect.fail(`${label()}\n${formatComparison(cmp)}`);
          expect(sorted.batches.every((b, i) => b.numRows === (i < sorted.batches.length - 1 ? batchSize : n - batchSize * i)), label()).toBe(true);
          const m = sorted.metrics;
          expect(m.rows, label()).toBe(n);
          expect(m.runsSpilled, label()).toBeGreaterThan(1);
          expect(m.bytesSpilled, label()).toBe(spill.finished.reduce((s, f) => s + f.bytes, 0));
          expect(spill.finished.length, label()).toBe(m.runsSpilled + m.mergedRuns);
          expect(m.peakReservedBytes, label()).toBeLessThanOrEqual(limit);
          expect(pool.reserved, label()).toBe(0);
          expect(leftovers(spill), label()).toEqual([]);
          // dictionaries of merged batches are cut to what their rows use
          for (const b of sorted.batches) for (const d of b.data.children) if (d.dictionary) expect(d.dictionary.length, label()).toBeLessThanOrEqual(Math.max(b.numRows, 1));
          runRows.push(...spill.finished.slice(0, m.runsSpilled).map((f) => f.rows));
          if (m.mergedRuns > 0) multiPass++;
          else onePass++;
          await spill.close();
          c++;
        }
      }
    }
    await duck.run('DROP TABLE t');
    expect(c).toBe(KEY_TYPES.length * 4);
    expect(multiPass, 'cases merged in several passes').toBeGreaterThan(10);
    expect(onePass, 'cases merged in one pass').toBeGreaterThan(10);
    expect(Math.min(...runRows), 'smallest run').toBeLessThan(20); // (a 1-row run: the next test)
    expect(Math.max(...runRows), 'largest run').toBeGreaterThan(100);
  });

  it('a run of one row beside runs of many (a 1-row batch that does not fit beside the next one)', async () => {
    // wide rows, so a batch's data outweighs its JS objects: the 1-row batch is spilled alone
    // when the 60-row batch after it does not fit beside it (that batch then goes in as it is, or
    // in slices). The window of such limits is narrow (the merge must fit too), so the test looks
    // for it, in 1 KB steps.
    const rng = new Rng(5);
    const n = 241;
    const whole = new Table({
      k: randomColumn(rng, { name: 'k', type: 'int32', domain: 50, nullRate: 0.2 }, n),
      p: vectorFromArray(Array.from({ length: n }, (_, i) => `${i}`.padEnd(1000, '.')), new Utf8()),
      rid: makeVector(Int32Array.from({ length: n }, (_, i) => i)),
    }).batches[0]!;
    const batches = [takeRows(whole, Int32Array.of(0))];
    for (let s = 1; s < n; s += 60) batches.push(takeRows(whole, Int32Array.from({ length: 60 }, (_, i) => s + i)));
    const table = new Table(whole.schema, batches);
    const keys: SortKey[] = [{ column: 'k', descending: true }];
    const inMemory = await sortWith(new MemoryScan(table, 't'), keys, 4, new MemoryPool(Infinity));
    let found: number[] | null = null;
    for (let limit = 60_000; found === null && limit < 200_000; limit += 1000) {
      const spill = spillIn();
      const got = await sortWith(new MemoryScan(table, 't'), keys, 4, new MemoryPool(limit), spill).catch((e: unknown) => {
        if (e instanceof MemoryLimitError) return null;
        throw e;
      });
      const runs = spill.finished.slice(0, got?.metrics.runsSpilled ?? 0).map((f) => f.rows);
      if (got !== null && runs[0] === 1) {
        expect(rids(got.table)).toEqual(rids(inMemory.table));
        found = runs;
      }
      expect(leftovers(spill)).toEqual([]);
      await spill.close();
    }
    expect(found?.[0]).toBe(1);
    expect(found!.reduce((a, b) => a + b, 0)).toBe(n);
    expect(Math.max(...found!)).toBeGreaterThanOrEqual(40);
  });
});

/** A scan over `table` that runs `hook(i)` before yielding batch i (to throw, abort, or swap the batch). */
function hookedScan(table: Table, hook: (i: number, b: RecordBatch) => RecordBatch): Scan {
  return {
    source: 'memory:hooked',
    schema: table.schema,
    numRows: table.numRows,
    numContainers: table.batches.length,
    metrics: newScanMetrics(),
    async *batches() {
      let i = 0;
      for (const b of table.batches) yield hook(i++, b);
    },
  };
}

describe('external sort: clean-up, errors, cancellation, limits', () => {
  const rng = new Rng(77);
  const table = cut(keyTable(rng, 'utf8', 600), rng, 10);
  const keys: SortKey[] = [{ column: 'k' }, { column: 'rid', descending: true }];
  let limit = 0;
  beforeAll(async () => {
    const inMemory = await sortWith(new MemoryScan(table, 't'), keys, 32, new MemoryPool(Infinity));
    limit = Math.floor(inMemory.metrics.peakReservedBytes / 8);
  });

  it('a source scan that throws after some runs were spilled: the error, and nothing left', async () => {
    const spill = spillIn();
    const pool = new MemoryPool(limit);
    const scan = hookedScan(table, (i, b) => {
      if (i === 40) throw new CorruptFileError('memory:hooked', 'batch 41 is broken (simulated)');
      return b;
    });
    await expect(sortWith(scan, keys, 32, pool, spill)).rejects.toThrow(/batch 41 is broken/);
    expect(spill.finished.length).toBeGreaterThan(1);
    expect(leftovers(spill)).toEqual([]);
    expect(pool.reserved).toBe(0);
    await spill.close();
    expect(readdirSync(spill.parent)).toEqual([]); // the directory too, once its manager is closed
  });

  it('a key column that turns out wrong mid-way is a typed error, and nothing is left', async () => {
    const spill = spillIn();
    const pool = new MemoryPool(limit);
    const bad = new Table({ k: vectorFromArray([1, 2], new Int32()), p: vectorFromArray(['a', 'b']), v: vectorFromArray([1n, 2n], new Int64()), rid: vectorFromArray([0, 1], new Int32()) }).batches[0]!;
    const scan = hookedScan(table, (i, b) => (i === 45 ? bad : b));
    const err = await sortWith(scan, keys, 32, pool, spill).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsupportedTypeError);
    expect((err as Error).message).toMatch(/column 'k' has type Int32.*batch 46 of memory:hooked.*says Utf8/);
    expect(spill.finished.length).toBeGreaterThan(1);
    expect(leftovers(spill)).toEqual([]);
    expect(pool.reserved).toBe(0);
    await spill.close();
  });

  it('a spill write that fails (disk full) removes its partial file and every run before it', async () => {
    const spill = spillIn(12);
    const pool = new MemoryPool(limit);
    await expect(sortWith(new MemoryScan(table, 't'), keys, 32, pool, spill)).rejects.toThrow(/disk full/);
    expect(spill.finished.length).toBeGreaterThan(0);
    expect(leftovers(spill)).toEqual([]);
    expect(pool.reserved).toBe(0);
    await spill.close();
  });

  it('an abort while reading the input, and one while merging: the abort reason, nothing left', async () => {
    for (const when of ['input', 'merge'] as const) {
      const spill = spillIn();
      const pool = new MemoryPool(limit);
      const ac = new AbortController();
      const scan = hookedScan(table, (i, b) => {
        if (when === 'input' && i === 30) ac.abort(new Error('stop (input)'));
        return b;
      });
      const it = sortScan(scan, keys, { pool, batchSize: 32, spill, signal: ac.signal });
      if (when === 'input') await expect(it.next()).rejects.toThrow(/stop \(input\)/);
      else {
        expect((await it.next()).done).toBe(false);
        ac.abort(new Error('stop (merge)'));
        await expect(it.next()).rejects.toThrow(/stop \(merge\)/);
      }
      expect(spill.finished.length, when).toBeGreaterThan(1);
      expect(leftovers(spill), when).toEqual([]);
      expect(pool.reserved, when).toBe(0);
      await spill.close();
    }
  });

  it('a consumer that stops after the first batch leaves nothing behind', async () => {
    const spill = spillIn();
    const pool = new MemoryPool(limit);
    const metrics = newSortMetrics();
    for await (const b of sortScan(new MemoryScan(table, 't'), keys, { pool, batchSize: 32, spill, metrics })) {
      expect(b.numRows).toBe(32);
      break;
    }
    expect(metrics.runsSpilled).toBeGreaterThan(1);
    expect(leftovers(spill)).toEqual([]);
    expect(pool.reserved).toBe(0);
    await spill.close();
  });

  it('without a spill manager the sort makes and removes its own directory', async () => {
    const mine = () => readdirSync(tmpdir()).filter((f) => f.startsWith(`joinlab-spill-${process.pid}-`));
    const before = mine();
    const got = await sortWith(new MemoryScan(table, 't'), keys, 32, new MemoryPool(limit));
    expect(got.metrics.runsSpilled).toBeGreaterThan(1);
    expect(mine()).toEqual(before);
    // and after an error
    const scan = hookedScan(table, (i, b) => {
      if (i === 50) throw new Error('gone');
      return b;
    });
    await expect(sortWith(scan, keys, 32, new MemoryPool(limit))).rejects.toThrow('gone');
    expect(mine()).toEqual(before);
  });

  it('a limit too small to merge two runs into a batchSize batch is a MemoryLimitError naming the sort merge', async () => {
    const spill = spillIn();
    const pool = new MemoryPool(limit);
    const err = await sortWith(new MemoryScan(table, 't'), keys, 100_000, pool, spill).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemoryLimitError);
    expect((err as Error).message).toMatch(/sort merge/);
    expect(leftovers(spill)).toEqual([]);
    expect(pool.reserved).toBe(0);
    await spill.close();
  });

  it('one input batch larger than the whole limit is sorted a slice at a time; one row larger is a MemoryLimitError naming the sort input', async () => {
    const n = 50_000;
    const big = new Table({ k: makeVector(Int32Array.from({ length: n }, (_, i) => (i * 7919) % 1000)), rid: makeVector(Int32Array.from({ length: n }, (_, i) => i)) });
    expect(big.batches).toHaveLength(1);
    const spill = spillIn();
    const pool = new MemoryPool(64 * 1024);
    const got = await sortWith(new MemoryScan(big, 'big'), [{ column: 'k' }], 1000, pool, spill);
    const want = Array.from({ length: n }, (_, i) => i).sort((a, b) => ((a * 7919) % 1000) - ((b * 7919) % 1000) || a - b);
    expect(rids(got.table)).toEqual(want);
    expect(got.metrics.runsSpilled).toBeGreaterThan(5);
    expect(got.metrics.peakReservedBytes).toBeLessThanOrEqual(64 * 1024);
    expect(leftovers(spill)).toEqual([]);

    const wide = new Table({ k: vectorFromArray([2, 1], new Int32()), s: vectorFromArray(['x', 'y'.repeat(100_000)], new Utf8()) });
    const err = await sortWith(new MemoryScan(wide, 'wide'), [{ column: 'k' }], 10, new MemoryPool(64 * 1024), spill).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemoryLimitError);
    expect((err as Error).message).toMatch(/memory limit exceeded: sort input \(one row of a 2-row batch\)/);
    expect(leftovers(spill)).toEqual([]);
    await spill.close();
  });
});

describe('Engine.sort and the --by text form', () => {
  it('Engine.sort spills under memoryLimit and reports the sort metrics; sortStream streams', async () => {
    const rng = new Rng(3);
    const table = cut(keyTable(rng, 'decimal', 3000), rng, 100);
    const inMemory = await (await Engine.create({ batchSize: 100 })).sort(table, 'k desc nulls first, rid');
    expect(inMemory.metrics.sort.runsSpilled).toBe(0);
    const peak = inMemory.metrics.memory.peakReservedBytes;
    // the returned table counts against the limit too: room for it, not for the in-memory sort
    const engine = await Engine.create({ memoryLimit: Math.floor(peak * 0.75), batchSize: 100 });
    const { table: got, metrics } = await engine.sort(table, 'k desc nulls first, rid');
    expect(rids(got)).toEqual(rids(inMemory.table));
    expect(metrics.rows).toBe(3000);
    expect(metrics.sort.runsSpilled).toBeGreaterThan(1);
    expect(metrics.sort.bytesSpilled).toBeGreaterThan(0);
    expect(metrics.memory.peakReservedBytes).toBeLessThanOrEqual(metrics.memory.limit);
    expect(metrics.keys).toEqual(parseSortKeys('k desc nulls first, rid'));
    // streamed, a fifth of that is plenty
    const small = await Engine.create({ memoryLimit: Math.floor(peak / 5), batchSize: 100 });
    const stream = await small.sortStream(table, [{ column: 'k', descending: true, nullsFirst: true }, { column: 'rid' }]);
    const streamed: number[] = [];
    for await (const b of stream.batches) streamed.push(...(b.getChild('rid')!.toArray() as Int32Array));
    expect(streamed).toEqual(rids(inMemory.table));
    expect(stream.metrics.sort.runsSpilled).toBeGreaterThan(metrics.sort.runsSpilled);
    expect(stream.metrics.memory.peakReservedBytes).toBeLessThanOrEqual(stream.metrics.memory.limit);
    // ... while collecting it into a table there cannot fit: the typed error
    await expect(small.sort(table, 'k')).rejects.toBeInstanceOf(MemoryLimitError);
    await expect(engine.sort(table, 'nope')).rejects.toThrow(/column 'nope' not found in memory:input/);
  });

  it('parses COLUMN [ASC|DESC] [NULLS FIRST|LAST], quoted names, and refuses the rest', () => {
    expect(parseSortKeys('a')).toEqual([{ column: 'a', descending: false, nullsFirst: false }]);
    expect(parseSortKeys(' a DESC , "b c" nulls first,"d""e" asc nulls last ')).toEqual([
      { column: 'a', descending: true, nullsFirst: false },
      { column: 'b c', descending: false, nullsFirst: true },
      { column: 'd"e', descending: false, nullsFirst: false },
    ]);
    expect(parseSortKeys(formatSortKeys(parseSortKeys('x desc, "y,z" nulls first')))).toEqual(parseSortKeys('x desc, "y,z" nulls first'));
    for (const bad of ['', ' ', 'a,', ',a', 'a b', 'a desc asc', 'a nulls', 'a nulls middle', 'a,,b', '"unclosed']) {
      expect(() => parseSortKeys(bad), bad).toThrow(/--by expects/);
    }
  });
});
