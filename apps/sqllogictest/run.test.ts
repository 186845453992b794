/**
 * The sqllogictest runner: joinlab's corpus (apps/sqllogictest/corpus, one file per topic)
 * passes with nothing failing and at least as many records passing per file as passed when the
 * file was written (queries outside joinlab's SQL subset are skips and turn into passes as the
 * planner grows: raise the floors then); every expected block there is DuckDB's own answer
 * (expected.ts); a wrong expected block, a wrong hash and a statement that should have failed are
 * failures.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { fillExpected } from './expected.ts';
import { runSltFiles, sltFiles } from './run.ts';

const CORPUS = join(import.meta.dirname, 'corpus');

/** Records (statements included) passing per corpus file when it was written: the floors. */
const PASSED_AT_LEAST: Record<string, number> = {
  'aggregates.test': 32,
  'expressions.test': 31,
  'join-types.test': 38,
  'joins.test': 18,
  'multi-join.test': 30,
  'nulls.test': 32,
  'order-limit.test': 27,
  'range-joins.test': 25,
  'subqueries.test': 32,
};

describe('sqllogictest runner', () => {
  it('runs the corpus: every query through joinlab, nothing failing, no fewer passing than before', async () => {
    const s = await runSltFiles([CORPUS], await Engine.create({ batchSize: 2 }));
    const failures = s.outcomes.filter((o) => o.status === 'failed');
    expect(failures, JSON.stringify(failures, null, 2)).toEqual([]);
    const passed: Record<string, number> = {};
    for (const o of s.outcomes) {
      const name = basename(o.file);
      passed[name] ??= 0;
      if (o.status === 'passed') passed[name]++;
    }
    expect(Object.keys(passed).sort()).toEqual(Object.keys(PASSED_AT_LEAST).sort());
    for (const [name, floor] of Object.entries(PASSED_AT_LEAST)) expect(passed[name], name).toBeGreaterThanOrEqual(floor);
    expect(s.passed).toBeGreaterThanOrEqual(265);
    // a skip is SQL outside the subset, or a known joinlab bug parked under `mode skip`
    const odd = s.outcomes.filter((o) => o.status === 'skipped' && !/^unsupported SQL: |^mode skip$/.test(o.reason ?? ''));
    expect(odd).toEqual([]);
  });

  it("every expected block of the corpus is DuckDB's answer", async () => {
    for (const f of await sltFiles([CORPUS])) {
      const text = await readFile(f, 'utf8');
      expect(await fillExpected(text, f), `${f}: run node bin/run-ts.mjs apps/sqllogictest/expected.ts ${f}`).toBe(text);
    }
  });

  it("a labelled query with an empty block is compared with the label's first result (or DuckDB's), not with no rows", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'joinlab-slt-'));
    try {
      const f = join(dir, 'labels.test');
      const q = (sort: string, sql: string, rows: string[]) => [`query I ${sort}`, sql, '----', ...rows, ''];
      await writeFile(
        f,
        [
          'statement ok',
          'CREATE TABLE t AS SELECT range AS k FROM range(3)',
          '',
          ...q('rowsort same', 'SELECT t.k FROM t JOIN t AS u ON t.k = u.k', ['0', '1', '2']),
          ...q('rowsort same', 'SELECT u.k FROM t JOIN t AS u ON t.k = u.k', []), // the same rows: passes
          ...q('rowsort same', 'SELECT t.k + 1 FROM t JOIN t AS u ON t.k = u.k', []), // other rows: fails
          // a label no earlier query set: DuckDB's answer is the reference
          ...q('nosort fresh', 'SELECT count(*) FROM t JOIN t AS u ON t.k <= u.k', []),
        ].join('\n'),
      );
      const s = await runSltFiles([f], await Engine.create());
      expect(s.outcomes.map((o) => o.status)).toEqual(['passed', 'passed', 'passed', 'failed', 'passed']);
      expect(s.outcomes[3]!.reason).toMatch(/got '1', expected '0' \(the result of label same\)/);
      expect(s.outcomes[3]).toMatchObject({ expected: ['0', '1', '2'], actual: ['1', '2', '3'] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reports wrong answers, wrong hashes and unexpected successes as failures; a right hash passes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'joinlab-slt-'));
    try {
      const f = join(dir, 'bad.test');
      await writeFile(
        f,
        [
          'statement ok',
          'CREATE TABLE t AS SELECT range AS k FROM range(3)',
          '',
          'statement error',
          'SELECT 1',
          '',
          'query I rowsort',
          'SELECT t.k FROM t JOIN t AS u ON t.k = u.k',
          '----',
          '0',
          '1',
          '5',
          '',
          'query I valuesort',
          'SELECT t.k FROM t JOIN t AS u ON t.k = u.k',
          '----',
          '3 values hashing to 00000000000000000000000000000000',
          '',
          'query I valuesort',
          'SELECT t.k FROM t JOIN t AS u ON t.k = u.k',
          '----',
          '3 values hashing to 996dc30fa92a088d53929ed16588ec72',
          '',
        ].join('\n'),
      );
      const s = await runSltFiles([f], await Engine.create());
      expect(s.outcomes.map((o) => o.status)).toEqual(['passed', 'failed', 'failed', 'failed', 'passed']);
      expect(s.outcomes[2]!.reason).toMatch(/row 3: got '2', expected '5'/);
      expect(s.outcomes[3]!.reason).toMatch(/values hash to [0-9a-f]{32}/);
      // a failure carries the text that ran and both answers, in the expected block's form
      expect(s.outcomes[1]).toMatchObject({ sql: 'SELECT 1', reason: 'statement succeeded, an error was expected' });
      expect(s.outcomes[1]!.expected).toBeUndefined();
      expect(s.outcomes[2]).toMatchObject({ sql: 'SELECT t.k FROM t JOIN t AS u ON t.k = u.k', expected: ['0', '1', '5'], actual: ['0', '1', '2'] });
      expect(s.outcomes[3]).toMatchObject({ expected: ['3 values hashing to 00000000000000000000000000000000'], actual: ['3 values hashing to 996dc30fa92a088d53929ed16588ec72'] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
