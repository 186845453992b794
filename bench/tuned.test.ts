/**
 * bin/tuned.mjs (`npm start` and `npm run bench` go through it): the child process gets glibc's
 * malloc settings, settings already in the environment win, the child's exit code comes back, and
 * a SIGTERM / SIGINT sent to the wrapper reaches the child (it used to end the wrapper alone and
 * leave the child running).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const TUNED = fileURLToPath(new URL('../bin/tuned.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'joinlab-tuned-'));
const script = join(dir, 'env.mjs');
writeFileSync(script, "console.log(JSON.stringify({ mmap: process.env.MALLOC_MMAP_THRESHOLD_, trim: process.env.MALLOC_TRIM_THRESHOLD_, args: process.argv.slice(2) })); process.exitCode = 3;\n");

function run(env: NodeJS.ProcessEnv, ...args: string[]) {
  const r = spawnSync(process.execPath, [TUNED, script, ...args], { encoding: 'utf8', env });
  return { status: r.status, out: JSON.parse(r.stdout) as { mmap?: string; trim?: string; args: string[] } };
}

describe('bin/tuned.mjs', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("starts the script with glibc's malloc told to keep freed memory, passing arguments and the exit code through", () => {
    const env = { ...process.env };
    delete env.MALLOC_MMAP_THRESHOLD_;
    delete env.MALLOC_TRIM_THRESHOLD_;
    const r = run(env, '--suite', 'h2o');
    expect(r.out).toEqual({ mmap: String(32 << 20), trim: String(16 * 2 ** 30), args: ['--suite', 'h2o'] });
    expect(r.status).toBe(3);
  });

  it('keeps settings already in the environment', () => {
    const r = run({ ...process.env, MALLOC_MMAP_THRESHOLD_: '131072' });
    expect(r.out.mmap).toBe('131072');
  });

  it.each([
    ['SIGTERM', 'handles it', 7, null],
    ['SIGINT', 'handles it', 7, null],
    ['SIGTERM', 'dies of it', null, 'SIGTERM'],
  ] as const)('passes %s on to the child, which %s; exits as the child did', async (sig, what, code, signal) => {
    const child = join(dir, `signal-${sig}-${code}.mjs`);
    const handler = what === 'handles it' ? `process.on('${sig}', () => { console.log('got ${sig}'); process.exit(7); }); ` : '';
    writeFileSync(child, `${handler}console.log('ready'); setInterval(() => {}, 1000);\n`);
    const p = spawn(process.execPath, [TUNED, child], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const ready = new Promise<void>((done) => p.stdout!.on('data', (d) => ((out += String(d)), out.includes('ready') && done())));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => p.on('close', (c, s) => done({ code: c, signal: s })));
    await ready;
    p.kill(sig);
    expect(await exited).toEqual({ code, signal });
    if (what === 'handles it') expect(out).toContain(`got ${sig}`);
  }, 30_000);

  it('without a script: usage, exit 2', () => {
    const r = spawnSync(process.execPath, [TUNED], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/usage: node bin\/tuned.mjs <script>/);
  });
});
