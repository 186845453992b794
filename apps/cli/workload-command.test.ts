/**
 * `joinlab workload`: one line per query and the summary, --json, the exit codes (0 every query
 * passed, 1 one did not, 2 a usage error before anything runs, as one stderr line).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './test-helpers.ts';

const SMALL = ['--sf', '0.01', '--warmup', '0'];

describe('joinlab workload', () => {
  it('prints a line per query and the summary; exit 0 when every query passed', async () => {
    const r = await runCli(['workload', 'ssb', ...SMALL, '--queries', 'q1.1,2.1', '--compare', '--threads', '1']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^query\s+status\s+joinlab\s+DuckDB\s+ratio\s+containers pruned per scan$/);
    expect(lines[1]).toMatch(/^q1\.1\s+passed\s+[\d.]+ ms\s+[\d.]+ ms\s+[\d.]+x\s+lineorder \d+\/\d+, dwdate \d+\/\d+$/);
    expect(lines[2]).toMatch(/^q2\.1\s+passed\s+/);
    expect(lines[3]).toMatch(/^ssb sf=0\.01: 2 queries: 2 passed; geometric mean joinlab\/DuckDB [\d.]+x over the 2 passed$/);
    expect(r.stderr).not.toMatch(/joinlab:/);
  });

  it('--json: every query with its times, scans and status, and the summary', async () => {
    const r = await runCli(['workload', 'tpch', ...SMALL, '--queries', 'q3', '--compare', '--json', '--set', 'threads=1']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ workload: 'tpch', sf: 0.01, threads: 1, compare: true, warmup: 0, repeat: 1, timeoutS: 300 });
    expect(report.data.tables.lineitem.rows).toBeGreaterThan(50_000);
    const [q3] = report.queries;
    expect(q3).toMatchObject({ name: 'q3', status: 'passed', rows: 10, duckdbRows: 10, joins: 2 });
    expect(q3.scans.map((s: { table: string }) => s.table).sort()).toEqual(['customer', 'lineitem', 'orders']);
    expect(report.summary).toMatchObject({ total: 1, allPassed: true, counts: { passed: 1 } });
  });

  it('exit 1 when a query does not pass (here: past its timeout), and the run goes on', async () => {
    const r = await runCli(['workload', 'ssb', ...SMALL, '--queries', 'q1.1,q1.2', '--threads', '1', '--timeout', '0.001']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^q1\.1\s+timeout\s+-\s+[\d.]+ ms\s+-\s+no answer after 0\.001 s$/m);
    expect(r.stdout).toMatch(/^q1\.2\s+timeout/m);
    expect(r.stdout).toMatch(/2 queries: 0 ran, 2 timeout; no ran query was timed against DuckDB$/m);
  });

  it('usage errors exit 2 with one stderr line, before any data is written', async () => {
    const cases: [string[], RegExp][] = [
      [['workload', 'tpcds'], /unknown workload 'tpcds'; workloads: ssb, tpch/],
      [['workload', 'tpch', '--sf', '0'], /scale factor for tpch: expected a number from 0\.001/],
      [['workload', 'tpch', '--sf', 'one'], /--sf expects a scale factor/],
      [['workload', 'tpch', '--queries', 'q23'], /tpch has no query 'q23'/],
      [['workload', 'ssb', '--threads', '2', '--set', 'threads=1'], /--threads and --set threads=… both given/],
      [['workload', 'ssb', '--timeout', '0'], /--timeout expects seconds/],
      [['workload', 'ssb', '--repeat', '0'], /--repeat expects an integer from 1/],
      [['workload', 'ssb', '--set', 'join=nope'], /nope/],
    ];
    for (const [argv, message] of cases) {
      const r = await runCli(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stdout, argv.join(' ')).toBe('');
      expect(r.stderr, argv.join(' ')).toMatch(message);
      expect(r.stderr.trimEnd().split('\n'), argv.join(' ')).toHaveLength(1);
    }
  });
});
