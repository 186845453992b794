/**
 * The h2o suite computes the right thing: on a small h2o data set, each question's joinlab join
 * (the spec the suite times, serial and on 2 worker threads) gives DuckDB's answer to the
 * benchmark's own SQL — row count and check sums.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { readTable } from '../../adapters/io/index.ts';
import { checkAnswer, checkSums, duckdbAnswer, h2oFiles, joinlabSpec } from './h2o.ts';
import { H2O_QUESTIONS } from './h2o-questions.ts';

let root: string;
let duck: DuckDBSession;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'joinlab-h2o-'));
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(async () => {
  duck.close();
  await rm(root, { recursive: true, force: true });
});

describe('the h2o questions', () => {
  it('joinlab answers each as DuckDB does, at threads 1 and 2', async () => {
    const files = await h2oFiles(duck, 50_000, root);
    for (const [t, path] of Object.entries(files)) await duck.loadParquet(t, path);
    const x = await readTable(files.x);
    const rhs = { small: await readTable(files.small), medium: await readTable(files.medium), big: await readTable(files.big) };
    for (const threads of [1, 2]) {
      const engine = await Engine.create({ threads, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 });
      for (const q of H2O_QUESTIONS) {
        const want = await duckdbAnswer(duck, q);
        expect(want.rows, q.name).toBeGreaterThan(0);
        const r = await engine.join(joinlabSpec(q), x, rhs[q.rhs]);
        expect(r.table.schema.fields.map((f) => f.name)).toEqual(q.select);
        expect(() => checkAnswer('joinlab', q, checkSums(r.table), want)).not.toThrow();
        if (threads === 2) expect(String(r.metrics.operators.join?.details.threads)).toBe('2');
      }
    }
  });
});
