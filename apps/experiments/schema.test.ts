/**
 * Experiment-file validation: good files parse with their defaults, and every kind of mistake is a
 * ConfigError whose message and `key` name the exact key path (so a typo never runs silently).
 */
import { readdir } from 'node:fs/promises';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.ts';
import { joinOrdersOf, loadExperiment, parseExperiment, parseExperimentText, repeatPlanOf, type JoinDataset } from './schema.ts';

const GOOD = `
name: good
description: a small experiment
data:
  generator: star
  params: { orders: 1000 }
join: { type: inner, on: customer_id=customer_id, filter: "l.amount > 10" }
variants:
  - { name: none, config: { pushdown: none } }
  - { name: map, config: { pushdown: map, pushdown.keyRangeBitmap: false, hash: { mode: partitioned } } }
`;

/** Parses `text` and returns the ConfigError it must throw. */
function errorOf(text: string): ConfigError {
  try {
    parseExperimentText(text, { source: 'x.yaml', baseDir: '/exp' });
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const tmp = mkdtempSync(join(tmpdir(), 'joinlab-schema-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('experiment schema', () => {
  it('parses a good file and fills the defaults', () => {
    const e = parseExperimentText(GOOD, { source: 'good.yaml', baseDir: '/exp' });
    expect(e.name).toBe('good');
    expect([e.repeat, e.warmup, e.duckdb, e.parity]).toEqual([3, 1, true, true]);
    expect(e.datasets).toHaveLength(1);
    const d = e.datasets[0]! as JoinDataset;
    expect(d.kind).toBe('join');
    expect(d.name).toBe('star');
    expect(d.data).toEqual({
      kind: 'generator',
      generator: 'star',
      params: { orders: 1000, customers: 100_000, selectivity: 0.01, clusterSize: 32 },
      seed: 1,
      rowGroupSize: 10_240,
    });
    expect(d.spec.on).toEqual([{ left: 'customer_id', right: 'customer_id' }]);
    expect(d.spec.filter).toBeDefined();
    expect(e.variants.map((v) => v.name)).toEqual(['none', 'map']);
    const map = e.variants[1]!;
    expect(map.config.pushdown).toBe('map');
    expect(map.config['pushdown.keyRangeBitmap']).toBe(false);
    expect(map.config['hash.mode']).toBe('partitioned');
    expect(map.overrides).toEqual({ pushdown: 'map', 'pushdown.keyRangeBitmap': false, 'hash.mode': 'partitioned' });
  });

  it('reads JSON, user files relative to the experiment, datasets, a base config and extensions', async () => {
    const file = join(tmp, 'e.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'files',
        datasets: [
          { name: 'a', data: { left: 'l.parquet', right: 'sub/r.arrow' }, join: { type: 'left-semi', on: [{ left: 'k', right: 'k' }] } },
          { data: { generator: 'range', seed: 5, rowGroupSize: 2048 }, join: { type: 'inner', range: 'l.v > r.v' } },
        ],
        config: { hash: { build: 'right' } },
        extensions: ['./ext.js'],
        variants: [{ name: 'v', config: { pushdown: 'bounds' } }],
        repeat: 1,
        warmup: 0,
        duckdb: false,
        parity: false,
      }),
    );
    // loadExperiment imports the extensions it names (their settings are config keys)
    writeFileSync(join(tmp, 'ext.js'), 'module.exports = { name: "empty", load() {} };\n');
    const e = await loadExperiment(file);
    expect(e.datasets.map((d) => d.name)).toEqual(['a', 'range']);
    expect((e.datasets[0]! as JoinDataset).data).toEqual({ kind: 'files', left: join(tmp, 'l.parquet'), right: join(tmp, 'sub/r.arrow') });
    expect((e.datasets[1]! as JoinDataset).spec.range).toEqual({ left: 'v', op: '>', right: 'v' });
    expect(e.variants[0]!.config['hash.build']).toBe('right');
    expect(e.variants[0]!.config.extensions).toEqual([join(tmp, 'ext.js')]);
    expect([e.repeat, e.warmup, e.duckdb, e.parity]).toEqual([1, 0, false, false]);
  });

  /** The shipped experiment files live with the benchmarks. */
  const EXPERIMENT_FILES = join(import.meta.dirname, '../../bench/experiments');

  const INFORMATION_PASSING = 'information-passing.yaml';

  it('loads every shipped experiment file', async () => {
    const files = (await readdir(EXPERIMENT_FILES)).filter((f) => f.endsWith('.yaml'));
    expect(files).toEqual(expect.arrayContaining(['default.yaml', 'engines.yaml', 'bloom.yaml', INFORMATION_PASSING]));
    for (const f of files) {
      const e = await loadExperiment(join(EXPERIMENT_FILES, f));
      expect(e.variants.length, f).toBeGreaterThan(0);
    }
    const engines = await loadExperiment(join(EXPERIMENT_FILES, 'engines.yaml'));
    expect(engines.datasets.map((x) => x.name)).toEqual(['star', 'sparse', 'skewed', 'dense', 'unsorted']);
    expect(engines.variants.map((v) => v.config.pushdown)).toEqual(['none', 'datafusion', 'duckdb', 'trino', 'spark', 'velox']);
    const d = await loadExperiment(join(EXPERIMENT_FILES, 'default.yaml'));
    expect(d.datasets.map((x) => x.name)).toEqual(['star', 'sparse']);
    expect(d.variants.map((v) => v.config.pushdown)).toEqual(['none', 'bounds', 'inlist', 'map', 'map', 'auto']);
    expect(d.variants.map((v) => v.config['pushdown.keyRangeBitmap'])).toEqual([true, true, true, true, false, true]);
  });

  it(`${INFORMATION_PASSING}: every SSB and TPC-H query at SF 1, five sip variants against none, 5 random orders, 30 s per run`, async () => {
    const e = await loadExperiment(join(EXPERIMENT_FILES, INFORMATION_PASSING));
    const sql = e.datasets.map((d) => (d.kind === 'sql' ? d.workload : undefined));
    expect(sql.map((w) => `${w?.name} ${w?.query} ${w?.sf}`)).toEqual([
      ...['1.1', '1.2', '1.3', '2.1', '2.2', '2.3', '3.1', '3.2', '3.3', '3.4', '4.1', '4.2', '4.3'].map((q) => `ssb q${q} 1`),
      ...Array.from({ length: 22 }, (_, i) => `tpch q${i + 1} 1`),
    ]);
    expect(e.variants.map((v) => v.name)).toEqual(['none', 'dynamic', 'lip', 'transfer', 'yannakakis']);
    expect(e.variants.map((v) => v.config.sip)).toEqual(['none', 'dynamic', 'lip', 'transfer', 'yannakakis']);
    expect([e.baseline, e.orders, e.repeat, e.warmup, e.threads, e.timeout]).toEqual(['none', 5, 1, 1, 1, 30]);
  });

  it('reads a workload data set: its query text and every table of the workload', () => {
    const e = parseExperimentText(`name: w\nworkload: { name: ssb, query: Q2.1, sf: 0.1 }\nvariants: [{ name: a }]\n`);
    const d = e.datasets[0]!;
    if (d.kind !== 'sql') throw new Error('expected a sql data set');
    expect(d.name).toBe('ssb q2.1 sf=0.1');
    expect(d.sql).toMatch(/p_category = 'MFGR#12'/);
    expect(d.workload).toEqual({ name: 'ssb', query: 'q2.1', sf: 0.1 });
    expect(Object.keys(d.tables)).toEqual(['dwdate', 'customer', 'supplier', 'part', 'lineorder']);
    expect(d.tables.part).toEqual({ kind: 'workload', table: 'part', data: { workload: 'ssb', sf: 0.1, rowGroupSize: 100_000, seed: 1 } });
    const bad = (workload: string) => errorOf(`name: w\nworkload: ${workload}\nvariants: [{ name: a }]\n`);
    expect(bad('{ name: tpch, query: q23 }').key).toBe('workload.query');
    expect(bad('{ name: tpch, query: q23 }').message).toMatch(/tpch has no query 'q23'; expected one of: q1, q2/);
    expect(bad('{ name: tpcds, query: q1 }').key).toBe('workload.name');
    expect(bad('{ name: tpch, query: q1, sf: 0 }').key).toBe('workload.sf');
    expect(bad('{ name: tpch, query: q1, scale: 1 }').key).toBe('workload.scale');
    expect(errorOf(`name: w\nworkload: { name: tpch, query: q1 }\nsql: SELECT 1\nvariants: [{ name: a }]\n`).key).toBe('sql');
  });

  it('names the variant config key that is bad', () => {
    const e = errorOf(`${GOOD.replace('pushdown.keyRangeBitmap: false', 'pushdown.keyRangeBitmap: maybe')}`);
    expect(e.key).toBe('variants[1].config.pushdown.keyRangeBitmap');
    expect(e.message).toContain('variants[1].config.pushdown.keyRangeBitmap');
    expect(e.message).toContain("variant 'map'");
    expect(e.message).toContain('"maybe"');

    const u = errorOf(GOOD.replace('{ pushdown: none }', '{ pushdwn: none }'));
    expect(u.key).toBe('variants[0].config.pushdwn');
    expect(u.message).toMatch(/unknown config key 'pushdwn'/);
  });

  it('names an unknown top-level key and lists the known ones', () => {
    const e = errorOf(`${GOOD}\nrepeats: 5\n`);
    expect(e.key).toBe('repeats');
    expect(e.message).toMatch(/repeats: unknown key \(did you mean 'repeat'\?\); expected one of: name, description, data, join/);
  });

  it('names a missing join.type', () => {
    const e = errorOf(GOOD.replace('type: inner, ', ''));
    expect(e.key).toBe('join.type');
    expect(e.message).toMatch(/join\.type: required/);
  });

  it('names a bad generator and what was expected', () => {
    const e = errorOf(GOOD.replace('generator: star', 'generator: snowflake'));
    expect(e.key).toBe('data.generator');
    expect(e.message).toMatch(/data\.generator: .*star.*sparse.*skewed.*range/);
    expect(e.message).toContain('"snowflake"');
  });

  it('names bad generator parameters, join text and variant shapes', () => {
    expect(errorOf(GOOD.replace('orders: 1000', 'ordres: 1000')).key).toBe('data.params.ordres');
    expect(errorOf(GOOD.replace('orders: 1000', 'orders: -5')).key).toBe('data.params.orders');
    expect(errorOf(GOOD.replace('on: customer_id=customer_id', 'on: customer_id')).key).toBe('join.on');
    expect(errorOf(GOOD.replace('"l.amount > 10"', '"l.amount >"')).key).toBe('join.filter');
    expect(errorOf(GOOD.replace('type: inner', 'type: outer')).key).toBe('join.type');
    expect(errorOf(GOOD.replace('{ name: map,', '{ name: none,')).key).toBe('variants[1].name');
    expect(errorOf(GOOD.replace('{ name: none, config', '{ nom: none, config')).key).toBe('variants[0].nom');
    expect(errorOf(GOOD.replace(/variants:[\s\S]*/, 'variants: []\n')).key).toBe('variants');
    expect(errorOf(GOOD.replace(/join: .*\n/, '')).key).toBe('join');
    expect(errorOf(`${GOOD}\nwarmup: -1\n`).key).toBe('warmup');
    const both = parseExperiment;
    expect(() => both({ name: 'x', data: { generator: 'star' }, datasets: [{ data: { generator: 'star' }, join: { type: 'inner', on: 'a=b' } }], variants: [{ name: 'a' }] })).toThrow(/data: not allowed beside 'datasets'/);
  });
});

const SQL = `
name: star query
sql: SELECT f.quantity FROM fact f JOIN date_dim d ON f.date_key = d.date_key WHERE d.month = 3
tables:
  fact: { generator: starschema, params: &p { factRows: 5000 }, table: fact }
  date_dim: { generator: starschema, params: *p, table: date_dim, rowGroupSize: 2048 }
  extra: ./files/extra.parquet
variants:
  - { name: none, config: { pushdown: none } }
`;

describe('experiment schema: sql data sets', () => {
  it('parses sql + tables: generated tables with their defaults, files resolved against the experiment', () => {
    const e = parseExperimentText(SQL, { source: 'q.yaml', baseDir: '/exp' });
    expect(e.datasets).toHaveLength(1);
    const d = e.datasets[0]!;
    if (d.kind !== 'sql') throw new Error('expected a sql data set');
    expect(d.name).toBe('sql over fact, date_dim, extra');
    expect(d.sql).toMatch(/^SELECT f\.quantity FROM fact f/);
    expect(d.at).toBe('sql');
    expect(d.tables.fact).toEqual({
      kind: 'generated',
      table: 'fact',
      data: {
        kind: 'generator',
        generator: 'starschema',
        params: { factRows: 5000, customers: 100_000, products: 20_000, customerRunRows: 40_960, productRunRows: 20_480 },
        seed: 1,
        rowGroupSize: 10_240,
      },
    });
    expect(d.tables.date_dim).toMatchObject({ kind: 'generated', table: 'date_dim', data: { rowGroupSize: 2048 } });
    expect(d.tables.extra).toEqual({ kind: 'file', path: '/exp/files/extra.parquet' });
    // a two-sided generator's tables are left and right
    const two = parseExperimentText(SQL.replace('generator: starschema, params: &p { factRows: 5000 }, table: fact', 'generator: star, params: &p { orders: 100 }, table: left').replace('generator: starschema, params: *p, table: date_dim', 'generator: star, table: right'), { baseDir: '/exp' });
    expect(two.datasets[0]).toMatchObject({ kind: 'sql', tables: { fact: { kind: 'generated', table: 'left' }, date_dim: { kind: 'generated', table: 'right' } } });
  });

  it('takes sql data sets inside datasets, beside join data sets', () => {
    const e = parseExperiment(
      {
        name: 'mixed',
        datasets: [
          { name: 'j', data: { generator: 'star' }, join: { type: 'inner', on: 'customer_id=customer_id' } },
          { name: 'q', sql: 'SELECT * FROM t', tables: { t: 't.arrow' } },
        ],
        variants: [{ name: 'a' }],
      },
      { baseDir: '/exp' },
    );
    expect(e.datasets.map((d) => [d.kind, d.name])).toEqual([
      ['join', 'j'],
      ['sql', 'q'],
    ]);
    expect(e.datasets[1]).toMatchObject({ at: 'datasets[1].sql', tables: { t: { kind: 'file', path: '/exp/t.arrow' } } });
  });

  it('refuses both join and sql, and neither, naming the key', () => {
    const both = errorOf(`${SQL}join: { type: inner, on: a=b }\n`);
    expect(both.key).toBe('sql');
    expect(both.message).toMatch(/sql: not allowed beside 'join': a data set runs either a join \(data \+ join\) or a query \(sql \+ tables\)/);
    const neither = errorOf(SQL.replace(/^sql: .*\n/m, ''));
    expect(neither.key).toBe('join');
    expect(neither.message).toMatch(/join: required: a data set runs either a join .*, a query \(sql: "SELECT …" \+ tables\) or a workload query/);
    const inDatasets = (d: Record<string, unknown>) => () => parseExperiment({ name: 'x', datasets: [d], variants: [{ name: 'a' }] }, { source: 'x.yaml' });
    expect(inDatasets({ data: { generator: 'star' }, join: { type: 'inner', on: 'a=b' }, sql: 'SELECT 1', tables: { t: 't.parquet' } })).toThrow(/datasets\[0\]\.sql: not allowed beside 'join'/);
    expect(inDatasets({ name: 'empty' })).toThrow(/datasets\[0\]\.join: required: a data set runs either a join/);
  });

  it('names what is wrong with sql, tables and data beside them', () => {
    expect(errorOf(SQL.replace(/^tables:[\s\S]*?(?=variants:)/m, ''))).toMatchObject({ key: 'tables' });
    expect(errorOf(SQL.replace(/^tables:[\s\S]*?(?=variants:)/m, '')).message).toMatch(/tables: required beside 'sql'/);
    expect(errorOf(SQL.replace(/^sql: .*$/m, 'sql: ""')).key).toBe('sql');
    expect(errorOf(SQL.replace(/^sql: .*$/m, 'sql: 5')).message).toMatch(/sql: expected the query text/);
    expect(errorOf(`${SQL}data: { generator: star }\n`).key).toBe('data');
    expect(errorOf(SQL.replace('table: date_dim', 'table: dates')).message).toMatch(/tables\.date_dim\.table: generator starschema writes no table 'dates'; expected one of: fact, date_dim, customer, product/);
    expect(errorOf(SQL.replace('table: date_dim', 'tabel: date_dim')).key).toBe('tables.date_dim.tabel');
    expect(errorOf(SQL.replace('factRows: 5000', 'factRows: 0')).key).toBe('tables.fact.params.factRows');
    expect(errorOf(SQL.replace('extra: ./files/extra.parquet', 'extra: [1]')).message).toMatch(/tables\.extra: expected FILE or \{ generator/);
    expect(errorOf(SQL.replace('tables:\n', 'tables: {}\nx:\n')).key).toBe('x');
    expect(errorOf(GOOD.replace('join:', 'tables: { t: t.parquet }\njoin:')).message).toMatch(/tables: only beside 'sql'/);
    const schema = errorOf(GOOD.replace('generator: star', 'generator: starschema').replace('orders: 1000', 'factRows: 1000'));
    expect(schema.key).toBe('data.generator');
    expect(schema.message).toMatch(/starschema writes the tables fact, date_dim, customer, product, not left and right: use it in a sql: data set/);
  });
});

describe('threads', () => {
  it("is every variant's joinlab thread count (default 1), and no variant's config may set its own", () => {
    const one = parseExperimentText(GOOD, { baseDir: '/exp' });
    expect(one.threads).toBe(1);
    expect(one.variants.map((v) => v.config.threads)).toEqual([1, 1]);
    const two = parseExperimentText(`${GOOD}threads: 2\n`, { baseDir: '/exp' });
    expect(two.threads).toBe(2);
    expect(two.variants.map((v) => v.config.threads)).toEqual([2, 2]);
    expect(errorOf(GOOD.replace('{ pushdown: none }', '{ pushdown: none, threads: 4 }')).message).toMatch(/variants\[0\]\.config\.threads: set threads at the top of the experiment/);
    expect(errorOf(`${GOOD}threads: 0\n`).message).toMatch(/threads/);
  });
});

const ORDERS = `
name: orders
datasets:
  - { workload: { name: ssb, query: q2.1, sf: 0.01 } }
  - { name: q, sql: SELECT 1 FROM t, tables: { t: t.parquet } }
variants:
  - { name: none, config: { pushdown: none } }
  - { name: auto, config: { pushdown: auto } }
orders: 3
`;

describe('orders, baseline and timeout', () => {
  it('orders: N runs cost and random:1 … random:N (default 0: none); the baseline is the first variant unless named', () => {
    const e = parseExperimentText(ORDERS, { baseDir: '/exp' });
    expect(e.orders).toBe(3);
    expect(joinOrdersOf(e)).toEqual(['cost', 'random:1', 'random:2', 'random:3']);
    expect(e.baseline).toBe('none');
    expect(e.variants.map((v) => v.config['sql.joinOrder'])).toEqual(['cost', 'cost']);
    const plain = parseExperimentText(GOOD, { baseDir: '/exp' });
    expect(plain.orders).toBe(0);
    expect(joinOrdersOf(plain)).toEqual([]);
    expect(plain.baseline).toBe('none');
    expect(parseExperimentText(`${ORDERS}baseline: auto\n`).baseline).toBe('auto');
    expect(parseExperimentText(ORDERS.replace('orders: 3', 'orders: 0')).orders).toBe(0);
  });

  it('refuses a bad orders value, naming the key', () => {
    for (const bad of ['-1', '1.5', 'two', 'true']) {
      const e = errorOf(ORDERS.replace('orders: 3', `orders: ${bad}`));
      expect(e.key, bad).toBe('orders');
      expect(e.message).toMatch(/^experiment x\.yaml: orders: /);
    }
  });

  it('refuses orders beside a join data set (data + join), naming the key and the data set', () => {
    const e = errorOf(`${GOOD}orders: 2\n`);
    expect(e.key).toBe('orders');
    expect(e.message).toMatch(/orders: join orders need sql: or workload: data sets; the data set runs one join \(data \+ join\)/);
    const mixed = errorOf(ORDERS.replace('datasets:\n', 'datasets:\n  - { name: j, data: { generator: star }, join: { type: inner, on: customer_id=customer_id } }\n'));
    expect(mixed.key).toBe('orders');
    expect(mixed.message).toMatch(/datasets\[0\] \('j'\) runs one join/);
    // orders: 0 beside a join is fine
    expect(parseExperimentText(`${GOOD}orders: 0\n`).orders).toBe(0);
  });

  it('refuses sql.joinOrder or sql.joinOrderSeed in a variant or the base config beside orders', () => {
    const v = errorOf(ORDERS.replace('{ pushdown: auto }', '{ pushdown: auto, sql.joinOrder: written }'));
    expect(v.key).toBe('variants[1].config.sql.joinOrder');
    expect(v.message).toMatch(/variants\[1\]\.config\.sql\.joinOrder: not allowed with orders: 3 \(every variant runs under sql\.joinOrder cost and random:1 … random:3\)/);
    expect(errorOf(ORDERS.replace('{ pushdown: none }', '{ pushdown: none, sql: { joinOrder: random:4 } }')).key).toBe('variants[0].config.sql.joinOrder');
    expect(errorOf(ORDERS.replace('{ pushdown: none }', '{ pushdown: none, sql.joinOrderSeed: 4 }')).key).toBe('variants[0].config.sql.joinOrderSeed');
    expect(errorOf(`${ORDERS}config: { sql.joinOrder: cost }\n`).key).toBe('config.sql.joinOrder');
    // without orders a variant may pin its own order, random:SEED included
    const own = parseExperimentText(ORDERS.replace('orders: 3', '').replace('{ pushdown: auto }', '{ pushdown: auto, sql.joinOrder: random:4 }'));
    expect(own.variants[1]!.config['sql.joinOrder']).toBe('random:4');
    expect(errorOf(ORDERS.replace('orders: 3', '').replace('{ pushdown: auto }', '{ pushdown: auto, sql.joinOrder: random:x }')).key).toBe('variants[1].config.sql.joinOrder');
  });

  it('timeout: seconds per run, a positive number (default none)', () => {
    expect(parseExperimentText(ORDERS).timeout).toBeNull();
    expect(parseExperimentText(`${ORDERS}timeout: 60\n`).timeout).toBe(60);
    expect(parseExperimentText(`${ORDERS}timeout: 0.2\n`).timeout).toBe(0.2);
    // beside a join data set too: it limits each run of Engine.join
    expect(parseExperimentText(`${GOOD}timeout: 5\n`, { baseDir: '/exp' }).timeout).toBe(5);
  });

  it('refuses a bad timeout, naming the key and what was expected', () => {
    for (const [bad, what] of [
      ['0', /timeout: expected a positive number of seconds \(got 0\)$/],
      ['-3', /timeout: expected a positive number of seconds \(got -3\)$/],
      ['"60"', /timeout: expected a time limit per run in seconds \(a positive number\) \(got "60"\)$/],
      ['60s', /timeout: expected a time limit per run in seconds/],
      ['null', /timeout: expected a time limit per run in seconds/],
      ['.inf', /timeout: expected a time limit per run in seconds \(a positive number\) \(got Infinity\)$/],
      ['3000000', /timeout: expected at most 2147483 s \(~24\.8 days, the longest timer Node keeps\) \(got 3000000\)$/],
    ] as const) {
      const e = errorOf(`${ORDERS}timeout: ${bad}\n`);
      expect(e.key, bad).toBe('timeout');
      expect(e.message, bad).toMatch(/^experiment x\.yaml: timeout: /);
      expect(e.message, bad).toMatch(what);
    }
    expect(errorOf(`${ORDERS}timout: 5\n`).message).toMatch(/timout: unknown key \(did you mean 'timeout'\?\); expected one of: .*timeout/);
  });

  it('refuses a baseline that names no variant', () => {
    const e = errorOf(`${ORDERS}baseline: map\n`);
    expect(e.key).toBe('baseline');
    expect(e.message).toMatch(/baseline: no variant is named 'map'; expected one of: none, auto/);
    expect(errorOf(`${ORDERS}baseline: ""\n`).key).toBe('baseline');
  });
});

describe('repeat: auto', () => {
  const raw = (extra: Record<string, unknown>) => ({
    name: 'x',
    data: { left: 'l.parquet', right: 'r.parquet' },
    join: { type: 'inner', on: 'k=k' },
    variants: [{ name: 'a', config: {} }],
    ...extra,
  });
  const fails = (extra: Record<string, unknown>, opts: { repeat?: number | 'auto' } = {}) => {
    try {
      parseExperiment(raw(extra), { baseDir: '/exp', ...opts });
    } catch (e) {
      return e as ConfigError;
    }
    throw new Error('expected a ConfigError');
  };

  it('fills the defaults, or takes the given settings', () => {
    const e = parseExperiment(raw({ repeat: 'auto' }), { baseDir: '/exp' });
    expect(e.repeat).toBe('auto');
    expect(e.repeatAuto).toEqual({ precision: 0.05, minRuns: 5, maxRuns: 30, budgetSeconds: 60 });
    expect(repeatPlanOf(e)).toEqual({ kind: 'auto', precision: 0.05, minRuns: 5, maxRuns: 30, budgetSeconds: 60 });
    const f = parseExperiment(raw({ repeat: 'auto', repeatAuto: { precision: 0.02, maxRuns: 50 } }), { baseDir: '/exp' });
    expect(f.repeatAuto).toEqual({ precision: 0.02, minRuns: 5, maxRuns: 50, budgetSeconds: 60 });
    const n = parseExperiment(raw({ repeat: 4 }), { baseDir: '/exp' });
    expect([n.repeat, n.repeatAuto, repeatPlanOf(n)]).toEqual([4, null, { kind: 'fixed', runs: 4 }]);
  });

  it('names the key of a bad setting', () => {
    expect(fails({ repeat: 'often' }).message).toMatch(/repeat: expected a positive number of timed runs, or 'auto'/);
    expect(fails({ repeat: 'auto', repeatAuto: { minRuns: 2 } }).key).toBe('repeatAuto.minRuns');
    expect(fails({ repeat: 'auto', repeatAuto: { minRuns: 2 } }).message).toMatch(/at least 3 runs/);
    expect(fails({ repeat: 'auto', repeatAuto: { minRuns: 10, maxRuns: 5 } }).key).toBe('repeatAuto.maxRuns');
    expect(fails({ repeat: 'auto', repeatAuto: { precison: 0.1 } }).message).toMatch(/did you mean 'precision'/);
    expect(fails({ repeat: 3, repeatAuto: { precision: 0.1 } }).message).toMatch(/repeatAuto: only with repeat: auto/);
  });

  it('--repeat auto / --repeat N on the command line replace the file\'s repeat', () => {
    expect(parseExperiment(raw({ repeat: 3 }), { baseDir: '/exp', repeat: 'auto' })).toMatchObject({ repeat: 'auto', repeatAuto: { maxRuns: 30 } });
    expect(parseExperiment(raw({ repeat: 'auto', repeatAuto: { maxRuns: 9 } }), { baseDir: '/exp', repeat: 2 })).toMatchObject({ repeat: 2, repeatAuto: null });
  });
});

describe('command-line overrides (joinlab run --set, --repeat)', () => {
  const raw = () => ({
    name: 'x',
    sql: 'SELECT * FROM t',
    tables: { t: 't.parquet' },
    variants: [{ name: 'a', config: { batchSize: 64 } }, { name: 'b' }],
    repeat: 3,
  });

  it('applies --set over every variant (threads to the experiment) and --repeat over the file', () => {
    const e = parseExperiment(raw(), { baseDir: '/exp', set: ['batchSize=128', 'threads=2'], repeat: 1 });
    expect(e.variants.map((v) => [v.config.batchSize, v.config.threads])).toEqual([
      [128, 2],
      [128, 2],
    ]);
    expect(e).toMatchObject({ repeat: 1, threads: 2, set: { batchSize: 128, threads: 2 } });
    expect(parseExperiment(raw(), { baseDir: '/exp' })).toMatchObject({ repeat: 3, set: {} });
  });

  it('names --set in its errors, and refuses a join order key beside orders', () => {
    expect(() => parseExperiment(raw(), { set: ['batchSize=zero'] })).toThrow(/^--set: invalid config value for 'batchSize'/);
    expect(() => parseExperiment({ ...raw(), orders: 2 }, { set: ['sql.joinOrder=written'] })).toThrow(/--set sql.joinOrder: not allowed with orders: 2/);
  });
});
