/**
 * `npm run bench:cold -- ssb|tpch [--sf N] [--queries q1,q3…] [--threads default,1] [--rounds N] [--json]`:
 * each workload query as a user meets it once — a whole process: `joinlab sql "<query>" --data
 * <the workload's files>` (Node's start, tsx compiling the sources, DuckDB's parse, opening the
 * files, the query, printing) — beside DuckDB the same way (a process that opens DuckDB, creates
 * views on the same files, runs the query and prints its row count: bench/duckdb-once.mjs), at the
 * same thread count. `--threads default` runs joinlab without a `threads` setting (the machine's
 * cores) and DuckDB at its default (the cores too); a number sets both. The processes run
 * interleaved, `--rounds` times each (default 3), and the medians are printed with their ratio.
 *
 * What it shows that `joinlab workload` (warm, in one process) does not: the start-up — Node,
 * compiling TypeScript, workers — and whether the default thread count makes a one-off run slower
 * than `threads=1`. Both sides start through bin/tuned.mjs's allocator settings, as `npm start` does.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { formatTable } from '../apps/cli/format.ts';
import { DuckDBSession } from '../adapters/duckdb/session.ts';
import { generateWorkload, queryText, selectQueries, workloadDef, type WorkloadName } from '../apps/workloads/workloads.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TUNING = { MALLOC_MMAP_THRESHOLD_: String(32 << 20), MALLOC_TRIM_THRESHOLD_: String(16 * 2 ** 30) };

/** Runs a process to its end; its wall time in ms, or the error text when it failed. */
function timed(args: readonly string[]): { ms: number } | { error: string } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', env: { ...process.env, ...TUNING }, maxBuffer: 64 << 20 });
  const ms = performance.now() - t0;
  if (r.status !== 0) return { error: (r.stderr || r.stdout || `exit ${r.status}`).split('\n')[0]!.slice(0, 160) };
  return { ms };
}

const median = (xs: readonly number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};

const program = new Command()
  .name('bench:cold')
  .argument('<workload>', 'ssb or tpch')
  .option('--sf <n>', 'scale factor', '1')
  .option('--queries <list>', 'queries (default: all)')
  .option('--threads <list>', "thread counts: 'default' (the cores) and/or numbers", 'default,1')
  .option('--rounds <n>', 'runs of each process', '3')
  .option('--json', 'print JSON', false)
  .action(async (name: string, o: { sf: string; queries?: string; threads: string; rounds: string; json: boolean }) => {
    const workload = workloadDef(name).name as WorkloadName;
    const duck = await DuckDBSession.open({ threads: 1 });
    const data = await generateWorkload(duck, { workload, sf: Number(o.sf) }, { onWrite: (t) => process.stderr.write(`writing ${t}\n`) });
    await duck.close();
    const counts = o.threads.split(',').map((t) => t.trim());
    const rounds = Math.max(1, Number(o.rounds));
    const rows: Record<string, unknown>[] = [];
    for (const q of selectQueries(workload, o.queries)) {
      const sql = await queryText(workload, q);
      for (const t of counts) {
        const set = t === 'default' ? [] : ['--set', `threads=${t}`];
        const joinlab: number[] = [];
        const duckdb: number[] = [];
        let error: string | null = null;
        for (let r = 0; r < rounds; r++) {
          const j = timed([join(root, 'bin/joinlab.mjs'), 'sql', '--data', data.dir, ...set, '--', sql]); // the texts start with a comment: after --
          const d = timed([join(root, 'bench/duckdb-once.mjs'), data.dir, sql, t]);
          if ('error' in j) error = `joinlab: ${j.error}`;
          else joinlab.push(j.ms);
          if ('error' in d) error = `duckdb: ${d.error}`;
          else duckdb.push(d.ms);
        }
        const jm = median(joinlab);
        const dm = median(duckdb);
        rows.push({ query: q, threads: t, joinlabMs: jm === null ? null : Math.round(jm), duckdbMs: dm === null ? null : Math.round(dm), ratio: jm !== null && dm !== null ? Number((jm / dm).toFixed(2)) : null, ...(error !== null ? { error } : {}) });
        if (!o.json) process.stderr.write(`${q} threads=${t}: joinlab ${jm?.toFixed(0)} ms, DuckDB ${dm?.toFixed(0)} ms\n`);
      }
    }
    if (o.json) process.stdout.write(`${JSON.stringify({ workload, sf: Number(o.sf), rounds, rows }, null, 2)}\n`);
    else {
      const header = ['query', 'threads', 'joinlab ms', 'DuckDB ms', 'ratio'];
      process.stdout.write(`${formatTable(header, rows.map((r) => [String(r.query), String(r.threads), String(r.joinlabMs ?? '-'), String(r.duckdbMs ?? '-'), r.ratio === null ? String(r.error ?? '-') : `${String(r.ratio)}x`]))}\n`);
      for (const t of counts) {
        const ratios = rows.filter((r) => r.threads === t && typeof r.ratio === 'number').map((r) => r.ratio as number);
        const geo = ratios.length === 0 ? null : Math.exp(ratios.reduce((a, x) => a + Math.log(x), 0) / ratios.length);
        process.stdout.write(`threads=${t}: geometric mean joinlab/DuckDB ${geo === null ? '-' : `${geo.toFixed(2)}x`} over ${ratios.length} queries (whole processes, median of ${rounds})\n`);
      }
    }
  });

await program.parseAsync(process.argv);
