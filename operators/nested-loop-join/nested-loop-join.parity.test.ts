/**
 * Differential test of the nested-loop oracle against DuckDB on random tables: every join type,
 * NULLs, duplicates, skew, widened and mixed key types, multi-column keys, strings, floats with
 * -0.0/NaN, range predicates, residual filters, NOT IN, input batch sizes 1..64 and output batch
 * sizes from 1 up. The cases come from adapters/datagen/random-cases.ts (the same generator
 * `joinlab parity` fuzzes with), seeded, so a failure reproduces; it is shrunk to the fewest rows
 * that still disagree and printed as data, spec and SQL.
 */
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { JOIN_TYPES } from '../../core/types.ts';
import { caseSpace, describeCase, randomCase, shrinkCase, type JoinCase } from '../../adapters/datagen/random-cases.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { joinToSql } from '../../adapters/duckdb/join-sql.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';

const SEED = 20261130;
const CASES = 400;

describe('nested-loop join vs DuckDB (random tables)', () => {
  let duck: DuckDBSession;
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
  });
  afterAll(async () => {
    await duck?.close();
  });

  const columns = (t: Table) => t.schema.fields.map((f) => f.name);
  const sqlOf = (c: JoinCase) => joinToSql(toJoinSpec(c.spec), { table: 'l', columns: columns(c.left) }, { table: 'r', columns: columns(c.right) });

  /** The disagreement of the oracle with DuckDB on `c`, or null. */
  async function mismatch(c: JoinCase): Promise<string | null> {
    const engine = await Engine.create(c.config);
    const { table } = await engine.join(toJoinSpec(c.spec), c.left, c.right);
    await duck.loadTable('l', c.left);
    await duck.loadTable('r', c.right);
    try {
      const cmp = compareResults(table, await duck.query(sqlOf(c)));
      return cmp.equal ? null : formatComparison(cmp);
    } finally {
      await duck.run('DROP TABLE l; DROP TABLE r;');
    }
  }

  it('matches DuckDB on every join type, key type, NULL rule and batch size', async () => {
    const space = caseSpace((await Engine.create()).registry, { algorithms: ['nested-loop'] });
    const seen = new Set<string>();
    for (let i = 0; i < CASES; i++) {
      const c = randomCase(space, SEED, i);
      expect(c.config.join).toBe('nested-loop');
      expect(c.unsupported).toBeNull();
      if (await mismatch(c)) {
        const small = await shrinkCase(c, async (x) => (await mismatch(x)) !== null);
        throw new Error(`oracle vs DuckDB\n${describeCase(small, { sql: sqlOf(small) })}\n${await mismatch(small)}`);
      }
      const s = c.spec;
      seen.add(s.type);
      if (s.range) seen.add(`range ${s.range.split(' ')[1]}`);
      if (s.nullAware) seen.add(s.filter ? 'NOT IN + filter' : 'NOT IN');
      if (s.nullEqualsNull) seen.add('NULL = NULL');
      if (s.filter) seen.add('filter');
      if ((s.on ?? '').includes(',')) seen.add('2 keys');
      if (c.left.numRows === 0 || c.right.numRows === 0) seen.add('empty side');
      if (c.config.batchSize === 1) seen.add('batchSize 1');
    }
    // the generator really covered what this test is about
    for (const x of [...JOIN_TYPES, 'range <', 'range <=', 'range >', 'range >=', 'NOT IN', 'NOT IN + filter', 'NULL = NULL', 'filter', '2 keys', 'empty side', 'batchSize 1']) {
      expect(seen, x).toContain(x);
    }
  });
});
