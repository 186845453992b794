/**
 * CSV as a CLI input: `joinlab join --left a.csv --right b.parquet` and `joinlab sql --data DIR`
 * with a `.csv` file in DIR, and `joinlab run` on an experiment whose data files are CSV and
 * Parquet, each equal to DuckDB's answer on the same files; a malformed CSV input
 * exits 2 with one line naming the file and line.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { readTable } from '../../adapters/io/index.ts';
import { runCli } from './test-helpers.ts';

let dir: string;
let duck: DuckDBSession;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-cli-csv-'));
  duck = await DuckDBSession.open({ threads: 1 });
  const lines = ['id,cid,amount,note'];
  for (let i = 0; i < 500; i++) lines.push(`${i},${i % 9 === 0 ? '' : i % 7},${(i * 37) % 101},"n ${i % 4}"`);
  await writeFile(join(dir, 'orders.csv'), lines.join('\r\n') + '\r\n');
  await duck.run(`COPY (SELECT range::INTEGER AS cid, 'c' || range AS name FROM range(5)) TO '${dir}/customers.parquet' (FORMAT parquet)`);
});
afterAll(async () => {
  await duck.close();
  await rm(dir, { recursive: true, force: true });
});

describe('CSV inputs on the command line', () => {
  it('join --left a.csv --right b.parquet equals DuckDB', async () => {
    const out = join(dir, 'joined.parquet');
    const r = await runCli(['join', '--left', `${dir}/orders.csv`, '--right', `${dir}/customers.parquet`, '--on', 'cid=cid', '--type', 'left', '--select', 'id,amount,note,name', '--set', 'batchSize=64', '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const expected = await duck.query(`SELECT l.id, l.amount, l.note, r.name FROM read_csv('${dir}/orders.csv', allow_quoted_nulls = false) l LEFT JOIN '${dir}/customers.parquet' r ON l.cid = r.cid`);
    const c = compareResults(await readTable(out), expected);
    expect(c.equal, formatComparison(c)).toBe(true);
    expect(c.actualRows).toBe(500);
  });

  it('sql --data DIR reads the .csv file as a table and compares equal to DuckDB', async () => {
    const sql = 'SELECT c.name, count(*) AS n, sum(o.amount) AS total FROM orders o JOIN customers c ON o.cid = c.cid GROUP BY c.name ORDER BY c.name';
    const r = await runCli(['sql', sql, '--data', dir, '--compare', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.rows).toBe(5);
    expect(report.compare.equal).toBe(true);
    expect(report.scans.map((s: { table: string }) => s.table).sort()).toEqual(['customers', 'orders']);
    const ours = await runCli(['sql', 'SELECT count(*) AS n FROM orders WHERE cid IS NULL', '--table', `orders=${dir}/orders.csv`, '--json']);
    expect(ours.code).toBe(0);
    expect(JSON.parse(ours.stdout).rows).toBe(1);
  });

  it('sort a.csv equals DuckDB ORDER BY; join on worker threads', async () => {
    const out = join(dir, 'sorted.parquet');
    const r = await runCli(['sort', `${dir}/orders.csv`, '--by', 'amount desc, id', '--set', 'batchSize=50', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const expected = await duck.query(`SELECT * FROM read_csv('${dir}/orders.csv', allow_quoted_nulls = false) ORDER BY amount DESC, id`);
    const sorted = await readTable(out);
    expect([...sorted.getChild('id')!]).toEqual([...expected.getChild('id')!].map(Number));
    const threads = await runCli(['join', '--left', `${dir}/orders.csv`, '--right', `${dir}/customers.parquet`, '--on', 'cid=cid', '--set', 'threads=2', '--set', 'parallel.minProbeRows=0', '--set', 'parallel.minStartRows=0', '--set', 'batchSize=64', '--json']);
    expect(threads.code, threads.stderr).toBe(0);
    const n = Number((await duck.queryRows(`SELECT count(*) FROM read_csv('${dir}/orders.csv', allow_quoted_nulls = false) l JOIN '${dir}/customers.parquet' r ON l.cid = r.cid`))[0]![0]);
    expect(JSON.parse(threads.stdout).rows).toBe(n);
  });

  it('run: an experiment whose data files are CSV and Parquet, at parity with DuckDB', async () => {
    const exp = join(dir, 'exp.yaml');
    await writeFile(exp, 'name: csv files\ndata: { left: orders.csv, right: customers.parquet }\njoin: { type: inner, on: cid=cid }\nvariants: [{ name: auto, config: {} }]\nrepeat: 1\nwarmup: 0\n');
    const r = await runCli(['run', exp, '--out', join(dir, 'exp-out')]);
    expect(r.code, r.stderr).toBe(0);
    const n = Number((await duck.queryRows(`SELECT count(*) FROM read_csv('${dir}/orders.csv', allow_quoted_nulls = false) l JOIN '${dir}/customers.parquet' r ON l.cid = r.cid`))[0]![0]);
    const results = JSON.parse(await readFile(join(dir, 'exp-out', 'results.json'), 'utf8'));
    expect(results.datasets[0].files.left.rows).toBe(500);
    expect(results.datasets[0].variants[0]).toMatchObject({ status: 'ok', rows: n, parity: { equal: true } });
  });

  it('a malformed CSV input exits 2 with one line naming file and line', async () => {
    await writeFile(join(dir, 'bad.csv'), 'a,b\n1,2\n3,"open\n');
    const r = await runCli(['join', '--left', `${dir}/bad.csv`, '--right', `${dir}/customers.parquet`, '--on', 'a=cid']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/bad\.csv: line 3: a quoted field is never closed/);
  });
});
