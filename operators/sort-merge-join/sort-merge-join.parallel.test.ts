/**
 * The sort-merge join with its sorts on worker threads (operators/sort/parallel.ts): at threads 2
 * and 4 (and `parallel.minProbeRows` 0, so small inputs go parallel) every join type — inner,
 * outer, semi, anti, mark, NOT IN, with and without a residual filter — on random inputs with
 * NULL keys, duplicates and one heavy key, cut into random slices with empty batches between them,
 * at tiny and odd output batch sizes, gives the threads=1 answer *in the same order* (the parallel
 * sort is the serial sort, row for row) and the nested-loop oracle's rows. Then: one side declared
 * sorted (only the other sorts), `details.threads` when nothing can go parallel, a memory limit
 * hit while sorting (the answer, or a typed MemoryLimitError — and the pool serves the next join,
 * no spill directory left), and an abort while sorting (a CancelledError, no hang).
 */
import { readdirSync } from 'node:fs';
import * as os from 'node:os';
import * as arrow from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { CancelledError, MemoryLimitError } from '../../core/errors.ts';
import { newScanMetrics } from '../../core/metrics.ts';
import { WorkerPool } from '../../core/parallel/worker-pool.ts';
import { Rng } from '../../core/random.ts';
import type { Scan, ScanSortColumn } from '../../core/scan/scan.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { JOIN_TYPES, type JoinType } from '../../core/types.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { randomSlices, slicedScan } from './test-helpers.ts';

const engines = new Map<string, Promise<Engine>>();
const engineFor = (config: object) => {
  const key = JSON.stringify(config);
  let e = engines.get(key);
  if (e === undefined) engines.set(key, (e = Engine.create(config)));
  return e;
};

afterAll(async () => {
  await WorkerPool.closeAll();
});

/** Unsorted keys in 0..40 with ~5% NULLs and one heavy key (7), payload x with NULLs, a string column. */
function side(rng: Rng, rows: number, heavy: number, extra: boolean): arrow.Table {
  const keys = Array.from({ length: rows }, () => (rng.chance(heavy) ? 7 : rng.chance(0.05) ? null : rng.int(0, 40)));
  const x = keys.map(() => (rng.chance(0.1) ? null : rng.int(-50, 50)));
  return new arrow.Table({
    k: arrow.vectorFromArray(keys, new arrow.Int32()),
    b: arrow.vectorFromArray(keys.map(() => (rng.chance(0.03) ? null : BigInt(rng.int(0, 3)))), new arrow.Int64()),
    x: arrow.vectorFromArray(x, new arrow.Int32()),
    ...(extra ? { s: arrow.vectorFromArray(keys.map((k, i) => `r${k}-${i % 17}`), new arrow.Utf8()) } : {}),
  });
}

/** Every row of `t`, in order, as text (BigInts included). */
function rowsInOrder(t: arrow.Table): string[] {
  const out: string[] = [];
  for (const b of t.batches) for (let i = 0; i < b.numRows; i++) out.push(JSON.stringify(b.get(i)!.toJSON(), (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)));
  return out;
}

const VARIANTS: { type: JoinType; nullAware: boolean; on: string }[] = [
  ...JOIN_TYPES.map((type) => ({ type, nullAware: false, on: 'k=k' })),
  ...JOIN_TYPES.filter((t) => t === 'inner' || t === 'full' || t === 'left-semi' || t === 'right-anti').map((type) => ({ type, nullAware: false, on: 'k=k,b=b' })),
  { type: 'left-anti', nullAware: true, on: 'k=k' },
  { type: 'right-anti', nullAware: true, on: 'k=k' },
];

describe('sort-merge join with its sorts on worker threads', () => {
  it('every join type x filter x batch size at threads 2 and 4: the threads=1 answer in the same order, and the oracle', async () => {
    const rng = new Rng(1515);
    const L = side(rng, 400, 0.15, true);
    const R = side(rng, 300, 0.1, false);
    const lb = randomSlices(L, rng);
    const rb = randomSlices(R, rng);
    const oracle = await engineFor({ join: 'nested-loop' });
    let runs = 0;
    for (const [v, { type, nullAware, on }] of VARIANTS.entries()) {
      for (const filter of [undefined, 'r.x < l.x']) {
        const spec = toJoinSpec({ type, on, filter, nullAware });
        const expected = (await oracle.join(spec, L, R)).table;
        // two of the four batch sizes per variant, alternating (the suite's time budget; parity draws more)
        for (const batchSize of v % 2 === 0 ? [1, 8192] : [7, 50]) {
          const what = `${type}${nullAware ? ' NOT IN' : ''} on ${on} filter=${filter ?? 'none'} batchSize=${batchSize}`;
          const one = await (await engineFor({ join: 'sort-merge', batchSize, threads: 1 })).join(spec, slicedScan(lb, L.schema, 'left'), slicedScan(rb, R.schema, 'right'));
          const vsOracle = compareResults(one.table, expected);
          expect(vsOracle.equal, `${what} threads=1 vs nested-loop\n${formatComparison(vsOracle)}`).toBe(true);
          const want = rowsInOrder(one.table);
          for (const threads of runs % 2 === 0 ? [2, 4] : [2]) {
            const par = await (await engineFor({ join: 'sort-merge', batchSize, threads, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 })).join(spec, slicedScan(lb, L.schema, 'left'), slicedScan(rb, R.schema, 'right'));
            const d = par.metrics.operators.join!.details;
            expect(String(d.threads), what).toBe(String(threads));
            expect(String(d.parallelSort), what).toMatch(new RegExp(`^left: \\d+ runs on ${threads} workers, merged in memory; right: \\d+ runs on ${threads} workers, merged in memory$`));
            expect(par.table.batches.every((b) => b.numRows <= batchSize), what).toBe(true);
            const got = rowsInOrder(par.table);
            expect(got.length, `${what} threads=${threads}`).toBe(want.length);
            expect(got.join('\n') === want.join('\n'), `${what} threads=${threads}: not the threads=1 rows in the threads=1 order`).toBe(true);
          }
          runs++;
        }
      }
    }
    expect(runs).toBe(VARIANTS.length * 2 * 2);
  }, 600_000);

  it('one side declared sorted: only the other sorts on the workers; nothing to sort, or inputs below the threshold: details.threads says why', async () => {
    const rng = new Rng(7);
    const L = side(rng, 400, 0.2, false);
    const R = side(rng, 300, 0.2, false);
    // R sorted on k ASC NULLS LAST by the single-threaded sort, then declared so
    const rSorted = (await (await engineFor({ threads: 1 })).sort(R, [{ column: 'k' }])).table;
    const SORTED: ScanSortColumn[] = [{ column: 'k', descending: false, nullsFirst: false }];
    const spec = toJoinSpec({ type: 'full', on: 'k=k' });
    const one = await (await engineFor({ join: 'sort-merge', threads: 1 })).join(spec, L, slicedScan(rSorted.batches, rSorted.schema, 'right', SORTED));
    const par = await (await engineFor({ join: 'sort-merge', threads: 2, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 })).join(spec, L, slicedScan(rSorted.batches, rSorted.schema, 'right', SORTED));
    expect(rowsInOrder(par.table)).toEqual(rowsInOrder(one.table));
    const d = par.metrics.operators.join!.details;
    expect(d.order).toBe('k ASC NULLS LAST; left sorted, right declared (checked)');
    expect(d.threads).toBe('2');
    expect(String(d.parallelSort)).toMatch(/^left: \d+ runs on 2 workers, merged in memory; right declared sorted$/);

    const declared = await (await engineFor({ join: 'sort-merge', threads: 2, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 })).join(spec, slicedScan(rSorted.batches, rSorted.schema, 'left', SORTED), slicedScan(rSorted.batches, rSorted.schema, 'right', SORTED));
    expect(declared.metrics.operators.join!.details.threads).toBe('1 (left declared sorted; right declared sorted; the merge runs on the calling thread)');
    const small = await (await engineFor({ join: 'sort-merge', threads: 2 })).join(spec, L, R);
    expect(small.metrics.operators.join!.details.threads).toBe('1 (inputs to sort of 700 estimated rows, below parallel.minProbeRows=100000; the merge runs on the calling thread)');
    expect(rowsInOrder(small.table)).toEqual(rowsInOrder((await (await engineFor({ join: 'sort-merge', threads: 1 })).join(spec, L, R)).table));
  });

  function spillDirs(): string[] {
    return readdirSync(os.tmpdir()).filter((f) => f.startsWith(`joinlab-spill-${process.pid}-`));
  }

  it('under a memory limit the parallel sorts spill or the join stops with a typed MemoryLimitError; no spill directory is left, and the pool serves the next join', async () => {
    const rng = new Rng(11);
    const L = side(rng, 8000, 0.01, true);
    const R = side(rng, 6000, 0.01, true);
    const spec = toJoinSpec({ type: 'left', on: 'k=k,b=b', filter: 'r.x < l.x', select: ['k', 'x', 's'] });
    const want = rowsInOrder((await (await engineFor({ join: 'sort-merge', threads: 1, batchSize: 1024 })).join(spec, L, R)).table).sort();
    let spilled = 0;
    let refused = 0;
    for (const limit of [32 << 20, 1 << 20, 400_000, 150_000, 20_000]) {
      const engine = await engineFor({ join: 'sort-merge', threads: 2, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0, batchSize: 1024, memoryLimit: limit });
      try {
        const s = await engine.stream(spec, L, R);
        const batches: arrow.RecordBatch[] = [];
        for await (const b of s.batches) batches.push(b); // streamed: the consumer's batches are not the join's
        expect(rowsInOrder(new arrow.Table(s.schema, batches)).sort(), `memoryLimit=${limit}`).toEqual(want);
        const d = s.metrics.operators.join!.details;
        expect(d.threads, `memoryLimit=${limit}`).toBe('2');
        if (/spilled past the memory limit/.test(String(d.parallelSort))) spilled++;
      } catch (e) {
        expect(e, `memoryLimit=${limit}: ${(e as Error).message}`).toBeInstanceOf(MemoryLimitError);
        refused++;
      }
      expect(spillDirs(), `memoryLimit=${limit}`).toEqual([]);
    }
    expect(spilled).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    const ok = await (await engineFor({ join: 'sort-merge', threads: 2, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0, batchSize: 1024 })).join(spec, L, R);
    expect(rowsInOrder(ok.table).sort()).toEqual(want);
  }, 300_000);

  it('an abort while the inputs are sorted stops the join with a CancelledError, no hang, and the pool serves the next join', async () => {
    const rng = new Rng(13);
    const L = side(rng, 30_000, 0.01, false);
    const R = side(rng, 30_000, 0.01, false);
    const lb = randomSlices(L, rng);
    const controller = new AbortController();
    let read = 0;
    // the left input aborts the join when its 100th batch is read (mid-sort: no output yet)
    const left: Scan = {
      ...slicedScan(lb, L.schema, 'left'),
      async *batches() {
        for (const b of lb) {
          if (++read === 100) controller.abort();
          yield b;
        }
      },
    };
    const engine = await engineFor({ join: 'sort-merge', threads: 2, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 });
    const s = await engine.stream({ type: 'inner', on: 'k=k' }, left, R, { signal: controller.signal });
    let batches = 0;
    const err = await (async () => {
      for await (const _ of s.batches) batches++;
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CancelledError);
    expect(batches).toBe(0);
    expect(read).toBeLessThan(lb.length);
    expect(spillDirs()).toEqual([]);
    const ok = await engine.join({ type: 'inner', on: 'k=k' }, { ...left, batches: () => slicedScan(lb, L.schema, 'left').batches(), metrics: newScanMetrics() }, R);
    expect(ok.table.numRows).toBeGreaterThan(0);
  }, 120_000);
});
