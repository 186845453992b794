/**
 * `npm run bench -- [--suite NAME] [--json] [--scale X] [--threads N[,M…]] [--rows N] [--set KEY=VALUE …]`:
 * runs benchmark suites, joinlab beside DuckDB in one process on the same data, and prints time
 * per side and the ratio. `--threads` (default 1; the h2o suite's default is 1,2) runs every
 * suite once per count, joinlab (`threads`) and DuckDB (`SET threads`) at that same count, and
 * each table says it. `--rows` sizes the h2o suite (default 1e7). `--set` overrides joinlab's config in every case (e.g. `hashmap=swiss`), except
 * the keys a suite varies itself (its case names say them): setting one of those is an error.
 * `--json` prints `{ suite, cases: [{ name, joinlabMs, duckdbMs, ratio, … }] }` per suite; a case
 * that compares two joinlab strategies adds `baselineName`, `baselineMs`, `speedup` (baseline /
 * joinlab), and a case's facts (memory, spill, work counters) are extra fields of its object. A case
 * the suite cannot run here is listed under `skipped: [{ name, reason }]` instead.
 */
import { Command } from 'commander';
import { applyOverrides } from '../core/config/schema.ts';
import { resolveConfig } from '../composition.ts';
import type { SuiteOptions, SuiteOverrides } from './harness.ts';
import { DuckDBSession } from '../adapters/duckdb/session.ts';
import { formatTable } from '../apps/cli/format.ts';
import { measureCase, type BenchCase, type CaseResult } from './harness.ts';
import { asofCases } from './suites/asof.ts';
import { bloomCases } from './suites/bloom.ts';
import { h2oCases } from './suites/h2o.ts';
import { hashJoinCases } from './suites/hash-join.ts';
import { iejoinCases } from './suites/iejoin.ts';
import { nestedLoopCases } from './suites/nested-loop.ts';
import { pagesCases } from './suites/pages.ts';
import { parquetPruningCases } from './suites/parquet-pruning.ts';
import { piecewiseCases } from './suites/piecewise.ts';
import { scanCases } from './suites/scan.ts';
import { sortMergeCases } from './suites/sort-merge.ts';
import { spillCases } from './suites/spill.ts';
import { starCases } from './suites/star.ts';

const SUITES: Record<string, (duck: DuckDBSession, scale: number, overrides: SuiteOverrides, options: SuiteOptions) => Promise<BenchCase[]>> = {
  asof: asofCases,
  bloom: bloomCases,
  h2o: h2oCases,
  'hash-join': hashJoinCases,
  iejoin: iejoinCases,
  'nested-loop': nestedLoopCases,
  pages: pagesCases,
  'parquet-pruning': parquetPruningCases,
  piecewise: piecewiseCases,
  scan: scanCases,
  'sort-merge': sortMergeCases,
  spill: spillCases,
  star: starCases,
};

/** The fields every case result has; the others are a case's facts (printed under the table). */
const TIMING_FIELDS = new Set(['name', 'joinlabMs', 'duckdbMs', 'ratio', 'joinlabRows', 'duckdbRows', 'notes', 'baselineName', 'baselineMs', 'baselineRows', 'speedup', 'peerName', 'peerMs', 'peerRows', 'peerRatio']);

/** A suite's thread counts when `--threads` is not given (every other suite: 1). */
const DEFAULT_THREADS: Record<string, readonly number[]> = { h2o: [1, 2] };

/** `--threads 1,2` -> [1, 2]; `--rows 1e7` -> 10000000 (what is not a positive integer is refused). */
function positiveInts(flag: string, text: string): number[] {
  const values = text.split(',').map((t) => Number(t.trim()));
  for (const [i, v] of values.entries()) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`${flag} expects positive integers (e.g. 1,2 or 1e7), got '${text.split(',')[i]}'`);
  }
  return values;
}

const program = new Command()
  .name('bench')
  .option('--suite <name>', `suite to run (${Object.keys(SUITES).join(', ')}, or all)`, 'all')
  .option('--json', 'print JSON', false)
  .option('--scale <x>', 'data size multiplier', '1')
  .option('--iterations <n>', 'minimum iterations per side', '5')
  .option('--threads <list>', 'thread counts to run each suite at, joinlab and DuckDB alike (default 1; h2o: 1,2)')
  .option('--rows <n>', 'rows of the h2o data set (x and big; default 1e7)')
  .option('--set <key=value>', "override joinlab's config in every case (repeatable)", (v: string, acc: string[]) => [...acc, v], [] as string[])
  .parse(process.argv.slice(2), { from: 'user' });
const opts = program.opts<{ suite: string; json: boolean; scale: string; iterations: string; set: string[]; threads?: string; rows?: string }>();
let overrides: SuiteOverrides;
let threadCounts: number[] | null;
let rows: number | undefined;
try {
  // the keys of the built-in (and --set extensions=…) extensions convert by their declared types too
  overrides = applyOverrides({}, opts.set, (await resolveConfig({ set: opts.set })).schema);
  if ('threads' in overrides) throw new Error("set the thread count with --threads (it is DuckDB's too), not --set threads=…");
  threadCounts = opts.threads === undefined ? null : positiveInts('--threads', opts.threads);
  rows = opts.rows === undefined ? undefined : positiveInts('--rows', opts.rows)[0];
} catch (e) {
  process.stderr.write(`bench: ${(e as Error).message}\n`);
  process.exit(2);
}

const names = opts.suite === 'all' ? Object.keys(SUITES) : [opts.suite];
for (const n of names) {
  if (!SUITES[n]) {
    process.stderr.write(`bench: unknown suite '${n}'; suites: ${Object.keys(SUITES).join(', ')}\n`);
    process.exit(2);
  }
}

const duck = await DuckDBSession.open({ threads: 1 });
try {
  for (const suite of names) {
    for (const threads of threadCounts ?? DEFAULT_THREADS[suite] ?? [1]) {
      await duck.run(`SET threads = ${threads}`);
      // benchmarks measure warm runs: a warm-up run starts the worker pool whatever the data's
      // size (parallel.minStartRows 0 unless --set says otherwise), as a long-running process would
      const warm = threads > 1 && !('parallel.minStartRows' in overrides) ? { 'parallel.minStartRows': 0 } : {};
      const all = await SUITES[suite]!(duck, Number(opts.scale), { ...warm, ...overrides, threads }, { threads, ...(rows === undefined ? {} : { rows }) });
      const skipped = all.filter((c) => c.skipped !== undefined).map((c) => ({ name: c.name, reason: c.skipped! }));
      const cases = all.filter((c) => c.skipped === undefined);
      // One untimed round of every case first: the suite's data generation leaves a large heap to
      // settle and the first case would otherwise pay for it (measured: ~15% on the first case alone).
      // A case with its own iterations (a heavy one: tens of seconds a run) is not run twice for it.
      if (!opts.json) process.stderr.write(`  warming up ${cases.length} cases…\n`);
      for (const c of cases) {
        if (c.iterations) continue;
        await c.joinlab();
        await c.duckdb();
        await c.baseline?.run();
      }
      const results: CaseResult[] = [];
      for (const c of cases) {
        if (!opts.json) process.stderr.write(`  running ${c.name}…\n`);
        results.push(await measureCase(c, { iterations: Number(opts.iterations), warmupIterations: 2, time: 0 }));
        await c.close?.();
      }
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ suite, threads, duckdbThreads: threads, cases: results, ...(skipped.length > 0 ? { skipped } : {}) }, null, 2)}\n`);
      } else {
        const withBaseline = results.some((r) => r.baselineMs !== undefined);
        const peer = results.find((r) => r.peerName !== undefined)?.peerName;
        process.stdout.write(
          `\nsuite ${suite}, threads=${threads} (joinlab and DuckDB${peer ? ` and ${peer}` : ''}; median ms; ratio = joinlab / duckdb${peer ? `; ${peer} ratio = joinlab / ${peer}` : ''}${withBaseline ? '; speedup = baseline / joinlab' : ''})\n`,
        );
        const rows = (r: CaseResult) => {
          const same = r.joinlabRows === r.duckdbRows && (r.baselineRows === undefined || r.baselineRows === r.joinlabRows) && (r.peerRows === undefined || r.peerRows === r.joinlabRows);
          return same ? r.joinlabRows : `${r.joinlabRows} vs ${r.duckdbRows}${r.baselineRows === undefined ? '' : ` vs ${r.baselineRows}`}!`;
        };
        const head = ['case', 'joinlab ms', 'duckdb ms', 'ratio', ...(peer ? [`${peer} ms`, `${peer} ratio`] : []), ...(withBaseline ? ['baseline', 'baseline ms', 'speedup'] : []), 'rows'];
        const cells = (r: CaseResult) => [
          r.name,
          r.joinlabMs,
          r.duckdbMs,
          r.ratio,
          ...(peer ? [r.peerMs, r.peerRatio] : []),
          ...(withBaseline ? [r.baselineName, r.baselineMs, r.speedup] : []),
          rows(r),
        ];
        process.stdout.write(`${formatTable(head, results.map(cells))}\n`);
        for (const r of results) if (r.notes) process.stdout.write(`  ${r.name}: ${r.notes}\n`);
        for (const r of results) {
          const facts = Object.entries(r).filter(([k]) => !TIMING_FIELDS.has(k));
          if (facts.length > 0) process.stdout.write(`  ${r.name}: ${facts.map(([k, v]) => `${k}=${v}`).join(', ')}\n`);
        }
        for (const s of skipped) process.stdout.write(`  skipped ${s.name}: ${s.reason}\n`);
      }
    }
  }
} finally {
  await duck.close();
}
