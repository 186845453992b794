/**
 * argsortKeys vs DuckDB: random tables of every logical key type (adapters/datagen, with NULLs,
 * duplicates, skew, -0.0/NaN, large UBIGINTs, record batches of random size), loaded into DuckDB and
 * sorted there by `ORDER BY k0 ASC|DESC NULLS FIRST|LAST, …, rid` — the row id makes DuckDB's order
 * total, so equal keys must come out in input order, which is argsort's stability. Both the
 * automatic choice (mostly the radix sort here) and the forced merge sort are checked. Keys are
 * normalised the way the joins normalise them (normalizeKeys on a batch, or normalizeKeyColumn
 * over every chunk of a column, with the kind keyKindOf chose).
 */
import { Table, makeVector } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGICAL_TYPES, arrowType, randomColumn, rebatch } from '../../adapters/datagen/random-tables.ts';
import type { ColumnGen } from '../../adapters/datagen/random-tables.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { Rng } from '../random.ts';
import { argsortKeys } from './argsort.ts';
import { normalizeKeyColumn, normalizeKeys } from './normalize.ts';
import type { KeySortOrder } from './order.ts';
import { keyKindOf } from './resolve.ts';
import type { KeyColumn } from './types.ts';

const SEED = 2718;
const CASES = 300;

describe('argsortKeys vs DuckDB ORDER BY (random tables)', () => {
  let duck: DuckDBSession;
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
  });
  afterAll(() => {
    duck?.close();
  });

  it('orders rows like ORDER BY k… [ASC|DESC] NULLS [FIRST|LAST], rid', async () => {
    const rng = new Rng(SEED);
    const seenTypes = new Set<string>();
    for (let c = 0; c < CASES; c++) {
      const n = rng.chance(0.1) ? rng.int(0, 3) : rng.int(4, 250);
      const gens: ColumnGen[] = Array.from({ length: rng.int(1, 3) }, (_, k) => ({
        name: `k${k}`,
        type: rng.pick(LOGICAL_TYPES),
        domain: rng.int(1, 40),
        nullRate: rng.pick([0, 0.05, 0.3]),
        skew: rng.pick([0, 0.5]),
      }));
      const orders: KeySortOrder[] = gens.map(() => ({ descending: rng.chance(0.5), nullsFirst: rng.chance(0.5) }));
      const columns = Object.fromEntries(gens.map((g) => [g.name, randomColumn(rng, g, n)]));
      const rid = makeVector(Int32Array.from({ length: n }, (_, i) => i));
      const table = rebatch(new Table({ ...columns, rid }), rng.pick([1, 7, 64, 1000]));

      const kinds = gens.map((g) => keyKindOf(arrowType(g.type), g.name));
      const names = gens.map((g) => g.name);
      // (an empty table has no batch; normalising its empty LargeUtf8 chunk, whose offsets buffer is
      // empty, trips normalize.ts's valueOffset — reported, not this module's: zero rows sort trivially)
      const keys: KeyColumn[] =
        n === 0
          ? []
          : table.batches.length === 1
            ? normalizeKeys(table.batches[0]!, names, kinds)
            : gens.map((g, k) => normalizeKeyColumn(table.getChild(g.name)!, kinds[k]!, g.name));
      const got = Array.from(n === 0 ? [] : argsortKeys(keys, orders));
      const merged = Array.from(n === 0 ? [] : argsortKeys(keys, orders, undefined, 'merge'));

      const orderBy = gens.map((g, k) => `"${g.name}" ${orders[k]!.descending ? 'DESC' : 'ASC'} NULLS ${orders[k]!.nullsFirst ? 'FIRST' : 'LAST'}`);
      const sql = `SELECT rid FROM t ORDER BY ${[...orderBy, 'rid'].join(', ')}`;
      await duck.loadTable('t', table);
      const want = Array.from(n === 0 ? [] : ((await duck.query(sql)).getChild('rid')!.toArray() as Int32Array));
      for (const [method, rows] of [['auto', got], ['merge', merged]] as const) {
        if (rows.join() === want.join()) continue;
        expect.fail(`case ${c} ${method} (${gens.map((g) => `${g.name} ${g.type} domain ${g.domain} nulls ${g.nullRate}`).join('; ')}, ${n} rows, ${table.batches.length} batches)\n${sql}\nargsort: ${rows.join()}\nduckdb:  ${want.join()}`);
      }
      for (const g of gens) seenTypes.add(g.type);
    }
    await duck.run('DROP TABLE t');
    for (const t of LOGICAL_TYPES) expect(seenTypes, t).toContain(t);
  });
});
