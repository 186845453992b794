/**
 * `joinlab run` beyond `--out`: `--set k=v` in every variant (validated: a mistyped key names
 * `--set` and the closest key, before any data), `--repeat N` (or `auto`) over the file's repeat, and `--json`
 * — one JSON object on stdout instead of the tables. A tiny generated join without DuckDB, so fast.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExperimentResults } from '../experiments/results.ts';
import { runCli } from './test-helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'joinlab-run-cmd-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const file = join(tmp, 'tiny.yaml');
writeFileSync(
  file,
  `
name: tiny
data: { generator: star, params: { orders: 2000, customers: 200, selectivity: 0.1, clusterSize: 10 }, seed: 3, rowGroupSize: 512 }
join: { type: inner, on: customer_id=customer_id }
variants:
  - { name: none, config: { pushdown: none } }
  - { name: map, config: { pushdown: map, batchSize: 4096 } }
repeat: 3
warmup: 0
duckdb: false
parity: false
`,
);

describe('joinlab run --set --repeat --json', () => {
  it('applies --set to every variant and --repeat over the file, and prints one JSON object', async () => {
    const out = join(tmp, 'out');
    const r = await runCli(['run', file, '--out', out, '--set', 'batchSize=512', '--set', 'pushdown.keyRangeBitmap=off', '--repeat', '1', '--json']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ experiment: 'tiny', repeat: 1, set: { batchSize: 512, 'pushdown.keyRangeBitmap': false }, parityOk: true, out, report: join(out, 'report.html') });
    expect(summary.datasets[0].variants.map((v: { name: string; status: string }) => [v.name, v.status])).toEqual([
      ['none', 'ok'],
      ['map', 'ok'],
    ]);
    expect(summary.datasets[0].variants[0].medianMs).toBeGreaterThan(0);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('command-line overrides in every variant: --set batchSize=512 --set pushdown.keyRangeBitmap=false');
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ExperimentResults;
    expect(results.experiment.set).toEqual({ batchSize: 512, 'pushdown.keyRangeBitmap': false });
    for (const v of results.datasets[0]!.variants) {
      expect(v.config.batchSize).toBe(512); // over the variant's own batchSize too
      expect(v.config['pushdown.keyRangeBitmap']).toBe(false);
      expect(v.time!.runsMs).toHaveLength(1);
    }
  });

  it('--repeat auto repeats each variant until its 95% interval is narrow (or out of runs / time), and says so', async () => {
    const out = join(tmp, 'out-auto');
    const r = await runCli(['run', file, '--out', out, '--repeat', 'auto', '--json']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.repeat).toBe('auto');
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ExperimentResults;
    expect(results.experiment.repeatAuto).toEqual({ precision: 0.05, minRuns: 5, maxRuns: 30, budgetSeconds: 60 });
    for (const v of results.datasets[0]!.variants) {
      expect(['precise', 'maxRuns', 'budget']).toContain(v.time!.stop);
      expect(v.time!.ci95).not.toBeNull();
    }
    expect(summary.datasets[0].variants[0].runs).toBe(results.datasets[0]!.variants[0]!.time!.runsMs.length);
  });

  it('a mistyped --set key or a bad --repeat is a usage error before any work', async () => {
    const bad = await runCli(['run', file, '--out', join(tmp, 'bad'), '--set', 'batchsize=512']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("joinlab: --set: unknown config key 'batchsize'; did you mean 'batchSize'? (joinlab config lists every key)\n");
    const repeat = await runCli(['run', file, '--out', join(tmp, 'bad'), '--repeat', '0']);
    expect(repeat.code).toBe(2);
    expect(repeat.stderr).toMatch(/--repeat expects an integer from 1/);
  });
});
