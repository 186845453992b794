/** sql-text.ts: conditions printed back as SQL for --explain (operators, folded dates, nesting). */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DuckDBSession } from '../duckdb/session.ts';
import { parseSql } from './parse.ts';
import { sqlText } from './sql-text.ts';

let duck: DuckDBSession;
beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(async () => {
  await duck.close();
});

it('prints WHERE conditions as SQL: LIKE, folded date arithmetic, IN, nested AND / OR', async () => {
  const where = async (w: string) => sqlText((await parseSql(duck, `SELECT 1 FROM t WHERE ${w}`)).where!);
  expect(await where("p_name LIKE 'forest%'")).toBe("p_name LIKE 'forest%'");
  expect(await where("s NOT ILIKE '%a#_%' ESCAPE '#'")).toBe("s NOT ILIKE '%a#_%' ESCAPE '#'");
  expect(await where("d < date '1994-01-01' + interval '1' year")).toBe("d < CAST('1995-01-01 00:00:00.000000' AS TIMESTAMP)");
  expect(await where('a IN (1, 2) AND (b = 1 OR c IS NULL)')).toBe('a IN (1, 2) AND (b = 1 OR c IS NULL)');
  expect(await where("t.x || 'y' = 'zy'")).toBe("t.x || 'y' = 'zy'");
});

it("names a planner's own columns (a NUL-prefixed name) by what they stand for", () => {
  const col = (name: string) => ({ kind: 'column', names: [name] }) as const;
  const cmp = (r: string) => sqlText({ kind: 'compare', op: '>', left: { kind: 'column', names: ['o', 'amount'] }, right: col(r) } as unknown as Parameters<typeof sqlText>[0]);
  expect(cmp('\u0000s0a0')).toBe('o.amount > (subquery)');
  expect(cmp('\u0000s3k1')).toBe('o.amount > (subquery key)');
  expect(cmp('\u0000a2')).toBe('o.amount > (aggregate)');
  expect(cmp('\u0000mark')).toBe('o.amount > (mark)');
});
