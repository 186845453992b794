/**
 * Issue 31: every class of record that used to end a sqllogictest run (DuckDB's test/sql/join run
 * through `joinlab sqllogictest`) has a small file of its own in ./fixtures, and each is run here:
 * views in the setup, `default_null_order` / `default_order` and a setting joinlab cannot honour,
 * DuckDB's verification pragmas, a result repeating a column name, a query without `----`,
 * numeric and boolean comparison by column type, nested loops (lazy, capped), records written
 * wrongly. A run always reaches its summary; the CLI stops within seconds on SIGTERM, even while
 * it walks a file of nested loops.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { LimitExceededError } from '../../core/errors.ts';
import { sltRecords } from './parse.ts';
import { runSltFiles, type SltOutcome } from './run.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const BIN = fileURLToPath(new URL('../../bin/joinlab.mjs', import.meta.url));

async function run(name: string): Promise<readonly SltOutcome[]> {
  return (await runSltFiles([join(FIXTURES, name)], await Engine.create({ batchSize: 2 }))).outcomes;
}

const statuses = (os: readonly SltOutcome[]): string[] => os.map((o) => o.status);

describe('sqllogictest failure classes (issue 31)', () => {
  it('a view created by the setup is a table the queries read', async () => {
    const os = await run('views.test');
    expect(os.filter((o) => o.status !== 'passed'), JSON.stringify(os, null, 2)).toEqual([]);
    expect(os).toHaveLength(5);
  });

  it('default_null_order / default_order order the answer; a setting joinlab cannot honour skips, until RESET', async () => {
    const os = await run('null-order.test');
    const notPassed = os.filter((o) => o.status !== 'passed');
    expect(notPassed.map((o) => [o.line, o.status]), JSON.stringify(notPassed, null, 2)).toEqual([[60, 'skipped']]);
    expect(notPassed[0]!.reason).toMatch(/integer_division \(line 57\)/);
  });

  it("DuckDB's verification pragmas in the setup do not stop a query's result from being printed", async () => {
    const os = await run('verification.test');
    expect(statuses(os), JSON.stringify(os, null, 2)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed']);
  });

  it('a result that repeats a column name is printed and compared', async () => {
    const os = await run('duplicate-columns.test');
    expect(statuses(os), JSON.stringify(os, null, 2)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed', 'passed']);
  });

  it('a query without ---- passes when it runs', async () => {
    const os = await run('no-expected.test');
    expect(statuses(os), JSON.stringify(os, null, 2)).toEqual(['passed', 'passed', 'passed']);
  });

  it('values compare by column type: 6 matches 6.000000, true matches 1; a wrong number still fails', async () => {
    const os = await run('numeric-compare.test');
    expect(statuses(os), JSON.stringify(os, null, 2)).toEqual(['passed', 'passed', 'passed', 'failed']);
    expect(os[3]).toMatchObject({ reason: "row 1: got '6.0', expected '7.000000'", expected: ['1\t7.000000'], actual: ['1\t6.0'] });
  });

  it('a query record over DDL changes the session; expected errors as <REGEX>: / <!REGEX>:', async () => {
    const os = await run('duckdb-forms.test');
    expect(statuses(os), JSON.stringify(os, null, 2)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed']);
  });

  it('nested loops run every iteration', async () => {
    const os = await run('nested-loops.test');
    expect(statuses(os)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed']);
  });

  it('records written wrongly and an unclosed loop are one failure each; the records between them run', async () => {
    const os = await run('broken.test');
    expect(statuses(os), JSON.stringify(os, null, 2)).toEqual(['passed', 'failed', 'failed', 'passed', 'failed']);
    expect(os[1]!.reason).toMatch(/expected ok, error or maybe/);
    expect(os[2]!.reason).toMatch(/column types/);
    expect(os[4]!.reason).toMatch(/broken\.test:20: loop without endloop/);
  });

  it('loops past the cap are one failure, found before any expansion; the next file still runs', async () => {
    const t0 = Date.now();
    const s = await runSltFiles([join(FIXTURES, 'huge', 'huge-loops.test'), join(FIXTURES, 'no-expected.test')], await Engine.create());
    expect(statuses(s.outcomes)).toEqual(['failed', 'passed', 'passed', 'passed']);
    expect(s.outcomes[0]!.reason).toMatch(/expand to more than 1000000 records/);
    expect(Date.now() - t0).toBeLessThan(20_000);
    const text = '\nloop x 0 1000\n\nloop y 0 1000\n\nloop z 0 1000\n\nstatement ok\nSELECT 1\n\nendloop\n\nendloop\n\nendloop\n';
    expect(() => sltRecords(text, 'huge.test').next()).toThrow(LimitExceededError);
    // under the cap, the expansion is lazy: the first records come at once
    const lazy = sltRecords(text, 'huge.test', { maxRecords: 2e9 });
    expect(lazy.next().value).toMatchObject({ kind: 'statement', sql: 'SELECT 1' });
  });

  it('the CLI stops within seconds on SIGTERM while it walks nested loops, and does not crash', async () => {
    // the capped file first: its FAIL line (printed as it happens) says the run is under way
    const child = spawn(process.execPath, [BIN, 'sqllogictest', join(FIXTURES, 'huge', 'huge-loops.test'), join(FIXTURES, 'huge', 'long-run.test')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.on('exit', (code, signal) => res({ code, signal })));
    try {
      const started = Date.now();
      while (!stdout.includes('FAIL') && child.exitCode === null && Date.now() - started < 60_000) await new Promise((r) => setTimeout(r, 50));
      expect(stdout).toMatch(/FAIL .*huge-loops\.test:1: .*expand to more than 1000000 records/);
      await new Promise((r) => setTimeout(r, 1000));
      expect(child.exitCode).toBeNull(); // still walking long-run.test
      const signalled = Date.now();
      child.kill('SIGTERM');
      const { code } = await exited;
      expect(Date.now() - signalled).toBeLessThan(5000);
      expect(code).toBe(143);
      expect(stderr).toMatch(/interrupted \(SIGTERM\)/);
      expect(stderr).not.toMatch(/internal error|at async|Error:/);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});
