/**
 * `joinlab parity`: a clean run ends with `N passed, 0 failed`; a join algorithm that drops a row
 * is caught, shrunk and reported with a reproduction, and the run counts it as failed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { isShared } from '../../core/parallel/wire.ts';
import { caseSpace, randomCase } from '../../adapters/datagen/random-cases.ts';
import { Int32, Int64, Table, vectorFromArray } from 'apache-arrow';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { checkSqlCase, isSqlCase, runParity } from './parity-command.ts';

/** A table shaped like random-sql.ts's `t<n>` (k INTEGER, j BIGINT, v<n> INTEGER) from rows [k, j, v]. */
function randomSqlTableFrom(n: string, rows: (number | null)[][]): Table {
  return new Table({
    k: vectorFromArray(rows.map((r) => r[0]!), new Int32()),
    j: vectorFromArray(rows.map((r) => (r[1] === null ? null : BigInt(r[1]!))), new Int64()),
    [`v${n}`]: vectorFromArray(rows.map((r) => r[2]!), new Int32()),
  });
}

const dir = mkdtempSync(join(tmpdir(), 'joinlab-parity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const lines: string[] = [];
  return { lines, write: (s: string) => void lines.push(s) };
}

describe('joinlab parity', () => {
  it('passes on the registered algorithms and ends with the summary line', async () => {
    const out = capture();
    const r = await runParity({ cases: 40, seed: 5, stdout: out.write, stderr: () => {} });
    expect(r.failed).toBe(0);
    expect(r.passed).toBe(40 - r.skipped);
    const last = out.lines.join('').trimEnd().split('\n').at(-1)!;
    expect(last).toMatch(/^\d+ passed, 0 failed(, \d+ skipped)?$/);
  });

  it('draws ASOF cases (inner / left, right rows distinct on keys and t) and checks them against DuckDB\'s ASOF JOIN', async () => {
    const space = caseSpace((await Engine.create()).registry);
    expect(space.asof).toBe(true);
    expect(space.joins).not.toContain('asof');
    const cases = Array.from({ length: 300 }, (_, i) => randomCase(space, 17, i)).filter((c) => c.config.join === 'asof');
    expect(cases.length).toBeGreaterThan(10); // ASOF_SHARE of 300
    for (const c of cases) {
      expect(['inner', 'left']).toContain(c.spec.type);
      expect(c.spec.filter).toBeUndefined();
      expect(c.unsupported).toBeNull();
    }
    expect(caseSpace((await Engine.create()).registry, { algorithms: ['hash'] }).asof).toBe(false);
    const out = capture();
    const r = await runParity({ cases: 40, seed: 9, algorithms: ['asof'], sqlShare: 0, threads: [1], stdout: out.write, stderr: () => {} });
    expect(r).toEqual({ passed: 40, failed: 0, skipped: 0 });
  });

  it('draws shared-memory inputs for about half the cases on worker threads, and only there', async () => {
    const space = caseSpace((await Engine.create()).registry, { threads: [1, 2, 4] });
    let parallel = 0;
    let shared = 0;
    for (let i = 0; i < 120; i++) {
      const c = randomCase(space, 31, i);
      if (c.config.threads > 1) parallel++;
      if (c.sharedInputs !== true) continue;
      shared++;
      expect(c.config.threads).toBeGreaterThan(1);
      for (const t of [c.left, c.right]) for (const b of t.batches) for (const d of b.data.children) if (d.values !== undefined && d.values.byteLength > 0) expect(isShared(d.values)).toBe(true);
    }
    expect(shared).toBeGreaterThan(parallel / 4);
    expect(shared).toBeLessThan((parallel * 3) / 4);
  });

  it('draws a share of SQL cases, which pass with the features the planner claims', async () => {
    expect(Array.from({ length: 1000 }, (_, i) => isSqlCase(5, i, 0.1)).filter(Boolean).length).toBeGreaterThan(60);
    expect(Array.from({ length: 100 }, (_, i) => isSqlCase(5, i, 0)).some(Boolean)).toBe(false);
    const out = capture();
    const err = capture();
    const r = await runParity({ cases: 30, seed: 8, sqlShare: 1, verbose: true, stdout: out.write, stderr: err.write });
    expect(r.failed).toBe(0);
    expect(r.passed).toBeGreaterThan(15);
    expect(out.lines[0]).toMatch(/SQL 100% of cases \(features: [a-zA-Z, ]*subqueries[a-zA-Z, ]*\)/);
    expect(err.lines.join('')).toMatch(/case 0: (pass|skip .*) — SQL join=\S+ sip=\S+ order=\S+ batch=\d+ \| [\dx]+ rows \| (SELECT|WITH) /);
  });

  it("skips a query DuckDB itself fails on internally (its bug), and only that", async () => {
    // DuckDB 1.5.6: 'INTERNAL Error: Failed to bind column reference' on this valid ANTI JOIN tree
    const t = (name: string, rows: (number | null)[][]) => randomSqlTableFrom(name, rows);
    const tables = {
      t0: t('0', [[2, 3, 11]]),
      t1: t('1', [[2, 1, 1], [0, 1, null], [2, 3, 7], [1, 4, 17], [1, 0, 16], [3, 0, 14], [0, 2, 11]]),
      t2: t('2', [[3, 0, 13], [3, 1, 10], [3, 0, null], [2, 1, 15], [3, 1, 19], [0, 2, 4]]),
      t3: t('3', [[4, 4, 8], [3, 4, 16], [0, 0, 14]]),
    };
    const base = { seed: 0, index: 0, tables, totalOrder: false, orderColumns: [], uses: [] };
    const duck = await DuckDBSession.open({ threads: 1 });
    try {
      const crash = await checkSqlCase({ ...base, sql: 'SELECT t0.j, count(*) AS n FROM t0 LEFT JOIN t1 ON t0.k = t1.j ANTI JOIN t2 ON t0.k = t2.j AND t0.j = t2.j FULL JOIN t3 ON t1.k = t3.k GROUP BY t0.j' }, {}, duck);
      if (crash.status !== 'pass') expect(crash).toMatchObject({ status: 'skip', reason: expect.stringMatching(/^DuckDB internal error: INTERNAL Error/) });
      const invalid = await checkSqlCase({ ...base, sql: 'SELECT t9.k FROM t0' }, {}, duck);
      expect(invalid).toMatchObject({ status: 'fail', kind: 'duckdb-error' });
    } finally {
      await duck.close();
    }
  });

  it('catches an algorithm that drops a row, with a shrunk reproduction', async () => {
    const ext = join(dir, 'broken.mjs');
    const nl = new URL('../../operators/nested-loop-join/nested-loop-join.ts', import.meta.url).href;
    writeFileSync(
      ext,
      `import { NestedLoopJoin } from '${nl}';
       const inner = new NestedLoopJoin();
       export default { name: 'broken', load(registry) {
         registry.register({ id: Symbol.for('joinlab.slot.join'), name: 'join', description: '' }, {
           name: 'drops-one', description: 'nested loop minus its first output row',
           unsupportedReason: (j) => inner.unsupportedReason(j),
           async *execute(j, inputs, ctx) {
             let first = true;
             for await (const b of inner.execute(j, inputs, ctx)) {
               if (first && b.numRows > 0) { first = false; if (b.numRows > 1) yield b.slice(1); continue; }
               yield b;
             }
           },
         });
       } };`,
    );
    const out = capture();
    const r = await runParity({ cases: 30, seed: 3, algorithms: ['drops-one'], extensions: [ext], sqlShare: 0, stdout: out.write, stderr: () => {} });
    expect(r.failed).toBeGreaterThan(0);
    const text = out.lines.join('');
    expect(text).toMatch(/SELECT/); // the DuckDB SQL of the reproduction
    expect(text.trimEnd().split('\n').at(-1)).toBe(`${r.passed} passed, ${r.failed} failed${r.skipped ? `, ${r.skipped} skipped` : ''}`);

    // the same algorithm under SQL: the query, its seed and index, and the shrunk tables
    const sql = capture();
    const s = await runParity({ cases: 12, seed: 3, algorithms: ['drops-one'], extensions: [ext], sqlShare: 1, maxReports: 1, stdout: sql.write, stderr: () => {} });
    expect(s.failed).toBeGreaterThan(0);
    const report = sql.lines.join('');
    expect(report).toMatch(/MISMATCH \((mismatch|order)\) in SQL case \d+ of seed 3: SQL join=drops-one/);
    expect(report).toMatch(/^CREATE TABLE t0 \(k INTEGER, j BIGINT, v0 INTEGER, s0 VARCHAR, d0 DATE\);$/m);
    expect(report).toMatch(/^query: {2}(SELECT|WITH) .* FROM t0\b.*;$/m);
    expect(report).toMatch(/missing \(in expected, not in actual\)/);
  });
});
