/**
 * The memory limit is a promise: every buffer a run holds counts against it, a result larger than
 * the limit either streams to its output file or stops with the typed MemoryLimitError naming the
 * consumer, and the process's peak RSS stays within a stated margin of the limit.
 *
 * The large cases run in child processes (their RSS is then theirs alone): a 1e8-row result
 * streamed to an Arrow file under a 64 MB limit, a 1e10-row cross product collected by
 * `Engine.join` under 512 MB (hash join and the nested-loop oracle), and a run with no limit whose
 * V8 heap is small. The in-process cases check that the pieces that were not counted before are:
 * probe scratch, one gathered batch of long strings, the nested-loop oracle's own arrays.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeVector, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { MemoryLimitError } from '../../core/errors.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(join(tmpdir(), 'joinlab-mem-'));
const A10K = join(dir, 'a10k.parquet'); // k = 1 for all 10,000 rows: a self-join has 1e8 rows
const A100K = join(dir, 'a100k.parquet'); // k = 1 for all 100,000 rows: 1e10 rows

/** What the process may use beyond the limit: Node, tsx's compiled sources, the Parquet wasm. */
const RSS_MARGIN = 256 * 2 ** 20;

beforeAll(async () => {
  const duck = await DuckDBSession.open({ threads: 1 });
  try {
    await duck.run(`COPY (SELECT 1::INTEGER AS k, i::INTEGER AS v FROM range(10000) t(i)) TO '${A10K}' (FORMAT parquet)`);
    await duck.run(`COPY (SELECT 1::INTEGER AS k, i::INTEGER AS v FROM range(100000) t(i)) TO '${A100K}' (FORMAT parquet)`);
  } finally {
    await duck.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[], nodeArgs: string[] = []) {
  const r = spawnSync(process.execPath, [...nodeArgs, join(ROOT, 'bin/joinlab.mjs'), ...args], { cwd: dir, encoding: 'utf8', timeout: 240_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs a TypeScript snippet that prints one JSON line, in a child process. */
function script(body: string, nodeArgs: string[] = []): { code: number | null; out: Record<string, unknown>; stderr: string } {
  const file = join(dir, `s-${Math.random().toString(36).slice(2)}.mts`);
  writeFileSync(file, `import { Engine, MemoryLimitError } from ${JSON.stringify(join(ROOT, 'index.ts'))};\n${body}\n`);
  const r = spawnSync(process.execPath, [...nodeArgs, join(ROOT, 'bin/run-ts.mjs'), file], { cwd: dir, encoding: 'utf8', timeout: 240_000 });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  let out: Record<string, unknown> = {};
  try {
    out = JSON.parse(line) as Record<string, unknown>;
  } catch {
    out = { unparsed: r.stdout };
  }
  return { code: r.status, out, stderr: r.stderr };
}

describe('a result larger than the limit', () => {
  it('streams 1e8 rows to an Arrow file under memoryLimit=64MB, RSS within the margin', () => {
    const out = join(dir, 'big.arrow');
    const r = cli(['join', '--left', A10K, '--right', A10K, '--on', 'k=k', '--select', 'v', '--set', 'memoryLimit=64MB', '--out', out, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { rows: number; memory: { limit: number; peakReservedBytes: number; maxRssBytes: number } };
    expect(report.rows).toBe(1e8);
    expect(statSync(out).size).toBeGreaterThan(4e8); // 1e8 int32 values
    expect(report.memory.limit).toBe(64e6);
    expect(report.memory.peakReservedBytes).toBeGreaterThan(0);
    expect(report.memory.peakReservedBytes).toBeLessThanOrEqual(64e6);
    expect(report.memory.maxRssBytes).toBeLessThan(64e6 + RSS_MARGIN);
    rmSync(out);
  });

  it('stops a 1e10-row cross product collected by Engine.join with a MemoryLimitError, RSS bounded', () => {
    for (const join of ['hash', 'nested-loop']) {
      const r = script(`
        const engine = await Engine.create({ join: '${join}', memoryLimit: '512MB' });
        let error = null;
        try { await engine.join({ type: 'inner', on: 'k=k' }, ${JSON.stringify(A100K)}, ${JSON.stringify(A100K)}); }
        catch (e) { error = e instanceof MemoryLimitError ? e.message : 'untyped: ' + String(e); }
        console.log(JSON.stringify({ error, rss: process.resourceUsage().maxRSS * 1024 }));`);
      expect(r.code, r.stderr).toBe(0);
      expect(r.out.error).toMatch(/^memory limit exceeded: .* \(memoryLimit=512000000\)$/);
      expect(r.out.rss as number).toBeLessThan(512e6 + RSS_MARGIN);
    }
  });

  it('with no memoryLimit, a small V8 heap ends in the typed error, not a V8 abort', () => {
    const r = script(
      `
      const engine = await Engine.create({ batchSize: 16 });
      let error = null;
      try { await engine.join({ type: 'inner', on: 'k=k' }, ${JSON.stringify(A100K)}, ${JSON.stringify(A100K)}); }
      catch (e) { error = e instanceof MemoryLimitError ? e.message : 'untyped: ' + String(e); }
      console.log(JSON.stringify({ error }));`,
      ['--max-old-space-size=192'],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.out.error).toMatch(/memory limit exceeded: .*the V8 heap is past 75% of its/);
  });

  it('the CLI without --out keeps only the preview: 1e8 rows counted under memoryLimit=16MB', () => {
    const r = cli(['join', '--left', A10K, '--right', A10K, '--on', 'k=k', '--select', 'v', '--set', 'memoryLimit=16MB']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^100000000 rows in /);
    expect(r.stdout).toMatch(/… 99999990 more rows/);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });
});

describe('what counts against the pool', () => {
  const ints = (name: string, values: number[]) => ({ [name]: makeVector(Int32Array.from(values)) });

  it('the probe side scratch (hash, flag and pair arrays per probe batch)', async () => {
    const build = new Table(ints('k', [1, 2, 3]));
    const probe = new Table(ints('k', Array.from({ length: 1_000_000 }, (_, i) => i % 7)));
    const engine = await Engine.create({ memoryLimit: '4MB', 'hash.build': 'left', pushdown: 'none' });
    await expect(engine.join({ type: 'inner', on: 'k=k' }, build, probe)).rejects.toThrow(/memory limit exceeded: hash-join probe scratch/);
    const { metrics } = await (await Engine.create({ 'hash.build': 'left', pushdown: 'none' })).join({ type: 'inner', on: 'k=k' }, build, probe);
    expect(metrics.memory.peakReservedBytes).toBeGreaterThan(4e6);
  });

  it('one output batch of long strings is refused before it is gathered', async () => {
    const long = 'x'.repeat(1 << 20);
    const build = new Table({ k: makeVector(Int32Array.of(1)), s: vectorFromArray([long], new Utf8()) });
    const probe = new Table(ints('k', new Array(200).fill(1)));
    const engine = await Engine.create({ memoryLimit: '64MB', 'hash.build': 'left' });
    const err = await engine.join({ type: 'inner', on: 'k=k' }, build, probe).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemoryLimitError);
    expect((err as Error).message).toMatch(/gather of column 's' asked for 209715200 bytes/);
  });

  it('the table Engine.join returns', async () => {
    const t = new Table(ints('k', new Array(3000).fill(1)));
    const engine = await Engine.create({ memoryLimit: '8MB' });
    await expect(engine.join({ type: 'inner', on: 'k=k' }, t, t)).rejects.toThrow(/memory limit exceeded: Engine.join result table/);
    const stream = await engine.stream({ type: 'inner', on: 'k=k' }, t, t);
    let rows = 0;
    for await (const b of stream.batches) rows += b.numRows; // streamed, nothing is held
    expect(rows).toBe(9e6);
  });

  it("the nested-loop oracle's normalised keys and bitsets", async () => {
    const t = new Table(ints('k', Array.from({ length: 100_000 }, (_, i) => i)));
    const engine = await Engine.create({ join: 'nested-loop', memoryLimit: '2MB' });
    // the inputs (400 KB each) fit; with their keys (8 bytes a row) both sides do not
    await expect(engine.join({ type: 'left-semi', on: 'k=k' }, t, new Table(ints('k', [1])))).resolves.toBeDefined();
    await expect(engine.join({ type: 'left-semi', on: 'k=k' }, t, t)).rejects.toThrow(/memory limit exceeded: nested-loop-join/);
  });
});
