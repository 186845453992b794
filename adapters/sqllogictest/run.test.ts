/**
 * The sqllogictest runner: joinlab's corpus (adapters/sqllogictest/corpus) passes with nothing
 * failing, a query outside the subset is a skip, and a wrong expected block, a wrong hash and a
 * statement that should have failed are failures.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { runSltFiles } from './run.ts';

const CORPUS = join(import.meta.dirname, 'corpus');

describe('sqllogictest runner', () => {
  it('runs the corpus: every query through joinlab, nothing failing', async () => {
    const s = await runSltFiles([CORPUS], await Engine.create({ batchSize: 2 }));
    const failures = s.outcomes.filter((o) => o.status === 'failed');
    expect(failures, JSON.stringify(failures, null, 2)).toEqual([]);
    expect(s.passed).toBeGreaterThan(15);
    expect(s.outcomes.filter((o) => o.status === 'skipped').map((o) => o.reason)).toEqual([expect.stringMatching(/unsupported SQL: GROUP BY \/ HAVING \/ aggregates/)]);
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
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
