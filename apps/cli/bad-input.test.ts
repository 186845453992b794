/**
 * The CLI's contract for bad input, as a matrix: every command x every path-like argument x every
 * kind of bad path, and every text argument x empty / 1 MB / garbage, must exit 2 with exactly
 * one line `joinlab: …` on stderr (no stack, nothing on stdout), and leave no file behind — and
 * must do so at once: a FIFO used to hang the process, a directory to crash it, a bad `--out` to
 * be found only after the join or the whole experiment had run.
 *
 * In-process through `main(argv)` (fast); the working directory is a scratch directory for the
 * file so that default outputs (`joinlab-report/`) would show up in the listing compared after
 * each case. `--filter` is left out: its parser has its own tests (core/expr).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Int64, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeParquetFile } from '../../adapters/io/parquet.ts';
import { runCli } from './test-helpers.ts';

const work = mkdtempSync(join(tmpdir(), 'joinlab-bad-input-'));
const p = (...parts: string[]) => join(work, ...parts);
const L = p('left.parquet');
const R = p('right.parquet');
const EXP = p('exp.yaml');
const CONFIG = p('config.json');
const isRoot = process.getuid?.() === 0;
let socketServer: Server;
let cwd: string;

beforeAll(async () => {
  const k = vectorFromArray([1n, 2n, 3n], new Int64());
  await writeParquetFile(L, new Table({ k, s: vectorFromArray(['a', 'b', 'c'], new Utf8()) }));
  await writeParquetFile(R, new Table({ k }));
  writeFileSync(EXP, 'name: tiny\ndata: { generator: sparse, params: { probeRows: 100 } }\njoin: { type: inner, on: k=k }\nvariants: [{ name: none, config: { pushdown: none } }]\n');
  writeFileSync(CONFIG, '{}');
  writeFileSync(p('file.txt'), 'x');
  mkdirSync(p('dir.parquet'));
  mkdirSync(p('dir.yaml'));
  execFileSync('mkfifo', [p('fifo.parquet')]);
  execFileSync('mkfifo', [p('fifo.yaml')]);
  writeFileSync(p('locked.parquet'), 'x');
  chmodSync(p('locked.parquet'), 0o000);
  mkdirSync(p('locked-dir'));
  chmodSync(p('locked-dir'), 0o500);
  socketServer = createServer();
  await new Promise<void>((done) => socketServer.listen(p('sock.parquet'), done));
  writeFileSync(p('fifo-data.yaml'), `name: fifo data\ndata: { left: ./fifo.parquet, right: ./right.parquet }\njoin: { type: inner, on: k=k }\nvariants: [{ name: none }]\n`);
  cwd = process.cwd();
  process.chdir(work);
});
afterAll(async () => {
  process.chdir(cwd);
  await new Promise<void>((done) => socketServer.close(() => done()));
  chmodSync(p('locked-dir'), 0o700);
  rmSync(work, { recursive: true, force: true });
});

const run = (argv: string[]) => runCli(argv);

/** Every path under the scratch directory (what a stray output or temp file would change). */
function listing(dir = work): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = join(dir, d.name);
    if (d.isDirectory() && !d.name.startsWith('locked')) return [relative(work, full) + '/', ...listing(full)];
    return [relative(work, full)];
  });
}

/** Runs `argv` and asserts the contract; `why` must appear in the one line. */
async function expectUsageError(argv: string[], why: RegExp): Promise<string> {
  const before = listing();
  const r = await run(argv);
  const lines = r.stderr.split('\n');
  expect(lines.at(-1), 'stderr ends with a newline').toBe('');
  expect(lines.slice(0, -1), `exactly one stderr line: ${r.stderr.slice(0, 500)}`).toHaveLength(1);
  expect(r.stderr).toMatch(/^joinlab: /);
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(r.stderr.slice(0, 2000)).toMatch(why);
  expect(r.stderr.length, 'the line is capped').toBeLessThan(1200);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(listing(), 'no output or temp file left behind').toEqual(before);
  return r.stderr;
}

const joinArgs = (over: Record<string, string>) => {
  const o = { '--left': L, '--right': R, '--on': 'k=k', ...over };
  return ['join', ...Object.entries(o).flat()];
};

type Slot = { readonly name: string; readonly kind: 'input' | 'output-file' | 'output-dir' | 'dir'; readonly argv: (path: string) => string[] };
const SLOTS: readonly Slot[] = [
  { name: 'join --left', kind: 'input', argv: (x) => joinArgs({ '--left': x }) },
  { name: 'join --right', kind: 'input', argv: (x) => joinArgs({ '--right': x }) },
  { name: 'join --config', kind: 'input', argv: (x) => joinArgs({ '--config': x }) },
  { name: 'join --out', kind: 'output-file', argv: (x) => joinArgs({ '--out': x }) },
  { name: 'sort INPUT', kind: 'input', argv: (x) => ['sort', x, '--by', 'k'] },
  { name: 'sort --config', kind: 'input', argv: (x) => ['sort', L, '--by', 'k', '--config', x] },
  { name: 'sort --out', kind: 'output-file', argv: (x) => ['sort', L, '--by', 'k', '--out', x] },
  { name: 'run FILE', kind: 'input', argv: (x) => ['run', x, '--out', p('report')] },
  { name: 'run --out', kind: 'output-dir', argv: (x) => ['run', EXP, '--out', x] },
  { name: 'demo --out', kind: 'output-dir', argv: (x) => ['demo', '--out', x] },
  { name: 'parity --config', kind: 'input', argv: (x) => ['parity', '--cases', '1', '--config', x] },
  { name: 'check --config', kind: 'input', argv: (x) => ['check', '--rows', '1', '--config', x] },
  { name: 'strategies --config', kind: 'input', argv: (x) => ['strategies', '--config', x] },
  { name: 'clean DIR', kind: 'dir', argv: (x) => ['clean', '--dry-run', x] },
];

/** Bad paths per kind of slot: [label, path, what the message must say]. */
const BAD: Record<Slot['kind'], [string, () => string, RegExp, boolean?][]> = {
  input: [
    ['missing', () => p('nope.parquet'), /not found: .*nope\.parquet/],
    ['a directory', () => p('dir.parquet'), /is a directory, not a regular file/],
    ['a FIFO', () => p('fifo.parquet'), /is a FIFO \(named pipe\), not a regular file/],
    ['a socket', () => p('sock.parquet'), /is a socket, not a regular file/],
    ['a character device', () => '/dev/null', /is a character device, not a regular file/],
    ['a NUL byte in the path', () => p('a\u0000b.parquet'), /path contains a NUL byte/],
    ['unreadable (chmod 000)', () => p('locked.parquet'), /permission denied/, isRoot],
  ],
  'output-file': [
    ['an existing directory', () => p('dir.parquet'), /dir\.parquet is an existing directory/],
    ['in a missing directory', () => p('no-such-dir', 'x.parquet'), /directory .*no-such-dir does not exist/],
    ['under a regular file', () => p('file.txt', 'x.parquet'), /file\.txt is a regular file, not a directory/],
    ['a FIFO', () => p('fifo.parquet'), /is a FIFO \(named pipe\), not a regular file/],
    ['an unsupported extension', () => p('out.txt'), /cannot tell the file format of .*out\.txt/],
    ['a NUL byte in the path', () => p('a\u0000b.parquet'), /path contains a NUL byte/],
    ['in a directory that is not writable', () => p('locked-dir', 'x.parquet'), /is not writable/, isRoot],
  ],
  'output-dir': [
    ['an existing file', () => p('file.txt'), /file\.txt exists and is a regular file, not a directory/],
    ['under a regular file', () => p('file.txt', 'report'), /file\.txt is a regular file, not a directory/],
    ['a FIFO', () => p('fifo.parquet'), /is a FIFO \(named pipe\), not a directory/],
    ['a NUL byte in the path', () => p('a\u0000b'), /path contains a NUL byte/],
    ['not writable', () => p('locked-dir'), /is not writable/, isRoot],
  ],
  dir: [
    ['missing', () => p('no-such-dir'), /not found: .*no-such-dir/],
    ['a regular file', () => p('file.txt'), /file\.txt is a regular file, not a directory/],
    ['a FIFO', () => p('fifo.parquet'), /is a FIFO \(named pipe\), not a directory/],
    ['a NUL byte in the path', () => p('a\u0000b'), /path contains a NUL byte/],
  ],
};

const pathCases = SLOTS.flatMap((s) => BAD[s.kind].map(([label, path, why, skip]) => ({ title: `${s.name}: ${label}`, argv: () => s.argv(path()), why, skip: skip === true })));

describe('every path-like argument: exit 2, one line, no output, at once', () => {
  // root reads and writes through permission bits: those cases are skipped as root
  for (const { title, argv, why, skip } of pathCases) {
    it.skipIf(skip)(title, async () => {
      await expectUsageError(argv(), why);
    }, 15_000);
  }

  it('run: a FIFO named as a data file in the experiment', async () => {
    await expectUsageError(['run', p('fifo-data.yaml'), '--out', p('report')], /left input of data set .* is a FIFO/);
  });
});

const MB = 'a'.repeat(1 << 20);
const NESTED = '('.repeat(100_000);
const CONTROL = 'a\nb\r\u0000\u001b[31m';
const TEXT_VALUES: [string, string][] = [
  ['empty', ''],
  ['1 MB', MB],
  ['deeply nested', NESTED],
  ['control characters', CONTROL],
];
type TextSlot = { readonly name: string; readonly argv: (v: string) => string[] };
const TEXT_SLOTS: readonly TextSlot[] = [
  { name: 'join --on', argv: (v) => joinArgs({ '--on': v }) },
  { name: 'join --range', argv: (v) => ['join', '--left', L, '--right', R, '--range', v] },
  { name: 'join --type', argv: (v) => joinArgs({ '--type': v }) },
  { name: 'join --algorithm', argv: (v) => joinArgs({ '--algorithm': v }) },
  { name: 'join --select', argv: (v) => joinArgs({ '--select': v }) },
  { name: 'join --set', argv: (v) => joinArgs({ '--set': v }) },
  { name: 'join --set batchSize=', argv: (v) => joinArgs({ '--set': `batchSize=${v}` }) },
  { name: 'sort --by', argv: (v) => ['sort', L, '--by', v] },
  { name: 'sort --set', argv: (v) => ['sort', L, '--by', 'k', '--set', v] },
  { name: 'sort INPUT', argv: (v) => ['sort', v, '--by', 'k'] },
  { name: 'strategies --set', argv: (v) => ['strategies', '--set', v] },
  { name: 'parity --cases', argv: (v) => ['parity', '--cases', v] },
  { name: 'parity --seed', argv: (v) => ['parity', '--seed', v] },
  { name: 'parity --algorithm', argv: (v) => ['parity', '--cases', '1', '--algorithm', v] },
  { name: 'parity --sql-share', argv: (v) => ['parity', '--cases', '1', '--sql-share', v] },
  { name: 'parity --sql-features', argv: (v) => ['parity', '--cases', '1', '--sql-features', v] },
  { name: 'check --rows', argv: (v) => ['check', '--rows', v] },
  { name: 'check --seed', argv: (v) => ['check', '--seed', v] },
  { name: 'check --set', argv: (v) => ['check', '--rows', '1', '--set', v] },
  { name: 'run FILE', argv: (v) => ['run', v, '--out', p('report')] },
  { name: 'clean DIR', argv: (v) => ['clean', '--dry-run', v] },
];
const textCases = TEXT_SLOTS.flatMap((s) => TEXT_VALUES.map(([label, v]) => ({ title: `${s.name}: ${label}`, argv: s.argv(v) })));

describe('every text argument: empty, 1 MB, garbage -> exit 2, one printable line', () => {
  it.each(textCases)('$title', async ({ argv }) => {
    const line = await expectUsageError(argv, /./);
    expect(line.slice(0, -1)).not.toMatch(/[\u0000-\u001f]/); // control characters are escaped
  }, 15_000);
});

describe('flags that were silently ignored, misread or crashed', () => {
  const cases: [string, string[], RegExp][] = [
    ['--null-aware with --null-equals-null', [...joinArgs({ '--type': 'left-anti' }), '--null-aware', '--null-equals-null'], /--null-aware \(NOT IN\) and --null-equals-null cannot be combined/],
    ['--left twice', [...joinArgs({}), '--left', R], /--left was given more than once/],
    ['--out twice', [...joinArgs({ '--out': p('a.parquet') }), '--out', p('b.parquet')], /--out was given more than once/],
    ['--type twice (same value)', [...joinArgs({ '--type': 'inner' }), '--type', 'inner'], /--type was given more than once/],
    ['--config twice', [...joinArgs({ '--config': CONFIG }), '--config=' + CONFIG], /--config was given more than once/],
    ['run --out twice', ['run', EXP, '--out', p('r1'), '--out', p('r2')], /--out was given more than once/],
    ['check --rows twice', ['check', '--rows', '1', '--rows', '2'], /--rows was given more than once/],
    ['--algorithm "" (used to run the default)', joinArgs({ '--algorithm': '' }), /--algorithm needs a value, got an empty string/],
    ['--out= (empty)', [...joinArgs({}), '--out='], /--out needs a value/],
    ['demo --out "" (used to write into the working directory)', ['demo', '--out', ''], /--out needs a value/],
    ['check --rows 0 (used to crash)', ['check', '--rows', '0'], /--rows expects an integer from 1 to 10,000,000, got '0'/],
    ['check --rows 1e12 (used to crash)', ['check', '--rows', '1e12'], /--rows expects an integer/],
    ['check --rows 0x10', ['check', '--rows', '0x10'], /--rows expects an integer/],
    ['check --rows " 5"', ['check', '--rows', ' 5'], /--rows expects an integer/],
    ['check --rows 1.5', ['check', '--rows', '1.5'], /--rows expects an integer/],
    ['parity --cases "" (used to run 0 cases)', ['parity', '--cases', ''], /--cases needs a value/],
    ['parity --cases -1', ['parity', '--cases', '-1'], /--cases expects an integer from 0/],
    ['parity --sql-share 1.5', ['parity', '--cases', '1', '--sql-share', '1.5'], /--sql-share expects a number from 0 to 1, got '1.5'/],
    ['parity --sql-features unknown', ['parity', '--cases', '1', '--sql-features', 'aggregates,joins'], /--sql-features: unknown feature 'joins'; features: subqueries, aggregates/],
    ['parity --sql-features ","', ['parity', '--cases', '1', '--sql-features', ','], /--sql-features expects feature names/],
    ['check --seed 2^32 (seeds are 32-bit)', ['check', '--seed', '4294967296'], /--seed expects an integer from 0 to 4,294,967,295/],
    ['no command', [], /missing command: one of join, sql, workload, sqllogictest, sort, strategies, config, run, demo, parity, check, clean/],
    ['sort --by twice', ['sort', L, '--by', 'k', '--by', 's'], /--by was given more than once/],
    ['sort with two inputs', ['sort', L, R, '--by', 'k'], /too many arguments for 'sort'/],
    ['unknown command', ['frobnicate'], /unknown command 'frobnicate'/],
    ['join with a positional argument', ['join', 'x.parquet', '--left', L, '--right', R, '--on', 'k=k'], /too many arguments for 'join'/],
    ['run with two files', ['run', EXP, EXP], /too many arguments for 'run'/],
  ];
  it.each(cases)('%s', async (_name, argv, why) => {
    await expectUsageError(argv, why);
  });

  it('config files: a boolean where a number goes, a self-referencing YAML alias', async () => {
    writeFileSync(p('bool.json'), '{"hash": {"partitions": true}}');
    writeFileSync(p('self.yaml'), 'hash: &h\n  mode: partitioned\n  again: *h\n');
    await expectUsageError(joinArgs({ '--config': p('bool.json') }), /invalid config value for 'hash\.partitions' \(got true\)/);
    await expectUsageError(['strategies', '--config', p('self.yaml')], /configuration refers to itself at 'hash\.again'/);
  });
});

describe('--out onto an input is refused before anything is read', () => {
  let n = 0;
  it.each([
    ['the same path', () => L],
    ['./ spelling', () => './left.parquet'],
    ['../x/ spelling', () => `../${relative(join(work, '..'), work)}/left.parquet`],
    ['a symbolic link to it', () => (symlinkSync(L, p(`link${++n}.parquet`)), p(`link${n}.parquet`))],
    ['a hard link of it', () => (linkSync(L, p(`hard${++n}.parquet`)), p(`hard${n}.parquet`))],
  ])('%s', async (_name, out) => {
    const target = out();
    const bytes = readFileSync(L);
    await expectUsageError(joinArgs({ '--out': target }), /--out .* is the same file as --left .*left\.parquet: writing the result there would replace the input/);
    expect(readFileSync(L)).toEqual(bytes);
    await expectUsageError(['join', '--left', R, '--right', target, '--on', 'k=k', '--out', target], /is the same file as --right/);
    await expectUsageError(['sort', L, '--by', 'k', '--out', target], /--out .* is the same file as the input .*left\.parquet: writing the result there would replace the input/);
    expect(readFileSync(L)).toEqual(bytes);
  });

  it('a missing --out directory is found before the join (the join would fail on its own here)', async () => {
    await expectUsageError(joinArgs({ '--on': 'nope=k', '--out': p('missing', 'x.parquet') }), /--out .*: directory .*missing does not exist/);
  });
});

describe('the preview', () => {
  it('cuts a 1 MB cell to 40 characters and says how many bytes were cut', async () => {
    const big = p('big.parquet');
    await writeParquetFile(big, new Table({ k: vectorFromArray([1n], new Int64()), s: vectorFromArray([MB], new Utf8()) }));
    const r = await run(['join', '--left', big, '--right', R, '--on', 'k=k']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeLessThan(500);
    expect(r.stdout).toContain(`${'a'.repeat(40)}…(+${(1 << 20) - 40} bytes)`);
  });
});
