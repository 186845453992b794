/**
 * The runner end to end on tiny generated data (repeat 1, warmup 0): the files it writes, parity
 * against DuckDB, a row (not a crash) for an algorithm that cannot run the join, fail-fast config,
 * a run past the experiment's timeout recorded as a timeout (the run goes on to its summary), and
 * the information-passing summary of a `sip` variant.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { tableFromArrays } from 'apache-arrow';
import { Engine } from '../../composition.ts';
import { CancelledError, ConfigError, FileNotFoundError } from '../../core/errors.ts';
import { writeIpcFile } from '../../adapters/io/ipc.ts';
import { writeParquetFile } from '../../adapters/io/parquet.ts';
import { formatResultsTable } from './report.ts';
import type { JoinDatasetResult } from './results.ts';
import { runExperiment, type ExperimentResults } from './runner.ts';

const tmp = mkdtempSync(join(tmpdir(), 'joinlab-runner-'));
const dataRoot = join(tmp, 'data');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = join(tmp, name);
  writeFileSync(file, text);
  return file;
}

const TINY_STAR = `
name: tiny star
description: "pushdown on a <b>tiny</b> star"
data:
  generator: star
  params: { orders: 20000, customers: 1000, selectivity: 0.05, clusterSize: 10 }
  seed: 3
  rowGroupSize: 2048
join: { type: inner, on: customer_id=customer_id }
variants:
  - { name: none, config: { pushdown: none } }
  - { name: map, config: { pushdown: map } }
  - { name: "map <no bitmap>", config: { pushdown: map, pushdown.keyRangeBitmap: false } }
repeat: 1
warmup: 0
`;

describe('runExperiment', () => {
  it('runs a tiny experiment end to end and writes results.json, report.html and the experiment', async () => {
    const file = write('tiny-star.yaml', TINY_STAR);
    const out = join(tmp, 'out-star');
    const r = await runExperiment(file, { out, progress: false, dataRoot });

    const json = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ExperimentResults;
    expect(json.experiment).toMatchObject({ name: 'tiny star', repeat: 1, warmup: 0, duckdb: true, parity: true, copy: 'tiny-star.yaml' });
    expect(json.machine.cpus).toBeGreaterThan(0);
    expect(json.machine.node).toBe(process.version);
    expect(json.machine.duckdb).toMatch(/^v\d/);
    // the run's conditions: load average at start and end, malloc settings, thread counts
    expect(json.machine.loadAverage!.start).toHaveLength(3);
    expect(json.machine.loadAverage!.end).toHaveLength(3);
    expect(json.machine.allocator).toEqual({
      MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? 'not set',
      MALLOC_TRIM_THRESHOLD_: process.env.MALLOC_TRIM_THRESHOLD_ ?? 'not set',
    });
    expect(json.machine.threads).toEqual({ joinlab: { none: 1, map: 1, 'map <no bitmap>': 1 }, duckdb: 1 });
    expect(json.datasets).toHaveLength(1);
    const d = json.datasets[0]! as JoinDatasetResult;
    expect(d.variants.map((v) => [v.name, v.parity?.equal, v.parity?.missing, v.parity?.extra, v.details])).toEqual(
      d.variants.map((v) => [v.name, true, 0, 0, v.details]),
    );
    expect(json.parityOk).toBe(true);
    expect(d.files.left.rows).toBe(20000);
    expect(d.files.left.rowGroups).toBeGreaterThan(5);
    expect(d.variants.map((v) => v.name)).toEqual(['none', 'map', 'map <no bitmap>']);
    for (const v of d.variants) {
      expect(v.status).toBe('ok');
      expect(v.time!.runsMs).toHaveLength(1);
      expect(v.parity).toMatchObject({ equal: true, missing: 0, extra: 0 });
      expect(v.rows).toBe(d.duckdb!.rows);
      expect(v.probeSide).toBe('left');
      expect(v.config.memoryLimit).toBe('unlimited');
      expect(v.ratio).toBeGreaterThan(0);
    }
    const [none, map, noBitmap] = d.variants;
    expect(none!.probe!.containersPruned).toBe(0);
    expect(none!.dynamicFilter).toBe('none');
    expect(map!.probe!.containersPruned).toBeGreaterThan(0);
    expect(map!.probe!.rowsDecoded).toBeLessThan(none!.probe!.rowsDecoded);
    expect(map!.config['pushdown.keyRangeBitmap']).toBe(true);
    expect(noBitmap!.config['pushdown.keyRangeBitmap']).toBe(false);
    expect(d.duckdb).toMatchObject({ name: 'duckdb', threads: 1 });
    expect(d.duckdb!.time!.runsMs).toHaveLength(1);
    expect(r.datasets[0]!.variants[1]!.probe).toEqual(map!.probe);

    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html.match(/<svg/g)).toHaveLength(5);
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('&lt;b&gt;tiny&lt;/b&gt;');
    expect(html).toContain('map &lt;no bitmap&gt;');
    expect(html).not.toContain('<no bitmap>');
    expect(readFileSync(join(out, 'tiny-star.yaml'), 'utf8')).toBe(TINY_STAR);
    expect(readdirSync(out).sort()).toEqual(['report.html', 'results.json', 'tiny-star.yaml']);

    const table = formatResultsTable(r);
    expect(table).toContain('duckdb (threads=1)');
    expect(table).toMatch(/map\s.*✓/);

    // The generated files are cached: a second run reuses them.
    const again = await runExperiment(file, { out: join(tmp, 'out-star-2'), progress: false, dataRoot });
    expect((again.datasets[0]! as JoinDatasetResult).data).toMatchObject({ cached: true });
    expect(readdirSync(dataRoot)).toHaveLength(1);
  });

  it('gives a variant whose algorithm cannot run the join a row, not a crash', async () => {
    const file = write(
      'tiny-range.yaml',
      `
name: tiny range
data: { generator: range, params: { leftRows: 300, rightRows: 200, overlap: 0.3 }, rowGroupSize: 2048 }
join: { type: inner, range: l.v > r.v }
variants:
  - { name: hash, config: { join: hash } }
  - { name: nested-loop, config: { join: nested-loop } }
repeat: 1
warmup: 0
`,
    );
    const out = join(tmp, 'out-range');
    const r = await runExperiment(file, { out, progress: false, dataRoot });
    const [hash, nl] = r.datasets[0]!.variants;
    expect(hash).toMatchObject({ name: 'hash', status: 'unsupported', parity: null, ratio: null });
    expect(hash!.reason).toMatch(/equi-key/);
    expect(nl).toMatchObject({ name: 'nested-loop', status: 'ok', parity: { equal: true } });
    expect(nl!.rows).toBeGreaterThan(0);
    expect(r.parityOk).toBe(true);
    expect(formatResultsTable(r)).toMatch(/hash: unsupported — join algorithm 'hash' cannot run this join/);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html.match(/<svg/g)).toHaveLength(5);
    expect(html).toContain('unsupported');
  });

  it('runs on user files (Parquet and Arrow IPC) named relative to the experiment file', async () => {
    const dir = join(tmp, 'user');
    mkdirSync(join(dir, 'files'), { recursive: true });
    const k = Array.from({ length: 300 }, (_, i) => BigInt(i % 50));
    await writeParquetFile(join(dir, 'files', 'probe.parquet'), tableFromArrays({ k: BigInt64Array.from(k), v: Int32Array.from(k.keys()) }));
    await writeIpcFile(join(dir, 'files', 'build.arrow'), tableFromArrays({ k: BigInt64Array.from([3n, 7n, 49n, 60n]), w: Float64Array.from([0.5, 1, 2, 3]) }));
    const file = join(dir, 'user.yaml');
    writeFileSync(
      file,
      `name: user files
data: { left: files/probe.parquet, right: ./files/build.arrow }
join: { type: left-semi, on: k=k, filter: "r.w > 0.5" }
variants: [{ name: auto, config: {} }]
repeat: 1
warmup: 0
`,
    );
    const r = await runExperiment(file, { out: join(tmp, 'out-user'), progress: false });
    const d = r.datasets[0]! as JoinDatasetResult;
    expect(d.name).toBe('probe.parquet x build.arrow');
    expect(d.files.left).toMatchObject({ rows: 300 });
    expect(d.files.right).toMatchObject({ rows: 4 });
    expect(d.variants[0]).toMatchObject({ status: 'ok', rows: 12, parity: { equal: true } });
    expect(d.duckdb!.rows).toBe(12);

    writeFileSync(file, readFileSync(file, 'utf8').replace('probe.parquet', 'missing.parquet'));
    await expect(runExperiment(file, { out: join(tmp, 'out-user-2'), progress: false })).rejects.toBeInstanceOf(FileNotFoundError);
  });

  it('fails before generating data when a variant names an unknown strategy', async () => {
    const file = write('bad-strategy.yaml', TINY_STAR.replace('{ pushdown: none }', '{ join: merge-sort }'));
    const out = join(tmp, 'out-bad');
    const err = await runExperiment(file, { out, progress: false, dataRoot: join(tmp, 'never') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe('variants[0].config.join');
    expect((err as Error).message).toMatch(/unknown join strategy 'merge-sort'.*variant 'none'/);
    expect(existsSync(join(tmp, 'never'))).toBe(false);
    expect(existsSync(out)).toBe(false);
  });
});

describe('runExperiment: repeat: auto', () => {
  it('repeats each variant (and DuckDB) until precise, out of runs or out of budget, and records how many runs and why', async () => {
    const file = write(
      'tiny-auto.yaml',
      TINY_STAR.replace('repeat: 1\n', 'repeat: auto\nrepeatAuto: { precision: 0.5, minRuns: 3, maxRuns: 6, budgetSeconds: 2 }\n').replace(/  - \{ name: "map <no bitmap>".*\n/, ''),
    );
    const r = await runExperiment(file, { out: join(tmp, 'out-auto'), progress: false, dataRoot });
    expect(r.experiment).toMatchObject({ repeat: 'auto', repeatAuto: { precision: 0.5, minRuns: 3, maxRuns: 6, budgetSeconds: 2 } });
    const d = r.datasets[0]!;
    for (const t of [...d.variants.map((v) => v.time!), d.duckdb!.time!]) {
      expect(['precise', 'maxRuns', 'budget']).toContain(t.stop);
      expect(t.runsMs.length).toBeGreaterThanOrEqual(1);
      expect(t.runsMs.length).toBeLessThanOrEqual(6);
      if (t.stop === 'precise') expect(t.relativeHalfWidth!).toBeLessThanOrEqual(0.5);
      if (t.runsMs.length >= 3) expect(t.ci95!.loMs).toBeLessThanOrEqual(t.medianMs);
    }
    const table = formatResultsTable(r);
    expect(table).toContain('95% CI ms');
    expect(readFileSync(join(tmp, 'out-auto', 'report.html'), 'utf8')).toContain('timed runs until the 95% CI of the median is within ±50% of it (3–6 runs, at most 2 s)');
  });
});

describe('runExperiment: sql data sets', () => {
  const sqlRoot = join(tmp, 'sql-data');
  const TINY_SQL = `
name: tiny star schema
sql: >-
  SELECT f.date_key, f.quantity, c.region, s.discount
  FROM fact f JOIN date_dim d ON f.date_key = d.date_key
  JOIN customer c ON f.customer_key = c.customer_key
  JOIN segments s ON c.segment = s.segment
  WHERE d.year = 2024 AND d.quarter = 1 AND c.region = 'region-07'
tables:
  fact: { generator: starschema, params: &p { factRows: 8192, customers: 1000, products: 200, customerRunRows: 1024, productRunRows: 512 }, rowGroupSize: 2048, table: fact }
  date_dim: { generator: starschema, params: *p, rowGroupSize: 2048, table: date_dim }
  customer: { generator: starschema, params: *p, rowGroupSize: 2048, table: customer }
  segments: files/segments.arrow
config: { join: hash }
variants:
  - { name: none, config: { pushdown: none } }
  - { name: bounds, config: { pushdown: bounds } }
repeat: 1
warmup: 0
`;

  it('runs each variant through engine.sql and sums the query’s joins and scans, with parity against DuckDB', async () => {
    const dir = join(tmp, 'sql');
    mkdirSync(join(dir, 'files'), { recursive: true });
    await writeIpcFile(join(dir, 'files', 'segments.arrow'), tableFromArrays({ segment: ['consumer', 'corporate', 'small business'], discount: Float64Array.from([0, 0.1, 0.2]) }));
    const file = join(dir, 'tiny-sql.yaml');
    writeFileSync(file, TINY_SQL);
    const out = join(tmp, 'out-sql');
    const r = await runExperiment(file, { out, progress: false, dataRoot: sqlRoot });

    expect(r.parityOk).toBe(true);
    const d = r.datasets[0]!;
    if (d.kind !== 'sql') throw new Error('expected a sql data set');
    expect(d.name).toBe('sql over fact, date_dim, customer, segments');
    expect(d.sql).toMatch(/^SELECT f\.date_key/);
    expect(Object.keys(d.tables)).toEqual(['fact', 'date_dim', 'customer', 'segments']);
    expect(d.tables.fact!.file).toMatchObject({ rows: 8192, rowGroups: 4 });
    expect(d.tables.fact!.source).toMatchObject({ kind: 'generated', table: 'fact', cached: false });
    expect(d.tables.segments!.source).toEqual({ kind: 'file', path: join(dir, 'files', 'segments.arrow') });
    expect(readdirSync(sqlRoot)).toHaveLength(1); // one generated data set for the three tables
    const rows = d.duckdb!.rows;
    expect(rows).toBeGreaterThan(0);
    const fileRows = Object.values(d.tables).reduce((s, t) => s + t.file.rows, 0);
    for (const v of d.variants) {
      expect(v).toMatchObject({ status: 'ok', algorithm: 'hash', rows, joins: 3, parity: { equal: true, missing: 0, extra: 0 } });
      expect(v.scans).toHaveLength(4);
      expect(v.probe!.containersTotal).toBe(v.scans!.reduce((s, x) => s + x.scan.containersTotal, 0));
      expect(v.probe!.rowsDecoded).toBe(v.scans!.reduce((s, x) => s + x.scan.rowsDecoded, 0));
      expect(v.probe!.rowsDecoded).toBeLessThanOrEqual(fileRows);
      expect(v.build).toBeUndefined();
      expect(v.joinMs).toBeGreaterThan(0);
      expect(v.ratio).toBeGreaterThan(0);
      expect(v.details!['join1.build']).toBe('right');
    }
    const [none, bounds] = d.variants;
    expect(none!.dynamicFilter).toBe('none ; none ; none');
    expect(bounds!.dynamicFilterLabel).toMatch(/^bounds ; bounds/);
    // the date bounds skip fact row groups that pushdown=none reads
    expect(bounds!.probe!.containersPruned).toBeGreaterThan(none!.probe!.containersPruned);
    expect(bounds!.probe!.rowsDecoded).toBeLessThan(none!.probe!.rowsDecoded);

    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html.match(/<svg/g)).toHaveLength(5);
    expect(html).toContain('SQL (joinlab and DuckDB)');
    expect(html).toContain('scan pruned/total');
    expect(html).toContain('fact: ');
    const table = formatResultsTable(r);
    expect(table).toContain('sql SELECT f.date_key, f.quantity');
    expect(table).toContain('fact 8,192 rows / 4 row groups (starschema fact)');
    expect(table).toMatch(/bounds\s.*✓/);
    const json = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ExperimentResults;
    expect(json.datasets[0]).toMatchObject({ kind: 'sql', tables: { fact: { file: { rows: 8192 } } } });
  });

  it('fails on a query that does not parse before generating any data', async () => {
    const file = write('bad-sql.yaml', TINY_SQL.replace('SELECT f.date_key', 'SELEC f.date_key').replace('segments: files/segments.arrow', 'segments: segments.parquet'));
    const root = join(tmp, 'never-sql');
    const err = await runExperiment(file, { out: join(tmp, 'out-bad-sql'), progress: false, dataRoot: root }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe('sql');
    expect((err as Error).message).toMatch(/sql: .*syntax error/i);
    expect(existsSync(root)).toBe(false);
  });
});

describe('runExperiment: workload data sets', () => {
  it('runs workload queries on their generated tables, one data set per query, the data generated once', async () => {
    const file = write(
      'workload.yaml',
      `
name: tiny workload
datasets:
  - { workload: { name: tpch, query: q3, sf: 0.01 } }
  - { name: outer, workload: { name: tpch, query: q13, sf: 0.01 } }
config: { join: hash }
variants:
  - { name: none, config: { pushdown: none } }
  - { name: bounds, config: { pushdown: bounds } }
repeat: 1
warmup: 0
`,
    );
    const root = join(tmp, 'workload-data');
    const r = await runExperiment(file, { out: join(tmp, 'out-workload'), progress: false, dataRoot: root });
    expect(r.parityOk).toBe(true);
    const [q3, q13] = r.datasets;
    if (q3?.kind !== 'sql' || q13?.kind !== 'sql') throw new Error('expected sql data sets');
    expect(q3.name).toBe('tpch q3 sf=0.01');
    expect(q3.sql).toContain("c_mktsegment = 'BUILDING'");
    expect(Object.keys(q3.tables)).toEqual(['region', 'nation', 'supplier', 'customer', 'part', 'partsupp', 'orders', 'lineitem']);
    expect(q3.tables.lineitem!.source).toMatchObject({ kind: 'workload', table: 'lineitem', data: { workload: 'tpch', sf: 0.01 } });
    expect(readdirSync(root)).toHaveLength(1); // one workload data set for both data sets
    for (const v of q3.variants) expect(v).toMatchObject({ status: 'ok', rows: 10, joins: 2, parity: { equal: true } });
    // q13: a LEFT JOIN under a derived table with column aliases, grouped twice
    for (const v of q13.variants) expect(v).toMatchObject({ status: 'ok', parity: { equal: true } });
    expect(formatResultsTable(r)).toContain('lineitem');
  });
});

describe('runExperiment: join orders', () => {
  it('runs each variant under the cost order and random:1 … random:N, summarises them and compares with the baseline', async () => {
    const file = write(
      'orders.yaml',
      `
name: tiny orders
workload: { name: ssb, query: q2.1, sf: 0.01 }
config: { join: hash }
variants:
  - { name: none, config: { pushdown: none } }
  - { name: auto, config: { pushdown: auto } }
orders: 2
repeat: 1
warmup: 0
`,
    );
    const out = join(tmp, 'out-orders');
    const r = await runExperiment(file, { out, progress: false, dataRoot: join(tmp, 'orders-data') });
    expect(r.parityOk).toBe(true);
    expect(r.experiment).toMatchObject({ orders: 2, baseline: 'none' });
    const d = r.datasets[0]!;
    for (const v of d.variants) {
      expect(v.status).toBe('ok');
      expect(v.config['sql.joinOrder']).toBe('cost');
      expect(v.orders!.map((o) => [o.order, o.status, o.parity?.equal, o.time?.runsMs.length])).toEqual([
        ['cost', 'ok', true, 1],
        ['random:1', 'ok', true, 1],
        ['random:2', 'ok', true, 1],
      ]);
      for (const o of v.orders!) {
        expect(o.joinRows).toHaveLength(o.joins!);
        expect(o.largestJoinRows).toBe(Math.max(...o.joinRows!));
        expect(o.rows).toBe(d.duckdb!.rows);
      }
      const s = v.ordersSummary!;
      expect(s).toMatchObject({ orders: 3, ran: 3, failed: [], costMs: v.time!.medianMs, costLargestJoinRows: v.largestJoinRows });
      expect(s.minMs!).toBeLessThanOrEqual(s.medianMs!);
      expect(s.medianMs!).toBeLessThanOrEqual(s.maxMs!);
      expect(s.maxOverMin).toBeGreaterThanOrEqual(1);
      expect(s.largestJoinRows).toBe(Math.max(...v.orders!.map((o) => o.largestJoinRows!)));
    }
    // the random orders run other plans than the cost order
    const [none, auto] = d.variants;
    expect(new Set(none!.orders!.map((o) => JSON.stringify(o.joinRows))).size).toBeGreaterThan(1);
    expect(none!.comparison).toBeUndefined();
    expect(auto!.comparison).toMatchObject({ baseline: 'none' });
    expect(auto!.comparison!.text).toMatch(/^(\d+\.\d\dx (faster|slower)|no change)$/);
    expect(r.comparison!.variants.map((v) => [v.name, v.compared])).toEqual([
      ['none', 1],
      ['auto', 1],
    ]);

    const json = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ExperimentResults;
    expect(json.datasets[0]!.variants[1]!.ordersSummary).toEqual(auto!.ordersSummary);
    expect(json.comparison).toEqual(r.comparison);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html.match(/<svg/g)).toHaveLength(6);
    expect(html).toContain('<h2>Against none</h2>');
    const table = formatResultsTable(r);
    expect(table).toContain('join orders cost, random:1, random:2');
    expect(table).toContain('tiny orders: against none over 1 data set');
  });
});

describe('runExperiment: timeout', () => {
  // A deliberately slow query at a tiny scale: 40,000 x 40,000 rows joined on id, one match each.
  // The hash join answers in well under the timeout (~0.1 s); the nested-loop join tests all 1.6G
  // pairs (~8 s here), so its first run is aborted after the timeout of 1 s (long enough for a
  // hash run of the loaded full suite, short enough to keep the test quick).
  const SLOW = `
name: slow
sql: SELECT count(*) AS n FROM l JOIN r ON l.id = r.id
tables:
  l: { generator: range, params: &p { leftRows: 40000, rightRows: 40000 }, table: left }
  r: { generator: range, params: *p, table: right }
variants:
  - { name: hash, config: { join: hash } }
  - { name: nested-loop, config: { join: nested-loop } }
orders: 1
repeat: 2
warmup: 1
timeout: 1
`;

  it('records a run past the timeout as a timeout, skips its other runs, and finishes with its summary', async () => {
    const file = write('slow.yaml', SLOW);
    const out = join(tmp, 'out-slow');
    const sql = vi.spyOn(Engine.prototype, 'sql');
    let r: ExperimentResults;
    let engines: Engine[];
    try {
      r = await runExperiment(file, { out, progress: false, dataRoot: join(tmp, 'slow-data') });
    } finally {
      engines = sql.mock.contexts as Engine[];
      sql.mockRestore();
    }
    // engine.sql calls per variant: every run of both orders for hash, the first (timed-out) one of each order for nested-loop
    const calls = (algorithm: string) => engines.filter((e) => e.config.join === algorithm).length;
    expect([calls('hash'), calls('nested-loop')]).toEqual([2 * 3, 2 * 1]);
    expect(r.experiment.timeout).toBe(1);
    expect(r.parityOk).toBe(true);
    const d = r.datasets[0]!;
    const [hash, nl] = d.variants;
    expect(hash).toMatchObject({ status: 'ok', rows: 1, parity: { equal: true } });
    expect(hash!.time!.runsMs).toHaveLength(2);
    expect(nl).toMatchObject({ status: 'timeout', parity: null, ratio: null, comparison: { verdict: 'timeout', text: 'timeout', ratio: null } });
    expect(nl!.reason).toBe('no answer within 1 s (warm-up 1/1); its other runs skipped');
    expect(nl!.time).toBeUndefined();
    expect(nl!.orders!.map((o) => [o.order, o.status])).toEqual([
      ['cost', 'timeout'],
      ['random:1', 'timeout'],
    ]);
    expect(nl!.ordersSummary).toMatchObject({ ran: 0, timedOut: ['cost', 'random:1'], costMs: 1000, maxMs: 1000, maxOverMin: null });
    expect(nl!.ordersSummary!.lowerBounds).toEqual(expect.arrayContaining(['costMs', 'maxMs']));
    expect(d.duckdb).toMatchObject({ status: 'ok', rows: 1 });
    expect(r.comparison!.variants.map((v) => [v.name, v.timeout, v.text])).toEqual([
      ['hash', 0, 'baseline'],
      ['nested-loop', 1, 'timeout'],
    ]);

    const json = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ExperimentResults;
    expect(json.experiment.timeout).toBe(1);
    expect(json.datasets[0]!.variants[1]).toMatchObject({ status: 'timeout', reason: nl!.reason });
    const table = formatResultsTable(r);
    expect(table).toMatch(/^nested-loop\s+> 1000\s+timeout\s/m);
    expect(table).toContain('nested-loop: timeout — no answer within 1 s (warm-up 1/1); its other runs skipped');
    expect(table).toContain('nested-loop [random:1]: timeout');
    expect(table).toContain('slow: against hash over 1 data set');
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('each run limited to 1 s');
  }, 60_000);

  it("DuckDB past the timeout: its runs and its answer are timeouts too (interrupted), and parity says it was not checked", async () => {
    // every one of 10G pairs tested by an expression: seconds for DuckDB too
    const file = write(
      'slow-duckdb.yaml',
      `
name: slow duckdb
sql: SELECT count(*) AS n FROM l, r WHERE (l.v * r.v) % 7 = 3
tables:
  l: { generator: range, params: &p { leftRows: 100000, rightRows: 100000 }, table: left }
  r: { generator: range, params: *p, table: right }
variants: [{ name: auto }]
repeat: 1
warmup: 0
timeout: 0.5
`,
    );
    const r = await runExperiment(file, { out: join(tmp, 'out-slow-duckdb'), progress: false, dataRoot: join(tmp, 'slow-data') });
    const d = r.datasets[0]!;
    expect(d.parityUnchecked).toBe("no answer within 0.5 s (DuckDB's answer for the parity checks); no answer checked, no DuckDB run timed");
    expect(d.duckdb).toEqual({ name: 'duckdb', threads: 1, status: 'timeout', reason: d.parityUnchecked });
    expect(d.variants[0]).toMatchObject({ status: 'timeout', parity: null, reason: 'no answer within 0.5 s (run 1/1)' });
    expect(r.parityOk).toBe(true); // nothing checked, nothing differed
    const table = formatResultsTable(r);
    expect(table).toContain("parity not checked: no answer within 0.5 s (DuckDB's answer for the parity checks)");
    expect(table).toMatch(/^duckdb \(threads=1\)\s+> 500\s+timeout/m);

    // without parity, DuckDB's own timed run times out (and is interrupted: the run goes on at once)
    writeFileSync(file, readFileSync(file, 'utf8').replace('timeout: 0.5', 'timeout: 0.5\nparity: false'));
    const again = await runExperiment(file, { out: join(tmp, 'out-slow-duckdb-2'), progress: false, dataRoot: join(tmp, 'slow-data') });
    expect(again.datasets[0]!.duckdb).toEqual({ name: 'duckdb', threads: 1, status: 'timeout', reason: 'no answer within 0.5 s (run 1/1)' });
    expect(again.datasets[0]!.parityUnchecked).toBeUndefined();
  }, 60_000);

  it('an abort of the caller\'s signal stops the experiment with its reason, writing nothing', async () => {
    const file = write('slow-interrupted.yaml', SLOW.replace('timeout: 1', '').replace('orders: 1', ''));
    const out = join(tmp, 'out-interrupted');
    const controller = new AbortController();
    // abort once the nested-loop variant is running (its first log line)
    const log = (line: string) => {
      if (line.includes('nested-loop (1 warm-up')) setTimeout(() => controller.abort(new CancelledError('interrupted (SIGTERM)')), 200);
    };
    const err = await runExperiment(file, { out, progress: false, log, signal: controller.signal, dataRoot: join(tmp, 'slow-data') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CancelledError);
    expect((err as Error).message).toMatch(/interrupted \(SIGTERM\)/);
    expect(existsSync(join(out, 'results.json'))).toBe(false);
  }, 60_000);
});

describe('runExperiment: information passing', () => {
  it("keeps each variant's sip summary: a transfer variant's transfers, rows dropped and filter bytes", async () => {
    const file = write(
      'sip.yaml',
      `
name: tiny sip
workload: { name: ssb, query: q2.1, sf: 0.01 }
variants:
  - { name: dynamic, config: { sip: dynamic } }
  - { name: transfer, config: { sip: transfer } }
repeat: 1
warmup: 0
`,
    );
    const out = join(tmp, 'out-sip');
    const r = await runExperiment(file, { out, progress: false, dataRoot: join(tmp, 'orders-data') });
    expect(r.parityOk).toBe(true);
    const [dynamic, transfer] = r.datasets[0]!.variants;
    expect(dynamic!.sip).toEqual([expect.objectContaining({ strategy: 'dynamic', note: null, joinFilters: true, transfers: [] })]);
    expect(transfer!.sip).toHaveLength(1);
    const s = transfer!.sip![0]!;
    expect(s).toMatchObject({ strategy: 'transfer', root: 'lineorder', note: null, joinFilters: false });
    expect(s.transfers.length).toBeGreaterThan(0);
    for (const t of s.transfers) {
      expect(t.pass === 'forward' || t.pass === 'backward').toBe(true);
      expect(t.rowsDropped).toBeLessThanOrEqual(t.rowsTested);
      expect(t.bytes).toBeGreaterThan(0);
    }
    const dropped = s.transfers.reduce((n, t) => n + t.rowsDropped, 0);
    expect(dropped).toBeGreaterThan(0); // q2.1's part and supplier filters drop lineorder rows before any join
    // the joins' own filters are built under transfer but never applied: the filter column says so
    expect(dynamic!.dynamicFilterLabel).not.toMatch(/not applied/);
    expect(transfer!.dynamicFilterLabel).toMatch(/\(built, not applied\)/);

    const json = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ExperimentResults;
    expect(json.datasets[0]!.variants[1]!.sip).toEqual(transfer!.sip);
    const table = formatResultsTable(r);
    expect(table).toContain('information passing (sip, docs/sip.md)');
    expect(table).toMatch(new RegExp(`^transfer\\s+transfer\\s+${s.transfers.length}\\s+${dropped}\\s+\\d`, 'm'));
    expect(table).toMatch(/^dynamic\s+dynamic\s+0\s+0\s+0 B/m);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('<h3>Information passing</h3>');
  });
});
