/**
 * `pages` suite: pages as containers (issue 27) against row groups, on a clustered-key join whose
 * row groups span many keys.
 *
 * Probe: 2M rows sorted by `k` (10 rows per key over 0..200K), written by joinlab (parquet-wasm)
 * in two row groups of 1M rows with 8,192-row data pages (plain encoded) and a page index. Build: 200 keys in five
 * islands of 40 (`k % 40000 < 40`), so both row groups hold matches and their min/max prune
 * nothing; the dynamic filter (`pushdown=auto`: a map with a KeyRangeBitmap for 200 keys) rules out
 * every page outside the islands. The case runs with `scan.pageIndex=auto`, its baseline with
 * `off` (row groups only); DuckDB (no page index: it prunes by row group zone maps, then by its
 * join filter per vector) reads the same files. The facts say the rows each decoded and the pages
 * pruned. `--scale` shrinks the probe.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeVector, Table } from 'apache-arrow';
import { Engine } from '../../composition.ts';
import { writeParquetFile } from '../../adapters/io/parquet.ts';
import type { DuckDBSession } from '../../adapters/duckdb/session.ts';
import type { ScanMetrics } from '../../core/metrics.ts';
import { caseConfig, type BenchCase, type SuiteOverrides } from '../harness.ts';

const PAGE_ROWS = 8192;

async function files(scale: number): Promise<{ probe: string; build: string; rows: number }> {
  const rows = Math.max(PAGE_ROWS * 4, Math.round(2_000_000 * scale));
  const dir = join(tmpdir(), 'joinlab-bench', `pages-${rows}`);
  const probe = join(dir, 'probe.parquet');
  const build = join(dir, 'build.parquet');
  if (!existsSync(probe) || !existsSync(build)) {
    mkdirSync(dir, { recursive: true });
    const k = BigInt64Array.from({ length: rows }, (_, i) => BigInt(Math.floor(i / 10)));
    const v = BigInt64Array.from({ length: rows }, (_, i) => BigInt(i));
    await writeParquetFile(probe, new Table({ k: makeVector(k), v: makeVector(v) }), {
      rowGroupSize: Math.ceil(rows / 2),
      // plain int64: a page closes at 64 KiB of values, i.e. exactly 8,192 rows
      dictionary: false,
      dataPageBytes: PAGE_ROWS * 8,
      sortedOn: [{ column: 'k' }],
    });
    const keys: bigint[] = [];
    for (let x = 0; x < rows / 10; x++) if (x % 40_000 < 40) keys.push(BigInt(x));
    const bk = BigInt64Array.from(keys);
    await writeParquetFile(build, new Table({ k: makeVector(bk), bv: makeVector(BigInt64Array.from(keys, (x) => x * 2n)) }));
  }
  return { probe, build, rows };
}

function facts(s: ScanMetrics | undefined): string {
  if (s === undefined) return 'not run';
  return `row groups pruned ${s.containersPruned}/${s.containersTotal}, pages pruned ${s.pagesPruned}/${s.pagesTotal}, rows decoded ${s.rowsDecoded}, bytes read ${(s.bytesRead / 2 ** 20).toFixed(1)} MiB`;
}

export async function pagesCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides = {}): Promise<BenchCase[]> {
  const f = await files(scale);
  const config = (pageIndex: 'auto' | 'off') => caseConfig({ join: 'hash', pushdown: 'auto', 'hash.build': 'right', 'scan.pageIndex': pageIndex }, overrides);
  const pages = await Engine.create(config('auto'));
  const groups = await Engine.create(config('off'));
  let withPages: ScanMetrics | undefined;
  let withGroups: ScanMetrics | undefined;
  const run = async (engine: Engine): Promise<{ rows: number; scan: ScanMetrics }> => {
    const { table, metrics } = await engine.join({ type: 'inner', on: 'k=k' }, f.probe, f.build);
    return { rows: table.numRows, scan: metrics.scans.left };
  };
  return [
    {
      name: `clustered-key join ${f.rows / 1e6}M-row probe (2 row groups, ${PAGE_ROWS}-row pages) x 200 keys, scan.pageIndex=auto`,
      joinlab: async () => {
        const r = await run(pages);
        withPages = r.scan;
        return r.rows;
      },
      baseline: {
        name: 'scan.pageIndex=off (row groups only)',
        run: async () => {
          const r = await run(groups);
          withGroups = r.scan;
          return r.rows;
        },
      },
      duckdb: async () => Number((await duck.queryRows(`SELECT count(*) FROM read_parquet('${f.probe}') p JOIN read_parquet('${f.build}') b ON p.k = b.k`))[0]![0]),
      notes: () => `pages: ${facts(withPages)}; row groups only: ${facts(withGroups)}`,
      facts: () => ({
        rowsDecodedPages: withPages?.rowsDecoded ?? 0,
        rowsDecodedRowGroups: withGroups?.rowsDecoded ?? 0,
        pagesPruned: withPages?.pagesPruned ?? 0,
        pagesTotal: withPages?.pagesTotal ?? 0,
      }),
    },
  ];
}
