/**
 * What only a real `joinlab` process can show: SIGTERM / SIGINT while the output is being written
 * remove the hidden temp file and exit 143 / 130 with one line; SIGKILL leaves the temp file and
 * `joinlab clean` removes it; the extension example of docs/extending.md runs as printed, from a directory
 * outside the repository (a `.js` ES module used to fail there with "Cannot require() ES Module …
 * in a cycle").
 *
 * The join is a cross product (every key equal) of 2000 x 2000 rows written as CSV, which the
 * writer streams batch by batch: the temp file exists for a few seconds, long enough to signal.
 * `clean` runs in-process with TMPDIR pointing into the test directory, so it looks for spill
 * directories there and not in the machine's temp directory. A sort of 1M rows under a 4 MB limit
 * spills runs long enough to be signalled while it does (with its own TMPDIR in the test directory).
 * `joinlab run` is signalled during a hash join of 100,000 x 100,000 rows on one key value (10G
 * output rows, minutes of work that never waits on I/O): it used to hold the signal off until the
 * join ended, since neither did the experiment pass the CLI's signal down nor did the join give
 * the event loop a turn. `joinlab sql` is signalled while it starts and during a nested-loop join
 * of 100,000 x 100,000 rows: it must be gone within 3 s (it did not pass its signal to Engine.sql
 * and waited for the 2 s grace of the interrupt handler).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { main } from './main.ts';

const BIN = fileURLToPath(new URL('../../bin/joinlab.mjs', import.meta.url));
const EXTENDING = fileURLToPath(new URL('../../docs/extending.md', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'joinlab-process-'));
const spillParent = join(dir, 'tmp');

beforeAll(async () => {
  mkdirSync(spillParent);
  const duck = await DuckDBSession.open({ threads: 1 });
  try {
    await duck.run(`COPY (SELECT 0::BIGINT AS k, i AS v FROM range(2000) t(i)) TO '${join(dir, 'l.parquet')}' (FORMAT parquet)`);
    await duck.run(`COPY (SELECT 0::BIGINT AS k, i AS w FROM range(2000) t(i)) TO '${join(dir, 'r.parquet')}' (FORMAT parquet)`);
    await duck.run(`COPY (SELECT (i * 7919) % 1000003 AS k, i AS v FROM range(1000000) t(i)) TO '${join(dir, 'unsorted.parquet')}' (FORMAT parquet)`);
    await duck.run(`COPY (SELECT 0::BIGINT AS k, i AS v FROM range(100000) t(i)) TO '${join(dir, 'hot_l.parquet')}' (FORMAT parquet)`);
    await duck.run(`COPY (SELECT 0::BIGINT AS k, i AS w FROM range(100000) t(i)) TO '${join(dir, 'hot_r.parquet')}' (FORMAT parquet)`);
  } finally {
    duck.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

function start(args: string[], cwd = dir, env?: NodeJS.ProcessEnv): { child: ChildProcess; exited: Promise<Exit> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += String(d)));
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const exited = new Promise<Exit>((done) => child.on('close', (code, signal) => done({ code, signal, stdout, stderr })));
  return { child, exited };
}

/** `joinlab clean …` in-process, with the temp directory (where spill directories live) at spillParent. */
async function clean(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = spillParent;
  try {
    return { code: await main(['clean', ...args]), stdout, stderr };
  } finally {
    process.env.TMPDIR = saved;
    if (saved === undefined) delete process.env.TMPDIR;
    o.mockRestore();
    e.mockRestore();
  }
}

const tempFiles = (d = dir) => readdirSync(d).filter((f) => f.includes('.tmp-'));

/** Polls until the output's temp file exists (the writer has started). */
async function untilTempFile(exited: Promise<Exit>, timeoutMs = 60_000): Promise<string> {
  let over = false;
  void exited.then(() => (over = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !over) {
    const t = tempFiles();
    if (t.length > 0) return t[0]!;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no temp file appeared (${over ? 'the process ended first' : 'timeout'}): ${JSON.stringify(await Promise.race([exited, Promise.resolve(null)]))}`);
}

const bigJoin = (out: string) => ['join', '--left', 'l.parquet', '--right', 'r.parquet', '--on', 'k=k', '--out', out];

describe('signals while the output is written', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s: exit %i, one line, no temp file, no output', async (sig, code) => {
    const out = `big-${sig}.csv`;
    const { child, exited } = start(bigJoin(out));
    const tmp = await untilTempFile(exited);
    expect(tmp).toMatch(new RegExp(`^\\.${out.replace('.', '\\.')}\\.tmp-${child.pid}-[0-9a-f]+$`));
    child.kill(sig);
    const r = await exited;
    expect(r.stderr).toBe(`joinlab: interrupted (${sig}), temporary files removed\n`);
    expect(r.code).toBe(code);
    expect(tempFiles()).toEqual([]);
    expect(existsSync(join(dir, out))).toBe(false);
  }, 90_000);

  it('SIGKILL leaves the temp file; `joinlab clean` removes it (and a dead spill directory), keeps the living', async () => {
    const { child, exited } = start(bigJoin('big-kill.csv'));
    const tmp = await untilTempFile(exited);
    child.kill('SIGKILL');
    expect((await exited).signal).toBe('SIGKILL');
    expect(tempFiles()).toEqual([tmp]);
    mkdirSync(join(spillParent, `joinlab-spill-${child.pid}-AbC123`));
    const living = `.keep.parquet.tmp-${process.pid}-abcdef012345`; // this test's own pid: running
    writeFileSync(join(dir, living), 'x');

    const dry = await clean(['--dry-run', dir]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`would remove ${join(dir, tmp)} (temp file of pid ${child.pid}, not running)`);
    expect(tempFiles().sort()).toEqual([tmp, living].sort());

    const r = await clean([dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`removed ${join(dir, tmp)}`);
    expect(r.stdout).toContain(`removed ${join(spillParent, `joinlab-spill-${child.pid}-AbC123`)} (spill directory of pid ${child.pid}, not running)`);
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^2 leftovers removed/);
    expect(tempFiles()).toEqual([living]);
    expect(readdirSync(spillParent)).toEqual([]);
  }, 90_000);
});

describe('signals while a sort spills', () => {
  it('SIGTERM while `joinlab sort` writes sorted runs: exit 143, one line, the spill directory removed, no output', async () => {
    const out = 'sorted.parquet';
    const tmp = join(dir, 'sort-tmp'); // (tsx keeps its cache in the temp directory too)
    mkdirSync(tmp);
    const { child, exited } = start(['sort', 'unsorted.parquet', '--by', 'k desc', '--set', 'memoryLimit=4MB', '--set', 'batchSize=1024', '--out', out], dir, { ...process.env, TMPDIR: tmp });
    let over = false;
    void exited.then(() => (over = true));
    const mine = `joinlab-spill-${child.pid}-`;
    // a run in the sort's spill directory: it is past the memory limit and writing runs
    const spilling = () => readdirSync(tmp).some((d) => d.startsWith(mine) && readdirSync(join(tmp, d)).length > 0);
    const deadline = Date.now() + 60_000;
    while (!over && Date.now() < deadline && !spilling()) await new Promise((r) => setTimeout(r, 10));
    expect(over, 'the sort ended before it spilled').toBe(false);
    child.kill('SIGTERM');
    const r = await exited;
    expect(r.stderr).toBe('joinlab: interrupted (SIGTERM), temporary files removed\n');
    expect(r.code).toBe(143);
    expect(readdirSync(tmp).filter((d) => d.startsWith('joinlab-spill-'))).toEqual([]);
    expect(tempFiles().filter((f) => f.startsWith(`.${out}.tmp-`))).toEqual([]); // (the SIGKILL test keeps a living one)
    expect(existsSync(join(dir, out))).toBe(false);
  }, 90_000);
});

describe('signals while an experiment runs a long query', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s during `joinlab run`: the query is aborted, exit %i, one line, no report', async (sig, code) => {
    const exp = join(dir, `hot-${sig}.yaml`);
    writeFileSync(
      exp,
      `name: hot key\nsql: SELECT count(*) AS n FROM l JOIN r ON l.k = r.k\ntables: { l: hot_l.parquet, r: hot_r.parquet }\nconfig: { join: hash }\nvariants: [{ name: hash }]\nrepeat: 1\nwarmup: 0\nduckdb: false\nparity: false\n`,
    );
    const out = join(dir, `hot-report-${sig}`);
    const { child, exited } = start(['run', exp, '--out', out]);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += String(d)));
    let over = false;
    void exited.then(() => (over = true));
    const deadline = Date.now() + 60_000;
    while (!over && Date.now() < deadline && !stderr.includes('hash (0 warm-up + 1 timed runs)')) await new Promise((r) => setTimeout(r, 10));
    expect(over, 'the run ended before its query started').toBe(false);
    await new Promise((r) => setTimeout(r, 300)); // into the join
    child.kill(sig);
    const r = await exited;
    expect(r.stderr.trim().split('\n').at(-1)).toBe(`joinlab: interrupted (${sig}), temporary files removed`);
    expect(r.code).toBe(code);
    expect(existsSync(join(out, 'results.json'))).toBe(false);
  }, 90_000);
});

describe('signals during `joinlab sql`', () => {
  // a nested-loop join of 100,000 x 100,000 rows (10G pairs, minutes) whose filter never passes
  const longQuery = 'SELECT l.v, r.w FROM hot_l l, hot_r r WHERE l.v + r.w = -1';
  // Loading the sources can take many seconds on a busy machine, so "the command runs" is not a
  // time after spawning: a preload reports when bin/joinlab.mjs removes its start-up handlers,
  // right after main() has installed its own (a signal there once killed the process silently: the
  // early handlers came off first, and a signal with no listener takes Node's default action).
  const preload = join(dir, 'mark-main.mjs');
  beforeAll(() =>
    writeFileSync(
      preload,
      "const off = process.removeListener.bind(process); let told = false;\n" +
        "process.off = process.removeListener = (ev, fn) => { const r = off(ev, fn); if (ev === 'SIGTERM' && !told) { told = true; process.stderr.write('[test] main starts\\n'); } return r; };\n",
    ),
  );

  it.each([
    ['SIGTERM', 143, 'while it loads', null],
    ['SIGTERM', 143, 'as the command starts (planning)', 0],
    ['SIGTERM', 143, 'while the join runs', 1500],
    ['SIGINT', 130, 'while the join runs', 1500],
  ] as const)('%s (exit %i) %s: gone within 3 s, one line, no output, no temp files', async (sig, code, _when, afterMain) => {
    const out = `sql-${sig}-${afterMain}.parquet`;
    const child = spawn(process.execPath, ['--import', preload, BIN, 'sql', longQuery, '--data', '.', '--out', out], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<{ code: number | null }>((done) => child.on('close', (c) => done({ code: c })));
    let over = false;
    void exited.then(() => (over = true));
    if (afterMain === null) await new Promise((r) => setTimeout(r, 1000));
    else {
      const deadline = Date.now() + 60_000;
      while (!over && Date.now() < deadline && !stderr.includes('[test] main starts')) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, afterMain));
    }
    expect(over, 'the query ended before the signal').toBe(false);
    const killed = performance.now();
    child.kill(sig);
    // a join that never gives the event loop a turn keeps even the handler from running: the
    // process would run on for minutes (it did: Engine.sql got no signal, so nothing paced)
    const r = await Promise.race([exited, new Promise<null>((done) => setTimeout(() => done(null), 10_000))]);
    if (r === null) child.kill('SIGKILL');
    expect(r, `still running 10 s after ${sig}`).not.toBeNull();
    expect(performance.now() - killed).toBeLessThan(3000);
    const line = stderr.trim().split('\n').at(-1);
    // before main, bin/joinlab.mjs's handler ends the process ("while starting"); after, the CLI's
    if (afterMain === null) expect(line).toMatch(new RegExp(`^joinlab: interrupted \\(${sig}\\)(, temporary files removed| while starting, nothing written)$`));
    else expect(line).toBe(`joinlab: interrupted (${sig}), temporary files removed`);
    expect(r!.code).toBe(code);
    expect(existsSync(join(dir, out))).toBe(false);
    expect(tempFiles().filter((f) => f.startsWith(`.${out}.tmp-`))).toEqual([]);
  }, 90_000);
});

describe('the hand-over from the start-up handlers to main\'s', () => {
  it('a SIGTERM the moment the start-up handler comes off is still reported (exit 143, one line)', async () => {
    // The preload sends the signal from inside process.off('SIGTERM', …): if main's handler were
    // not installed yet, the signal would have no listener and end the process silently.
    const preload = join(dir, 'kill-at-hand-over.mjs');
    writeFileSync(
      preload,
      "const off = process.removeListener.bind(process); let sent = false;\n" +
        "process.off = process.removeListener = (ev, fn) => { const r = off(ev, fn); if (ev === 'SIGTERM' && !sent) { sent = true; process.kill(process.pid, 'SIGTERM'); } return r; };\n",
    );
    const out = 'hand-over.parquet';
    const child = spawn(process.execPath, ['--import', preload, BIN, 'sql', 'SELECT l.v, r.w FROM hot_l l, hot_r r WHERE l.v + r.w = -1', '--data', '.', '--out', out], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += String(d)));
    const r = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('close', (code, signal) => done({ code, signal })));
    expect(r.signal).toBeNull();
    expect(r.code).toBe(143);
    expect(stderr.trim().split('\n').at(-1)).toBe('joinlab: interrupted (SIGTERM), temporary files removed');
    expect(existsSync(join(dir, out))).toBe(false);
  }, 90_000);
});

describe('docs/extending.md: the extension example runs as printed, outside the repository', () => {
  it('my-policy.js (an ES module in a plain .js file) loads and its policy runs', async () => {
    const readme = readFileSync(EXTENDING, 'utf8');
    const code = /```js\n(\/\/ my-policy\.js[\s\S]*?)```/.exec(readme)?.[1];
    const command = /^npx joinlab (join .*--set extensions=\.\/my-policy\.js.*)$/m.exec(readme)?.[1];
    expect(code, 'docs/extending.md shows my-policy.js').toBeDefined();
    expect(command, 'docs/extending.md shows how to run it').toBeDefined();
    const ext = mkdtempSync(join(tmpdir(), 'joinlab-readme-ext-')); // no package.json up the tree
    try {
      writeFileSync(join(ext, 'my-policy.js'), code!);
      const duck = await DuckDBSession.open({ threads: 1 });
      try {
        await duck.run(`COPY (SELECT i AS k, i * 10 AS v FROM range(20) t(i)) TO '${join(ext, 'a.parquet')}' (FORMAT parquet)`);
        await duck.run(`COPY (SELECT i * 2 AS k FROM range(5) t(i)) TO '${join(ext, 'b.parquet')}' (FORMAT parquet)`);
      } finally {
        duck.close();
      }
      const r = await start([...command!.split(' '), '--json'], ext).exited;
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout);
      expect(report.rows).toBe(5);
      expect(report.config.pushdown).toBe('everything');
    } finally {
      rmSync(ext, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a reader that goes away', () => {
  it('`joinlab join … | head` with the pipe closed: the run ends quietly (exit 0, nothing on stderr)', async () => {
    for (const extra of [[], ['--json']]) {
      const child = spawn(process.execPath, [BIN, 'join', '--left', join(dir, 'l.parquet'), '--right', join(dir, 'r.parquet'), '--on', 'k=k', ...extra], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += String(d)));
      // like `| head -0` (or a reader that quit early): the pipe is closed before joinlab writes
      child.stdout!.destroy();
      const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
      expect(stderr).toBe('');
      expect(code).toBe(0);
    }
  }, 60_000);
});
