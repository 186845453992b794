/**
 * Issue 30 from a user's side: the example plug-in `strategies/examples/bloom-pushdown.ts`, copied
 * to a directory outside the repository (its `index.ts` import pointed at joinlab's), declares
 * `pushdown.bloom.fpp`. The key is set from an experiment file (its `config:` and a variant's) and
 * from `--set`, shows in `joinlab config` / `joinlab strategies` with its default and owner, and a
 * misspelt key of its namespace or a bad value is a usage error naming the key — before any data.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExperiment } from '../experiments/schema.ts';
import type { ExperimentResults } from '../experiments/results.ts';
import { runCli } from './test-helpers.ts';

const INDEX = fileURLToPath(new URL('../../index.ts', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/joinlab.mjs', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../strategies/examples/bloom-pushdown.ts', import.meta.url));

const tmp = mkdtempSync(join(tmpdir(), 'joinlab-plugin-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// the plug-in as a user would have it: a file of their own, importing the joinlab package, in an
// ES-module package (a TypeScript file outside one is handed to the CommonJS loader under tsx,
// which fails on its `import`s: core/registry/extensions.ts)
writeFileSync(join(tmp, 'package.json'), '{ "type": "module" }\n');
const PLUGIN = join(tmp, 'bloom-pushdown.ts');
const source = readFileSync(EXAMPLE, 'utf8');
if (!source.includes("from '../../index.ts'")) throw new Error('the example no longer imports ../../index.ts: update this test');
writeFileSync(PLUGIN, source.replace("from '../../index.ts'", `from ${JSON.stringify(INDEX)}`));

const EXPERIMENT = join(tmp, 'bloom.yaml');
writeFileSync(
  EXPERIMENT,
  `
name: bloom fpp
data: { generator: sparse, params: { probeRows: 20000, rowsPerKey: 2, period: 1000, islandWidth: 100 }, seed: 1, rowGroupSize: 2048 }
join: { type: inner, on: k=k }
extensions: ["./bloom-pushdown.ts"]
config: { join: hash, pushdown: bloom, pushdown.bloom.fpp: 0.2 }
variants:
  - { name: loose }
  - { name: tight, config: { pushdown.bloom.fpp: 0.001 } }
repeat: 1
warmup: 0
duckdb: false
parity: false
`,
);

describe('an extension setting from an experiment file and from --set', () => {
  it("the file's config and a variant's config set it; the default applies elsewhere", async () => {
    const e = await loadExperiment(EXPERIMENT);
    expect(e.variants.map((v) => [v.name, v.config['pushdown.bloom.fpp']])).toEqual([
      ['loose', 0.2],
      ['tight', 0.001],
    ]);
    expect((await loadExperiment(EXPERIMENT, { set: ['pushdown.bloom.fpp=0.05'] })).variants.map((v) => v.config['pushdown.bloom.fpp'])).toEqual([0.05, 0.05]);
  });

  it('the policy builds its filter at the configured rate (a tighter rate, a bigger filter)', async () => {
    const out = join(tmp, 'out');
    const r = await runCli(['run', EXPERIMENT, '--out', out, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ExperimentResults;
    const bits = results.datasets[0]!.variants.map((v) => {
      expect(v.config['pushdown.bloom.fpp']).toBe(v.name === 'loose' ? 0.2 : 0.001);
      return Number(/IN BLOOM\(\d+ keys, (\d+) bits/.exec(v.dynamicFilter ?? '')?.[1]);
    });
    expect(bits[0]).toBeGreaterThan(0);
    expect(bits[1]).toBeGreaterThan(bits[0]!);
  });

  it('--set on joinlab run overrides every variant', async () => {
    const out = join(tmp, 'out-set');
    const r = await runCli(['run', EXPERIMENT, '--out', out, '--set', 'pushdown.bloom.fpp=0.05', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).set).toEqual({ 'pushdown.bloom.fpp': 0.05 });
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ExperimentResults;
    expect(results.datasets[0]!.variants.map((v) => v.config['pushdown.bloom.fpp'])).toEqual([0.05, 0.05]);
  });

  it('a misspelt key of its namespace, or a bad value, is a usage error naming the key', async () => {
    const typo = await runCli(['run', EXPERIMENT, '--out', join(tmp, 'bad'), '--set', 'pushdown.bloom.fp=0.1']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe("joinlab: --set: unknown config key 'pushdown.bloom.fp'; did you mean 'pushdown.bloom.fpp'? (joinlab config lists every key)\n");
    const bad = await runCli(['run', EXPERIMENT, '--out', join(tmp, 'bad'), '--set', 'pushdown.bloom.fpp=1.5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^joinlab: --set: invalid config value for 'pushdown\.bloom\.fpp' \(got 1\.5\) \(a setting of extension 'example\.bloom'\): /);
    // in the file: the error names the variant's key path
    const file = join(tmp, 'typo.yaml');
    writeFileSync(file, readFileSync(EXPERIMENT, 'utf8').replace('pushdown.bloom.fpp: 0.001', 'pushdown.bloom.fpq: 0.001'));
    await expect(loadExperiment(file)).rejects.toThrow(/variants\[1\]\.config\.pushdown\.bloom\.fpq: unknown config key 'pushdown\.bloom\.fpq'; did you mean 'pushdown\.bloom\.fpp'\?/);
    // without the extension the key is unknown
    const none = await runCli(['config', '--set', 'pushdown.bloom.fpp=0.1']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/unknown config key 'pushdown\.bloom\.fpp'/);
  });
});

describe('joinlab config and strategies list the setting with its owner', () => {
  it('config: value, default and the extension that declares it', async () => {
    const r = await runCli(['config', '--set', `extensions=${PLUGIN}`, '--set', 'pushdown.bloom.fpp=0.05', '--json']);
    expect(r.stderr).toBe('');
    const { keys } = JSON.parse(r.stdout) as { keys: { key: string; owner: string }[] };
    expect(keys.find((k) => k.key === 'pushdown.bloom.fpp')).toMatchObject({ value: 0.05, default: 0.01, owner: 'example.bloom' });
    const text = await runCli(['config', '--set', `extensions=${PLUGIN}`]);
    expect(text.stdout).toMatch(/^pushdown\.bloom\.fpp\s+example\.bloom\s+0\.01\s+0\.01$/m);
  });

  it('strategies: the setting under its extension, with its default and description', async () => {
    const r = await runCli(['strategies', '--set', `extensions=${PLUGIN}`, '--json']);
    expect(r.stderr).toBe('');
    const { settings, slots } = JSON.parse(r.stdout) as { settings: { key: string }[]; slots: { name: string; strategies: { name: string; extension: string }[] }[] };
    expect(settings.find((s) => s.key === 'pushdown.bloom.fpp')).toMatchObject({ default: 0.01, extension: 'example.bloom', description: expect.stringMatching(/false-positive rate/) });
    expect(settings.find((s) => s.key === 'batchSize')).toMatchObject({ default: 8192, extension: 'core' });
    expect(settings.find((s) => s.key === 'pushdown.trino.maxDistinctPerDriver')).toMatchObject({ default: 1000, extension: 'joinlab.pushdown.engines' });
    expect(slots.find((s) => s.name === 'pushdown')!.strategies.find((t) => t.name === 'bloom')).toMatchObject({ extension: 'example.bloom' });
    const text = await runCli(['strategies', '--set', `extensions=${PLUGIN}`]);
    expect(text.stdout).toMatch(/^settings of extension example\.bloom:\n.*\n.*\npushdown\.bloom\.fpp\s+0\.01\s+pushdown: bloom's target/m);
  });
});

describe('as a user runs it: the joinlab command in the plug-in\'s directory', () => {
  it('--set extensions=./bloom-pushdown.ts --set pushdown.bloom.fpp=… (a real process, relative path)', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
        execFile(process.execPath, [BIN, ...args], { cwd: tmp }, (e, stdout, stderr) => done({ code: e === null ? 0 : Number(e.code ?? 1), stdout, stderr }));
      });
    const r = await run(['config', '--set', 'extensions=./bloom-pushdown.ts', '--set', 'pushdown.bloom.fpp=0.02', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const { keys } = JSON.parse(r.stdout) as { keys: { key: string }[] };
    expect(keys.find((k) => k.key === 'pushdown.bloom.fpp')).toMatchObject({ value: 0.02, default: 0.01, owner: 'example.bloom' });
    const typo = await run(['config', '--set', 'extensions=./bloom-pushdown.ts', '--set', 'pushdown.bloom.fppp=0.02']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe("joinlab: unknown config key 'pushdown.bloom.fppp'; did you mean 'pushdown.bloom.fpp'? (joinlab config lists every key)\n");
  }, 60_000);
});
