/**
 * `joinlab sql`: tables from --data and --table, the --compare verdict (equal, and ordered when the
 * query has ORDER BY), --json, --out, and the typed exits: unsupported SQL, syntax errors and bad
 * table flags exit 2, a difference from DuckDB exits 1. `joinlab sqllogictest`: the summary line,
 * and its progress bar only on a terminal (a real process with piped stderr writes nothing there).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { runCli } from './test-helpers.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-sqlcmd-'));
  const duck = await DuckDBSession.open({ threads: 1 });
  await duck.run(`COPY (SELECT range AS id, range % 7 AS cid, (range * 37) % 101 AS amount FROM range(1000)) TO '${dir}/orders.parquet' (FORMAT parquet)`);
  await duck.run(`COPY (SELECT range AS cid, 'c' || range AS name FROM range(5)) TO '${dir}/customers.parquet' (FORMAT parquet)`);
  await duck.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('joinlab sql', () => {
  it('runs over --data, compares equal to DuckDB, ordered', async () => {
    const r = await runCli(['sql', 'SELECT o.id, c.name FROM orders o JOIN customers c USING (cid) WHERE o.amount > 90 ORDER BY c.name, o.id', '--data', dir, '--compare']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+ rows in [\d.]+ ms \(1 join\)/);
    expect(r.stdout).toContain('equal to DuckDB');
  });

  it("--compare prints joinlab's time, DuckDB's and the ratio", async () => {
    const r = await runCli(['sql', 'SELECT o.id FROM orders o JOIN customers c USING (cid)', '--data', dir, '--compare']);
    expect(r.code).toBe(0);
    const m = /^time: joinlab ([\d.]+) ms, DuckDB ([\d.]+) ms \(ratio ([\d.]+)x: joinlab \/ DuckDB\)$/m.exec(r.stdout);
    expect(m).not.toBeNull();
    expect(Math.abs(Number(m![3]) / (Number(m![1]) / Number(m![2])) - 1)).toBeLessThan(0.01); // printed values are rounded
  });

  it('--explain prints a WHERE above an outer join as its predicate, not the word WHERE', async () => {
    const r = await runCli(['sql', "SELECT o.id FROM orders o LEFT JOIN customers c USING (cid) WHERE c.name IS NULL OR o.amount > 99", '--data', dir, '--explain']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('then: WHERE c.name IS NULL OR o.amount > 99 (above the join)');
    // a decorrelated subquery's value is named for what it is, not by its internal (NUL) name
    const sub = await runCli(['sql', 'SELECT count(*) FROM orders o WHERE o.amount > (SELECT avg(amount) FROM orders o2 WHERE o2.cid = o.cid)', '--data', dir, '--explain']);
    expect(sub.stdout).toContain('then: WHERE o.amount > (subquery) (above the join)');
    expect(sub.stdout).not.toContain('\u0000');
  });

  it('--table, --json with per-join metrics, --out', async () => {
    const out = join(dir, 'out.parquet');
    const r = await runCli(['sql', 'SELECT o.id FROM o JOIN c ON o.cid = c.cid', '--table', `o=${dir}/orders.parquet`, '--table', `c=${dir}/customers.parquet`, '--json', '--compare', '--out', out]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.rows).toBe(715); // ids whose id % 7 < 5
    expect(report.joins).toHaveLength(1);
    expect(report.joins[0].scans.left.containersTotal).toBeGreaterThan(0);
    expect(report.compare).toMatchObject({ equal: true, missing: 0, extra: 0, order: null });
    expect(report.compare.duckdbMs).toBeGreaterThan(0); // DuckDB's time and joinlab's / DuckDB's
    // the ratio of the unrounded times: within 1% of the ratio of the printed (rounded) ones
    expect(Math.abs(report.compare.ratio / (report.elapsedMs / report.compare.duckdbMs) - 1)).toBeLessThan(0.01);
    expect((await stat(out)).size).toBeGreaterThan(0);
  });

  it('typed exits: unsupported SQL and syntax errors exit 2 with the position; bad table flags exit 2', async () => {
    const unsupported = await runCli(['sql', 'SELECT row_number() OVER () FROM orders', '--data', dir]);
    expect(unsupported.code).toBe(2);
    expect(unsupported.stderr).toMatch(/unsupported SQL: .*at character 7/);
    const syntax = await runCli(['sql', 'SELEC 1', '--data', dir]);
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toMatch(/SQL syntax error at character 0/);
    const noTables = await runCli(['sql', 'SELECT 1']);
    expect(noTables.code).toBe(2);
    expect(noTables.stderr).toMatch(/sql needs tables/);
    const badFlag = await runCli(['sql', 'SELECT * FROM t', '--table', 't']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toMatch(/--table expects NAME=FILE/);
    const missing = await runCli(['sql', 'SELECT * FROM t JOIN u ON t.k = u.k', '--table', `t=${dir}/nope.parquet`, '--table', `u=${dir}/customers.parquet`]);
    expect(missing.code).toBe(2);
  });
});

const SMALL_TEST = [
  'statement ok',
  'CREATE TABLE t AS SELECT range AS k FROM range(4)',
  '',
  'query I rowsort',
  'SELECT t.k FROM t JOIN t AS u ON t.k = u.k',
  '----',
  '0',
  '1',
  '2',
  '3',
  '',
  'query I rowsort',
  'SELECT row_number() OVER () FROM t',
  '----',
  '4',
  '',
].join('\n');

describe('joinlab sqllogictest', () => {
  it("runs joinlab's corpus: a summary line, exit 0; --verbose lists the skips; a missing path exits 2", async () => {
    const corpus = join(import.meta.dirname, '../sqllogictest/corpus');
    const r = await runCli(['sqllogictest', corpus, '--verbose']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^skip .*\.test:\d+: unsupported SQL/m);
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^\d+ passed, 0 failed, \d+ skipped$/);
    const missing = await runCli(['sqllogictest', join(dir, 'nope')]);
    expect(missing.code).toBe(2);
  });

  it('a failure prints the query and both answers, expected and got', async () => {
    const f = join(dir, 'failing.test');
    await writeFile(f, ['statement ok', 'CREATE TABLE t AS SELECT range AS k FROM range(3)', '', 'query I rowsort', 'SELECT k', 'FROM t WHERE k > 0', '----', '1', '3', ''].join('\n'));
    const r = await runCli(['sqllogictest', f]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      [`FAIL ${f}:4: row 2: got '2', expected '3'`, '  query:', '    SELECT k', '    FROM t WHERE k > 0', '  expected:', '    1', '    3', '  got:', '    1', '    2', '1 passed, 1 failed, 0 skipped', ''].join('\n'),
    );
  });

  it('draws a progress bar on a terminal and erases it; the last stdout line is the summary', async () => {
    const f = join(dir, 'small.test');
    await writeFile(f, SMALL_TEST);
    const was = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
    Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
    let r;
    try {
      r = await runCli(['sqllogictest', f]);
    } finally {
      if (was) Object.defineProperty(process.stderr, 'isTTY', was);
      else delete (process.stderr as { isTTY?: boolean }).isTTY;
    }
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/ \d\/3 records \| 0 failed/);
    expect(r.stderr.endsWith('\x1b[2K')).toBe(true);
    expect(r.stdout).toBe('2 passed, 0 failed, 1 skipped\n');
  });

  it('writes nothing to stderr when it is not a terminal (a real process, stderr piped)', async () => {
    const f = join(dir, 'small-piped.test');
    await writeFile(f, SMALL_TEST);
    const bin = fileURLToPath(new URL('../../bin/joinlab.mjs', import.meta.url));
    const child = spawn(process.execPath, [bin, 'sqllogictest', f], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe('2 passed, 0 failed, 1 skipped\n');
  });
});
