/**
 * The command line end to end, in-process: every join type over Parquet files for every key type
 * matches DuckDB, `strategies --json` lists the slots, and each kind of bad input exits 2 with
 * one clear stderr line and leaves no output file.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../core/random.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { JOIN_TYPES } from '../../core/types.ts';
import { LOGICAL_TYPES, randomTable, type ColumnGen } from '../../adapters/datagen/random-tables.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { joinToSql } from '../../adapters/duckdb/join-sql.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { readParquetFile, writeParquetFile } from '../../adapters/io/parquet.ts';
import { runCli } from './test-helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'joinlab-cli-'));
const L = join(dir, 'left.parquet');
const R = join(dir, 'right.parquet');

const run = (...argv: string[]) => runCli(argv);

const columns = (seedSide: number): ColumnGen[] =>
  LOGICAL_TYPES.map((t) => ({ name: `k_${t.replace('-', '_')}`, type: t, domain: 6, nullRate: 0.15, skew: seedSide ? 0.3 : 0 }));

let duck: DuckDBSession;
const rng = new Rng(99);
const left = randomTable(rng, columns(0), 60, 17);
const right = randomTable(rng, columns(1), 45, 8);

beforeAll(async () => {
  await writeParquetFile(L, left, { rowGroupSize: 16 });
  await writeParquetFile(R, right, { rowGroupSize: 10 });
  duck = await DuckDBSession.open({ threads: 1 });
  await duck.loadTable('lt', left);
  await duck.loadTable('rt', right);
});
afterAll(async () => {
  await duck?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('joinlab join --algorithm A --out x.parquet', () => {
  const names = columns(0).map((c) => c.name);
  const matrix = ['nested-loop', 'hash'].flatMap((a) => JOIN_TYPES.map((t) => [a, t] as const));
  it.each(matrix)('%s %s matches DuckDB for every key type', async (algorithm, type) => {
    for (const key of names) {
      const out = join(dir, `out-${type}-${key}.parquet`);
      const r = await run('join', '--left', L, '--right', R, '--on', `${key}=${key}`, '--type', type, '--algorithm', algorithm, '--out', out);
      expect(r.stderr, `${type} on ${key}`).toBe('');
      expect(r.code).toBe(0);
      const actual = await readParquetFile(out);
      const sql = joinToSql(toJoinSpec({ type, on: `${key}=${key}` }), { table: 'lt', columns: names }, { table: 'rt', columns: names });
      const cmp = compareResults(actual, await duck.query(sql));
      expect(cmp.equal, `${type} on ${key}\n${formatComparison(cmp)}`).toBe(true);
      rmSync(out);
    }
  });

  it('a range join runs on piecewise under the default and matches DuckDB, over every key type (Parquet row groups)', async () => {
    const ops = ['<', '<=', '>', '>='] as const;
    for (let i = 0; i < names.length * 2; i++) {
      const key = names[i % names.length]!;
      const type = JOIN_TYPES[i % JOIN_TYPES.length]!;
      const range = `${key} ${ops[i % ops.length]} ${key}`;
      const out = join(dir, `range-${i}.parquet`);
      const r = await run('join', '--left', L, '--right', R, '--range', range, '--type', type, '--out', out, '--json');
      expect(r.stderr, `${type} ${range}`).toBe('');
      expect(JSON.parse(r.stdout), `${type} ${range}`).toMatchObject({ algorithm: 'piecewise', chosenBy: 'auto' });
      const sql = joinToSql(toJoinSpec({ type, range }), { table: 'lt', columns: names }, { table: 'rt', columns: names });
      const cmp = compareResults(await readParquetFile(out), await duck.query(sql));
      expect(cmp.equal, `${type} ${range}\n${formatComparison(cmp)}`).toBe(true);
      rmSync(out);
    }
  });

  it('--json reports rows, timing, config and per-scan metrics', async () => {
    const r = await run('join', '--left', L, '--right', R, '--on', 'k_int64=k_int64', '--type', 'inner', '--json', '--set', 'batchSize=7', '--set', 'pushdown=none');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.config.batchSize).toBe(7);
    // the default `join` is the planner auto; an equi-join runs on hash
    expect(report.config.join).toBe('auto');
    expect(report.algorithm).toBe('hash');
    expect(report.chosenBy).toBe('auto');
    expect(typeof report.elapsedMs).toBe('number');
    expect(report.scans.left).toEqual({ containersTotal: 4, containersPruned: 0, containersPrunedByBloom: 0, pagesTotal: 0, pagesPruned: 0, rowsDecoded: 60, rowsAfterFilter: 60, bytesDecoded: expect.any(Number), bytesRead: expect.any(Number), bloomBytesRead: 0, rowsNotDecoded: 0, bytesNotDecoded: 0, elapsedMs: expect.any(Number) });
    expect(report.scans.right.containersTotal).toBe(5);
    expect(report.operators.join.outputRows).toBe(report.rows);
    // With a pushdown policy the probe scan (left: more rows) drops rows that cannot match.
    const auto = JSON.parse((await run('join', '--left', L, '--right', R, '--on', 'k_int64=k_int64', '--json', '--set', 'pushdown=auto')).stdout);
    expect(auto.rows, JSON.stringify(auto)).toBe(report.rows);
    expect(auto.scans.left.rowsAfterFilter).toBeLessThan(auto.scans.left.rowsDecoded);
    expect(auto.operators.join.details.dynamicFilter).not.toBe('none');
  });

  it('--select keeps the named output columns in that order, and reads only what the join needs', async () => {
    for (const [algorithm, type, select] of [
      ['hash', 'left', 'k_utf8_right,k_int64,k_float64'],
      ['hash', 'full', 'k_int32_right'],
      ['nested-loop', 'right', 'k_date32,k_int32'],
      ['hash', 'left-mark', 'mark,k_utf8'],
      ['hash', 'right-anti', 'k_float64'],
    ] as const) {
      const out = join(dir, `select-${type}.parquet`);
      const r = await run('join', '--left', L, '--right', R, '--on', 'k_int32=k_int32', '--type', type, '--algorithm', algorithm, '--select', select, '--json', '--out', out);
      expect(r.stderr).toBe('');
      const actual = await readParquetFile(out);
      expect(actual.schema.fields.map((f) => f.name)).toEqual(select.split(','));
      const sql = joinToSql(toJoinSpec({ type, on: 'k_int32=k_int32', select }), { table: 'lt', columns: names }, { table: 'rt', columns: names });
      const cmp = compareResults(actual, await duck.query(sql));
      expect(cmp.equal, `${type} --select ${select}\n${formatComparison(cmp)}`).toBe(true);
      // the Parquet scans decode only the key and the selected columns
      const full = JSON.parse((await run('join', '--left', L, '--right', R, '--on', 'k_int32=k_int32', '--type', type, '--algorithm', algorithm, '--json')).stdout);
      const report = JSON.parse(r.stdout);
      expect(report.scans.left.bytesDecoded + report.scans.right.bytesDecoded).toBeLessThan(full.scans.left.bytesDecoded + full.scans.right.bytesDecoded);
      rmSync(out);
    }
  });

  it('--json names the algorithm auto chose (and chosenBy null for one named by --algorithm)', async () => {
    const json = async (...args: string[]) => {
      const r = await run('join', '--left', L, '--right', R, '--json', ...args);
      expect(r.stderr).toBe('');
      return JSON.parse(r.stdout) as { algorithm: string; chosenBy: string | null; config: { join: string }; operators: { join: { name: string } } };
    };
    // a range with a filter: nested-loop (the CLI needs --on or --range, so no cross product here)
    const ranged = await json('--range', 'k_int32 < k_int32', '--filter', 'l.k_int64 <> r.k_int64', '--type', 'left');
    expect(ranged).toMatchObject({ algorithm: 'nested-loop', chosenBy: 'auto', config: { join: 'auto' }, operators: { join: { name: 'nested-loop' } } });
    expect(await json('--range', 'k_int32 < k_int32', '--filter', 'l.k_int64 <> r.k_int64', '--set', 'join=auto')).toMatchObject({ algorithm: 'nested-loop', chosenBy: 'auto' });
    const named = await json('--on', 'k_int32=k_int32', '--algorithm', 'sort-merge');
    expect(named).toMatchObject({ algorithm: 'sort-merge', chosenBy: null, config: { join: 'sort-merge' } });
    // without --json the summary line says it too
    const text = await run('join', '--left', L, '--right', R, '--on', 'k_int32=k_int32');
    expect(text.stdout).toMatch(/^\d+ rows in [\d.]+ ms \(hash, chosen by auto\)/);
  });

  it('an unsupported join names the algorithm auto chose', async () => {
    // a range the residual filter cannot compare (VARCHAR with BLOB)
    const r = await run('join', '--left', L, '--right', R, '--on', 'k_int32=k_int32', '--range', 'k_utf8 < k_binary');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/join algorithm 'hash' \(chosen by 'auto'\) cannot run this join: its range predicate cannot be evaluated as a residual filter/);
  });

  it('writes .arrow and .csv too', async () => {
    for (const ext of ['arrow', 'csv']) {
      const out = join(dir, `x.${ext}`);
      const r = await run('join', '--left', L, '--right', R, '--range', 'k_int32 < k_int32', '--type', 'left-semi', '--algorithm', 'nested-loop', '--out', out);
      expect(r.code).toBe(0);
      expect(existsSync(out)).toBe(true);
    }
    expect(readFileSync(join(dir, 'x.csv'), 'utf8').split('\n')[0]).toContain('k_int8');
  });
});

describe('joinlab strategies', () => {
  it('--json lists every slot with its strategies', async () => {
    const r = await run('strategies', '--json');
    expect(r.code).toBe(0);
    const { slots } = JSON.parse(r.stdout);
    expect(slots.map((s: { name: string }) => s.name)).toEqual(['join', 'pushdown', 'hashmap', 'smj.existence', 'pwmj.search', 'sip']);
    expect(slots[0].strategies[0]).toMatchObject({ name: 'hash', extension: 'joinlab.joins', default: false });
    // auto is the default of `join`, and its description is the rule
    const auto = slots[0].strategies.find((t: { name: string }) => t.name === 'auto');
    expect(auto).toMatchObject({ extension: 'joinlab.joins', default: true });
    expect(auto.description).toMatch(/hash when the join has an equi-key; iejoin for two or more inequality conditions \(inner\/left\/right\/full\); piecewise for one range predicate without equi-key or filter; nested-loop otherwise/);
    // one default per slot that has strategies
    for (const s of slots) if (s.strategies.length > 0) expect(s.strategies.filter((t: { default: boolean }) => t.default), s.name).toHaveLength(1);
  });

  it('the table marks the defaults and prints the rule', async () => {
    const r = await run('strategies');
    expect(r.code).toBe(0);
    const line = r.stdout.split('\n').find((l) => /^\s*join\s+auto\b/.test(l));
    expect(line).toMatch(/^\s*join\s+auto\s+yes\s+joinlab\.joins\s+planner, the default:/);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('planner, the default: hash when the join has an equi-key'); // wrapped to the width
    expect(r.stdout.split('\n').find((l) => /^\s*join\s+hash\b/.test(l))).not.toMatch(/\byes\b/);
  });
});

describe('bad input: exit 2, one line on stderr, no output file', () => {
  const truncated = join(dir, 'truncated.parquet');
  const garbage = join(dir, 'garbage.parquet');
  beforeAll(() => {
    const bytes = readFileSync(L);
    writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    writeFileSync(garbage, Buffer.from('PAR1 this is not a parquet file PAR1'));
  });

  const cases: [string, string[], RegExp][] = [
    ['missing file', ['--left', join(dir, 'nope.parquet'), '--right', R, '--on', 'k_int32=k_int32'], /file not found: .*nope\.parquet/],
    ['truncated parquet', ['--left', truncated, '--right', R, '--on', 'k_int32=k_int32'], /cannot read .*truncated\.parquet/],
    ['corrupt parquet', ['--left', L, '--right', garbage, '--on', 'k_int32=k_int32'], /cannot read .*garbage\.parquet/],
    ['missing column', ['--left', L, '--right', R, '--on', 'nope=k_int32'], /column 'nope' not found in the left input/],
    ['string vs int keys', ['--left', L, '--right', R, '--on', 'k_utf8=k_int32'], /key types do not match: left\.k_utf8 \(Utf8\) and right\.k_int32 \(Int32\)/],
    ['unknown strategy', ['--left', L, '--right', R, '--on', 'k_int32=k_int32', '--algorithm', 'quantum'], /unknown join strategy 'quantum'; registered: hash, nested-loop/],
    ['malformed --on', ['--left', L, '--right', R, '--on', 'k_int32'], /--on expects LEFT=RIGHT/],
    ['neither --on nor --range', ['--left', L, '--right', R], /needs --on/],
    ['bad join type', ['--left', L, '--right', R, '--on', 'k_int32=k_int32', '--type', 'outer'], /outer/],
    ['unknown config key', ['--left', L, '--right', R, '--on', 'k_int32=k_int32', '--set', 'batchsize=3'], /unknown config key 'batchsize'/],
    ['bad filter', ['--left', L, '--right', R, '--on', 'k_int32=k_int32', '--filter', 'l.k_int32 >'], /expected/],
    ['filter column missing', ['--left', L, '--right', R, '--on', 'k_int32=k_int32', '--filter', 'r.zzz > 1'], /column 'zzz' not found/],
    ['memory limit', ['--left', L, '--right', R, '--on', 'k_int32=k_int32', '--set', 'memoryLimit=1KB', '--set', 'hash.spill=off'], /memory limit exceeded: hash-join build/],
    // spilling (the grace hash join) does not make 1 KB enough: its probe's scratch alone is more
    ['memory limit, spilling', ['--left', L, '--right', R, '--on', 'k_int32=k_int32', '--set', 'memoryLimit=1KB'], /memory limit exceeded: hash-join (probe scratch|build)/],
    ['unsupported output format', ['--left', L, '--right', R, '--on', 'k_int32=k_int32'], /\.txt/],
    ['unknown --select column', ['--left', L, '--right', R, '--on', 'k_int32=k_int32', '--select', 'k_int32,nope'], /column 'nope' not found in the inner join's output \(--select\); columns: k_int8, k_int16, /],
    ['duplicate --select column', ['--left', L, '--right', R, '--on', 'k_int32=k_int32', '--select', 'k_int32,k_int32'], /--select names column 'k_int32' twice/],
  ];

  it.each(cases)('%s', async (_name, args, message) => {
    const out = join(dir, _name === 'unsupported output format' ? 'bad-out.txt' : 'bad-out.parquet');
    const r = await run('join', ...args, '--out', out);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('an unknown option is a usage error', async () => {
    const r = await run('join', '--left', L, '--right', R, '--on', 'a=b', '--frobnicate');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--frobnicate'/);
  });
});
