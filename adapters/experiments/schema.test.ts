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
import { loadExperiment, parseExperiment, parseExperimentText } from './schema.ts';

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
    const d = e.datasets[0]!;
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
    const e = await loadExperiment(file);
    expect(e.datasets.map((d) => d.name)).toEqual(['a', 'range']);
    expect(e.datasets[0]!.data).toEqual({ kind: 'files', left: join(tmp, 'l.parquet'), right: join(tmp, 'sub/r.arrow') });
    expect(e.datasets[1]!.spec.range).toEqual({ left: 'v', op: '>', right: 'v' });
    expect(e.variants[0]!.config['hash.build']).toBe('right');
    expect(e.variants[0]!.config.extensions).toEqual([join(tmp, 'ext.js')]);
    expect([e.repeat, e.warmup, e.duckdb, e.parity]).toEqual([1, 0, false, false]);
  });

  /** The shipped experiment files live with the benchmarks. */
  const EXPERIMENT_FILES = join(import.meta.dirname, '../../bench/experiments');

  it('loads every shipped experiment file', async () => {
    const files = (await readdir(EXPERIMENT_FILES)).filter((f) => f.endsWith('.yaml'));
    expect(files).toEqual(expect.arrayContaining(['default.yaml', 'engines.yaml', 'bloom.yaml']));
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
    expect(e.message).toMatch(/repeats: unknown key; expected one of: name, description, data, join/);
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
