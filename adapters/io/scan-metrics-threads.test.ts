/**
 * Issue 29, "Honest metrics at every thread count": a Parquet probe whose row groups the workers
 * decode themselves (`Scan.morsels`) reports the same scan metrics at threads=2 as at threads=1 —
 * rows and bytes decoded, bytes read, containers and pages pruned, rows after the row filter, late
 * materialization — and a scan time that is not 0, through `Engine.join` and through `runSql`.
 *
 * Each run reads its own copy of the file: footers and page indexes are cached per process (and
 * per worker) by path and file identity, so a second read of one file would read fewer bytes
 * whatever the thread count.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeVector, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { SCAN_METRIC_KEYS, type ScanMetrics } from '../../core/metrics.ts';
import { WorkerPool } from '../../core/parallel/worker-pool.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { runSql } from '../sql/run.ts';
import { writeParquetFile } from './parquet.ts';
import { ParquetScan } from './parquet-scan.ts';

const N = 60_000;
let dir: string;
let file: string;
let copies = 0;
let duck: DuckDBSession;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-scan-threads-'));
  file = join(dir, 'probe.parquet');
  const k = Int32Array.from({ length: N }, (_, i) => i);
  const probe = new Table({
    k: makeVector(k),
    v: makeVector(Int32Array.from(k, (x) => (x * 7) % 1000)),
    s: vectorFromArray(Array.from(k, (x) => `payload-${x % 997}`), new Utf8()),
  });
  // 12 row groups of 5,000 rows, several pages each (page pruning and page-selective reads)
  await writeParquetFile(file, probe, { rowGroupSize: 5000, dataPageBytes: 4096, dictionary: false });
  duck = await DuckDBSession.open({ threads: 1 });
});

afterAll(async () => {
  await duck?.close();
  await WorkerPool.closeAll();
  await rm(dir, { recursive: true, force: true });
});

/** A fresh copy of the probe file (a path no footer or page-index cache has seen), opened in runs of one row group (a morsel each). */
async function freshScan(): Promise<ParquetScan> {
  const p = join(dir, `probe-${copies++}.parquet`);
  await copyFile(file, p);
  return ParquetScan.open(p, { runRows: 5000 });
}

function keys(from: number, to: number, step: number): Table {
  const n = Math.floor((to - from) / step) + 1;
  const k = Int32Array.from({ length: n }, (_, i) => from + i * step);
  return new Table({ k: makeVector(k), w: makeVector(Int32Array.from(k, (x) => x % 13)) });
}

const VARIANTS = [
  // no dynamic filter: every row group decoded, every row kept
  { name: 'no filter', config: { pushdown: 'none' }, build: keys(0, N - 1, 10) },
  // min/max of the build keys: prunes row groups and pages outside [17300, 36800]
  { name: 'bounds', config: { pushdown: 'bounds', 'pushdown.rowFilter': 'always' }, build: keys(17_300, 36_800, 10) },
  // an IN list: prunes the same containers, and its row test drops 9 rows in 10 (late materialization)
  { name: 'inlist', config: { pushdown: 'inlist', 'pushdown.rowFilter': 'always' }, build: keys(17_300, 36_800, 10) },
  // a hash map (and its key-range bitmap) for two keys: two row groups kept, a page of each, whose
  // other columns are read only over the pages holding the two survivors (late materialization)
  { name: 'map', config: { pushdown: 'map', 'pushdown.rowFilter': 'always' }, build: keys(2, 59_998, 59_996) },
] as const;

const BASE = { join: 'hash', 'hash.build': 'right', 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 } as const;

/** Every counter but the time (CPU time summed over threads: not equal across thread counts). */
const COUNTED = SCAN_METRIC_KEYS.filter((k) => k !== 'elapsedMs');

function counted(m: ScanMetrics): Partial<ScanMetrics> {
  return Object.fromEntries(COUNTED.map((k) => [k, m[k]]));
}

describe('scan metrics at threads=1 and threads=2 (workers decode the probe)', () => {
  for (const v of VARIANTS) {
    it(`Engine.join, ${v.name}: the same rows, bytes and containers; time counted`, async () => {
      const got: { threads: number; m: ScanMetrics; rows: number }[] = [];
      for (const threads of [1, 2]) {
        const engine = await Engine.create({ ...BASE, ...v.config, threads });
        const r = await engine.join({ type: 'inner', on: 'k=k' }, await freshScan(), v.build);
        const join = r.metrics.operators.join!;
        if (threads === 2) {
          expect(join.details.threads, v.name).toBe('2');
          expect(join.counters.morselsDecodedByWorkers ?? 0, v.name).toBeGreaterThan(1);
        }
        got.push({ threads, m: r.metrics.scans.left, rows: r.table.numRows });
      }
      const [one, two] = got;
      expect(two!.rows).toBe(one!.rows);
      expect(counted(two!.m), v.name).toEqual(counted(one!.m));
      expect(one!.m.rowsDecoded, v.name).toBeGreaterThan(0);
      expect(one!.m.bytesRead, v.name).toBeGreaterThan(one!.m.bytesDecoded / 10);
      if (v.name === 'bounds' || v.name === 'inlist') expect(one!.m.containersPruned, v.name).toBeGreaterThan(0);
      if (v.name === 'inlist') expect(one!.m.rowsAfterFilter, v.name).toBeLessThan(one!.m.rowsDecoded);
      if (v.name === 'map') expect(one!.m.bytesNotDecoded, v.name).toBeGreaterThan(0);
      for (const g of got) expect(g.m.elapsedMs, `${v.name} threads=${g.threads}`).toBeGreaterThan(0);
    }, 60_000);
  }

  for (const v of VARIANTS) {
    it(`runSql, ${v.name}: the scan reports agree`, async () => {
      const got: { threads: number; m: ScanMetrics; rows: number }[] = [];
      for (const threads of [1, 2]) {
        const engine = await Engine.create({ ...BASE, ...v.config, threads });
        const r = await runSql(engine, 'SELECT p.k, p.v, p.s, b.w FROM p JOIN b ON p.k = b.k', { p: await freshScan(), b: v.build }, { duck });
        if (threads === 2) expect(r.joins[0]!.operators.join!.details.threads, v.name).toBe('2');
        const scan = r.scans.find((s) => s.alias === 'p')!;
        got.push({ threads, m: scan.metrics, rows: r.table.numRows });
      }
      const [one, two] = got;
      expect(two!.rows).toBe(one!.rows);
      expect(counted(two!.m), v.name).toEqual(counted(one!.m));
      expect(one!.m.rowsDecoded, v.name).toBeGreaterThan(0);
      for (const g of got) expect(g.m.elapsedMs, `${v.name} threads=${g.threads}`).toBeGreaterThan(0);
    }, 60_000);
  }

  it('an in-memory probe (batches handed out unfiltered): the row test on the workers counts its rows', async () => {
    const batches = Array.from({ length: 6 }, (_, b) => {
      const k = Int32Array.from({ length: 10_000 }, (_, i) => b * 10_000 + i);
      return new Table({ k: makeVector(k), v: makeVector(Int32Array.from(k, (x) => x % 100)) }).batches[0]!;
    });
    const probe = new Table(batches);
    const got: ScanMetrics[] = [];
    for (const threads of [1, 2]) {
      const engine = await Engine.create({ ...BASE, pushdown: 'inlist', 'pushdown.rowFilter': 'always', threads });
      const r = await engine.join({ type: 'inner', on: 'k=k' }, probe, keys(17_300, 36_800, 10));
      if (threads === 2) expect(r.metrics.operators.join!.details.threads).toBe('2');
      got.push(r.metrics.scans.left);
    }
    expect(counted(got[1]!)).toEqual(counted(got[0]!));
    expect(got[0]!.rowsAfterFilter).toBe(1951);
    for (const m of got) expect(m.elapsedMs).toBeGreaterThan(0);
  }, 60_000);

  it('the piecewise merge join: streamed row groups decoded by the workers count as at threads=1', async () => {
    // r.k < 30010: the extreme key prunes the row groups above it
    const buffered = keys(30_000, 30_010, 10);
    const got: ScanMetrics[] = [];
    for (const threads of [1, 2]) {
      const engine = await Engine.create({ join: 'piecewise', 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0, threads });
      const r = await engine.join({ type: 'inner', range: 'l.k > r.k' }, buffered, await freshScan());
      if (threads === 2) {
        expect(r.metrics.operators.join!.details.threads).toBe('2');
        expect(r.metrics.operators.join!.counters.morselsDecodedByWorkers ?? 0).toBeGreaterThan(1);
      }
      got.push(r.metrics.scans.right);
    }
    expect(counted(got[1]!)).toEqual(counted(got[0]!));
    expect(got[0]!.containersPruned).toBeGreaterThan(0);
    for (const m of got) expect(m.elapsedMs).toBeGreaterThan(0);
  }, 60_000);
});
