/**
 * `joinlab sort` end to end, in-process: a Parquet file of every column type sorted under a
 * memory limit small enough to spill several runs, written to Parquet and Arrow, matches DuckDB's
 * `ORDER BY …` row for row; `--json` reports the runs and bytes spilled; the preview works; bad
 * input exits 2 with one line, no output file, no temp file and no spill directory left.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Table, makeVector } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../core/random.ts';
import { LOGICAL_TYPES, randomTable, type ColumnGen } from '../../adapters/datagen/random-tables.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { readTable } from '../../adapters/io/index.ts';
import { writeParquetFile } from '../../adapters/io/parquet.ts';
import { runCli } from './test-helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'joinlab-cli-sort-'));
const IN = join(dir, 'in.parquet');
const N = 10_000;
const CSV = join(dir, 'x.csv');

const run = (...argv: string[]) => runCli(argv);

/** This process's spill directories in the temp directory (there must be none once a command ends). */
const spillDirs = () => readdirSync(tmpdir()).filter((f) => f.startsWith(`joinlab-spill-${process.pid}-`));

let duck: DuckDBSession;

beforeAll(async () => {
  const rng = new Rng(2026);
  const columns: ColumnGen[] = LOGICAL_TYPES.map((t) => ({ name: `k_${t.replace('-', '_')}`, type: t, domain: 12, nullRate: 0.15, skew: 0.2 }));
  const t = randomTable(rng, columns, N, N);
  const table = new Table({ ...Object.fromEntries(t.schema.fields.map((f) => [f.name, t.getChild(f.name)!])), rid: makeVector(Int32Array.from({ length: N }, (_, i) => i)) });
  await writeParquetFile(IN, table, { rowGroupSize: 1000 });
  writeFileSync(CSV, 'a,b\n1,2\n3\n');
  duck = await DuckDBSession.open({ threads: 1 });
  await duck.loadTable('t', table);
});
afterAll(async () => {
  await duck?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('joinlab sort INPUT --by … --out', () => {
  // Parquet output holds a row group of at least 1024 rows in the pool beside the merge, so it
  // gets the larger limit; both are well below what sorting in memory takes (~1.5 MB here)
  const cases: [by: string, orderBy: string, ext: string, limit: number][] = [
    ['k_utf8 desc nulls first, k_int32, rid', '"k_utf8" DESC NULLS FIRST, "k_int32" ASC NULLS LAST, rid', 'parquet', 1_000_000],
    ['k_float64 nulls first, k_dict_utf8 desc, k_decimal desc nulls first', '"k_float64" ASC NULLS FIRST, "k_dict_utf8" DESC NULLS LAST, "k_decimal" DESC NULLS FIRST, rid', 'arrow', 400_000],
    ['k_ts_ns DESC NULLS LAST', '"k_ts_ns" DESC NULLS LAST, rid', 'arrow', 400_000],
  ];
  it.each(cases)('--by "%s" spills under memoryLimit and matches ORDER BY %s (.%s)', async (by, orderBy, ext, limit) => {
    const want = await duck.query(`SELECT * FROM t ORDER BY ${orderBy}`);
    const out = join(dir, `sorted.${ext}`);
    const r = await run('sort', IN, '--by', by, '--set', `memoryLimit=${limit}`, '--set', 'batchSize=200', '--out', out, '--json');
    expect(r.stderr, by).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.rows).toBe(N);
    expect(report.sort.runsSpilled).toBeGreaterThan(1);
    expect(report.sort.bytesSpilled).toBeGreaterThan(0);
    expect(report.memory.peakReservedBytes).toBeLessThanOrEqual(limit);
    expect(report.out).toBe(out);
    const got = await readTable(out);
    // stable: the input order (rid) breaks ties, as in DuckDB's ORDER BY …, rid
    expect(Array.from(got.getChild('rid')!.toArray() as Int32Array).join(), by).toBe(Array.from(want.getChild('rid')!.toArray() as Int32Array).join());
    const cmp = compareResults(got, want);
    expect(cmp.equal, `${by}\n${formatComparison(cmp)}`).toBe(true);
    rmSync(out);
    expect(spillDirs()).toEqual([]);
  });

  it('threads=2: the runs are sorted on the workers, in memory and past the memory limit, and the order is the same', async () => {
    const want = await duck.query('SELECT rid FROM t ORDER BY "k_utf8" DESC NULLS FIRST, "k_int32" ASC NULLS LAST, rid');
    for (const limit of ['1GB', '1000000']) {
      const out = join(dir, `sorted-threads-${limit}.arrow`);
      const r = await run('sort', IN, '--by', 'k_utf8 desc nulls first, k_int32, rid', '--set', 'threads=2', '--set', 'parallel.minProbeRows=0', '--set', 'parallel.minStartRows=0', '--set', `memoryLimit=${limit}`, '--set', 'batchSize=300', '--out', out, '--json');
      expect(r.stderr, limit).toBe('');
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout);
      expect([report.rows, report.threads], limit).toEqual([N, '2']);
      expect(report.parallelSort, limit).toMatch(limit === '1GB' ? /runs on 2 workers, merged in memory/ : /spilled past the memory limit/);
      const got = await readTable(out);
      expect(Array.from(got.getChild('rid')!.toArray() as Int32Array).join(), limit).toBe(Array.from(want.getChild('rid')!.toArray() as Int32Array).join());
      rmSync(out);
    }
    expect(spillDirs()).toEqual([]);
  });

  it('without --out: a summary line and the first rows', async () => {
    const r = await run('sort', IN, '--by', 'rid desc', '--set', 'memoryLimit=400KB', '--set', 'batchSize=500');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^10000 rows sorted in [\d.]+ ms \(\d+ runs spilled, \d+ bytes; (\d+ intermediate merges, then )?a \d+-way merge\)$/);
    expect(lines[1]).toMatch(/^k_int8 /);
    expect(r.stdout).toContain('… 9990 more rows (use --out FILE to write them all)');
    const inMemory = await run('sort', IN, '--by', 'rid desc');
    expect(inMemory.stdout.split('\n')[0]).toMatch(/^10000 rows sorted in [\d.]+ ms \(in memory\)$/);
    expect(inMemory.stdout.split('\n').slice(1)).toEqual(lines.slice(1));
    expect(spillDirs()).toEqual([]);
  });
});

describe('joinlab sort: bad input exits 2 with one line and leaves nothing behind', () => {
  const cases: [string, () => string[], RegExp][] = [
    ['an unknown --by column', () => ['--by', 'k_int32, nope'], /column 'nope' not found in .*in\.parquet; columns: k_int8, /],
    ['malformed --by', () => ['--by', 'k_int32 sideways'], /--by expects "COLUMN \[ASC\|DESC\] \[NULLS FIRST\|LAST\]/],
    ['an empty --by', () => ['--by', ''], /--by needs a value/],
    ['a row larger than memoryLimit', () => ['--by', 'k_int32', '--set', 'memoryLimit=2KB'], /memory limit exceeded: sort input \(one row of a 10000-row batch\)/],
    ['no room to merge into batchSize batches', () => ['--by', 'k_int32', '--set', 'memoryLimit=400KB', '--set', 'batchSize=100000'], /memory limit exceeded: sort merge \(a run and a 100000-row output batch; a smaller batchSize needs less\)/],
    ['a missing input', () => ['--by', 'k_int32', '--in', join(dir, 'nope.parquet')], /file not found: .*nope\.parquet/],
    ['a ragged CSV input', () => ['--by', 'k_int32', '--in', CSV], /cannot read .*x\.csv: line 3: a row of a different number of fields than the header/],
  ];
  it.each(cases)('%s', async (_name, args) => {
    const argv = args();
    const i = argv.indexOf('--in');
    const input = i >= 0 ? argv.splice(i, 2)[1]! : IN;
    const out = join(dir, 'bad-out.parquet');
    const r = await run('sort', input, ...argv, '--out', out);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(cases.find((c) => c[0] === _name)![2]);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
    expect(spillDirs()).toEqual([]);
  });

  it('--out onto the input is refused before anything is read', async () => {
    const bytes = readFileSync(IN);
    const r = await run('sort', IN, '--by', 'k_int32', '--out', IN);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--out .*in\.parquet is the same file as the input .*in\.parquet: writing the result there would replace the input/);
    expect(readFileSync(IN)).toEqual(bytes);
  });

  it('--by is required', async () => {
    const r = await run('sort', IN);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/required option '--by <keys>' not specified/);
  });
});
