/**
 * `parquet-pruning` suite: the dynamic filter end to end on Parquet.
 *
 * Probe: 20M rows sorted by key `k` (10 rows per key over 0..2M) in ~2000 row groups; build:
 * the keys with `k % 10000 < 200` (40K keys, a few narrow islands in the key range). The build's
 * bounds cover the whole probe range, so min/max alone prunes nothing; the KeyRangeBitmap of
 * `pushdown=map` sees the gaps and lets the probe scan skip ~90% of the row groups unread.
 * DuckDB (at joinlab's thread count, `--threads`) runs the same join from the same files and writes it to Parquet; joinlab
 * does the same (join + atomic Parquet write). `--scale` shrinks the probe.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../composition.ts';
import { writeParquetFile } from '../../adapters/io/parquet.ts';
import type { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { caseConfig, type BenchCase, type SuiteOverrides } from '../harness.ts';

export interface PruningFiles {
  readonly dir: string;
  readonly probe: string;
  readonly build: string;
  readonly probeRows: number;
}

/** Writes (once, cached by size) the probe and build files with DuckDB. */
export async function pruningFiles(duck: DuckDBSession, scale: number): Promise<PruningFiles> {
  const probeRows = Math.round(20_000_000 * scale);
  const keys = Math.round(probeRows / 10);
  const dir = join(tmpdir(), 'joinlab-bench', `pruning-${probeRows}`);
  const probe = join(dir, 'probe.parquet');
  const build = join(dir, 'build.parquet');
  if (!existsSync(probe) || !existsSync(build)) {
    mkdirSync(dir, { recursive: true });
    await duck.run(
      `COPY (SELECT (i // 10)::BIGINT AS k, i::BIGINT AS v FROM range(${probeRows}) t(i)) TO '${probe}' (FORMAT parquet, ROW_GROUP_SIZE 10240)`,
    );
    await duck.run(`COPY (SELECT k::BIGINT AS k, (k * 2)::BIGINT AS bv FROM range(${keys}) t(k) WHERE k % 10000 < 200) TO '${build}' (FORMAT parquet)`);
  }
  return { dir, probe, build, probeRows };
}

export async function parquetPruningCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides = {}): Promise<BenchCase[]> {
  const f = await pruningFiles(duck, scale);
  const out = join(f.dir, 'out-joinlab.parquet');
  const duckOut = join(f.dir, 'out-duckdb.parquet');
  const cases: BenchCase[] = [];
  for (const pushdown of ['map', 'none'] as const) {
    const engine = await Engine.create(caseConfig({ join: 'hash', pushdown, 'hash.build': 'right' }, overrides));
    let note = '';
    cases.push({
      name: `parquet inner join ${f.probeRows / 1e6}M-row probe, pushdown=${pushdown}, -> parquet`,
      joinlab: async () => {
        const { table, metrics } = await engine.join({ type: 'inner', on: 'k=k' }, f.probe, f.build);
        await writeParquetFile(out, table);
        const s = metrics.scans.left;
        note = `probe row groups pruned ${s.containersPruned}/${s.containersTotal} (${((100 * s.containersPruned) / s.containersTotal).toFixed(1)}%), rows decoded ${s.rowsDecoded}, join ${metrics.elapsedMs.toFixed(0)} ms`;
        return table.numRows;
      },
      duckdb: async () => {
        await duck.run(`COPY (SELECT p.k, p.v, b.k AS k_right, b.bv FROM read_parquet('${f.probe}') p JOIN read_parquet('${f.build}') b ON p.k = b.k) TO '${duckOut}' (FORMAT parquet)`);
        return Number((await duck.queryRows(`SELECT count(*) FROM read_parquet('${duckOut}')`))[0]![0]);
      },
      notes: () => note,
    });
  }
  return cases;
}

export function cleanPruningFiles(f: PruningFiles): void {
  rmSync(f.dir, { recursive: true, force: true });
}
