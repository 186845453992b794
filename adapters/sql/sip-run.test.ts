/**
 * Information passing (sip-run.ts, strategies/sip/) against DuckDB and against `sip = none`:
 *  - property: random join graphs of 3–6 tables — chains, stars and cycles (extra WHERE
 *    equalities), single-table filters, every join type (inner, LEFT, RIGHT, FULL, SEMI, ANTI), keys with NULLs and
 *    duplicates, tiny batches — give DuckDB's answer under every strategy, every transfer filter
 *    kind and random join orders: a transferred filter never drops a row of the result;
 *  - the safety rules, one join type at a time: which tables a transfer may filter;
 *  - yannakakis on a cyclic query falls back to `dynamic` and says so; `none` publishes nothing.
 */
import { Int32, Table, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { Rng } from '../../core/random.ts';
import { compareResults, formatComparison } from '../duckdb/compare.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { runSql } from './run.ts';

let duck: DuckDBSession;
beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(async () => {
  await duck.close();
});

/** A table of `n` rows: keys k0, k1 over 0..domain with ~15% NULL, and v = the row number. */
function randomTable(rng: Rng, n: number, domain: number): Table {
  const key = () => Array.from({ length: n }, () => (rng.chance(0.15) ? null : rng.int(0, domain)));
  return new Table({
    k0: vectorFromArray(key(), new Int32()),
    k1: vectorFromArray(key(), new Int32()),
    v: vectorFromArray(Array.from({ length: n }, (_, i) => i), new Int32()),
  });
}

const JOINS = ['JOIN', 'JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN', 'SEMI JOIN', 'ANTI JOIN'] as const;

/** A random query over t0..t(n-1): a written chain of joins, each ON a visible table, plus WHERE equalities that close cycles. */
function randomQuery(rng: Rng, n: number): string {
  const visible = ['t0'];
  let from = 't0';
  for (let i = 1; i < n; i++) {
    const kind = rng.pick(JOINS);
    const other = rng.pick(visible);
    const on = `${other}.k${rng.int(0, 1)} = t${i}.k${rng.int(0, 1)}`;
    const extra = rng.chance(0.2) ? ` AND ${rng.pick(visible)}.k${rng.int(0, 1)} = t${i}.k${rng.int(0, 1)}` : '';
    from = `${from} ${kind} t${i} ON ${on}${extra}`;
    if (kind !== 'SEMI JOIN' && kind !== 'ANTI JOIN') visible.push(`t${i}`);
  }
  const where: string[] = [];
  // single-table filters, so that tables are reduced and transfers from them run
  for (const t of visible) if (rng.chance(0.4)) where.push(`${t}.v < ${rng.int(1, 12)}`);
  for (let c = rng.int(0, 2); c > 0 && visible.length >= 2; c--) {
    const a = rng.pick(visible);
    const b = rng.pick(visible.filter((x) => x !== a));
    where.push(`${a}.k${rng.int(0, 1)} = ${b}.k${rng.int(0, 1)}`);
  }
  const select = visible.map((t) => `${t}.v AS ${t}_v, ${t}.k0 AS ${t}_k0`).join(', ');
  return `SELECT ${select} FROM ${from}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
}

const CONFIGS: readonly Record<string, unknown>[] = [
  { sip: 'transfer' },
  { sip: 'transfer', 'sip.skipWholeKeySets': false },
  { sip: 'lip', 'sip.skipWholeKeySets': false },
  { sip: 'transfer', 'sip.filter': 'exact' },
  { sip: 'transfer', 'sip.filter': 'bloom' },
  { sip: 'lip', 'sip.filter': 'bloom' },
  { sip: 'transfer', 'sip.filter': 'bounds' },
  { sip: 'transfer', 'sip.filter': 'policy', pushdown: 'inlist' },
  { sip: 'lip' },
  { sip: 'yannakakis' },
  { sip: 'none' },
  { sip: 'dynamic' },
];

describe('sip strategies on random join graphs', () => {
  it('every strategy and filter kind, planned and random join orders, gives DuckDB\'s answer', async () => {
    const rng = new Rng(20261206);
    const engines = await Promise.all(
      CONFIGS.flatMap((c, i) => [Engine.create({ ...c, batchSize: 3 }), Engine.create({ ...c, batchSize: 5, 'sql.joinOrder': 'random', 'sql.joinOrderSeed': i })]),
    );
    let transfers = 0;
    for (let trial = 0; trial < 60; trial++) {
      const n = rng.int(3, 6);
      const tables: Record<string, Table> = {};
      for (let t = 0; t < n; t++) {
        tables[`t${t}`] = randomTable(rng, rng.int(0, 14), rng.int(2, 8));
        await duck.loadTable(`t${t}`, tables[`t${t}`]!);
      }
      const sql = randomQuery(rng, n);
      const expected = await duck.query(sql);
      for (const engine of engines) {
        const got = await runSql(engine, sql, tables, { duck });
        const r = compareResults(got.table, expected);
        expect(r.equal, `${JSON.stringify({ sip: engine.config.sip, filter: engine.config['sip.filter'], order: engine.config['sql.joinOrder'] })}\n${sql}\n${formatComparison(r)}`).toBe(true);
        transfers += got.sip.reduce((k, s) => k + s.transfers.length, 0);
      }
    }
    expect(transfers).toBeGreaterThan(100); // the strategies did transfer filters, not only fall back
  });
});

const small = {
  a: new Table({ k: vectorFromArray([1, 2, 3, null, 5, 5], new Int32()), v: vectorFromArray([1, 2, 3, 4, 5, 6], new Int32()) }),
  b: new Table({ k: vectorFromArray([2, 3, 3, null, 9], new Int32()), w: vectorFromArray([1, 2, 3, 4, 5], new Int32()) }),
  c: new Table({ k: vectorFromArray([3, 4, 5], new Int32()), x: vectorFromArray([1, 2, 3], new Int32()) }),
};

describe('which tables a transfer may filter', () => {
  let engine: Engine;
  beforeAll(async () => {
    // every transfer of the passes, also from tables nothing filters (the rules, not the pruning)
    engine = await Engine.create({ sip: 'transfer', 'sip.skipWholeKeySets': false, batchSize: 2 });
    for (const [name, t] of Object.entries(small)) await duck.loadTable(name, t);
  });
  const targets = async (sql: string): Promise<string[]> => {
    const r = await runSql(engine, sql, small, { duck });
    const expected = await duck.query(sql);
    expect(compareResults(r.table, expected).equal, sql).toBe(true);
    return r.sip.flatMap((s) => s.transfers.map((t) => t.to)).sort();
  };
  it('inner: both sides', async () => {
    expect(await targets('SELECT a.v, b.w FROM a JOIN b ON a.k = b.k')).toEqual(['a', 'b']);
  });
  it('LEFT / RIGHT: only the NULL-padded side; FULL: neither', async () => {
    expect(await targets('SELECT a.v, b.w FROM a LEFT JOIN b ON a.k = b.k')).toEqual(['b']);
    expect(await targets('SELECT a.v, b.w FROM a RIGHT JOIN b ON a.k = b.k')).toEqual(['a']);
    expect(await targets('SELECT a.v, b.w FROM a FULL JOIN b ON a.k = b.k')).toEqual([]);
  });
  it('SEMI: both sides; ANTI: only the inner side', async () => {
    expect(await targets('SELECT a.v FROM a SEMI JOIN b ON a.k = b.k')).toEqual(['a', 'b']);
    expect(await targets('SELECT a.v FROM a ANTI JOIN b ON a.k = b.k')).toEqual(['b']);
  });
  it('NOT IN and IS NOT DISTINCT FROM: nothing (their NULLs matter)', async () => {
    expect(await targets('SELECT a.v FROM a WHERE a.k NOT IN (SELECT b.k FROM b)')).toEqual([]);
    expect(await targets('SELECT a.v, b.w FROM a JOIN b ON a.k IS NOT DISTINCT FROM b.k')).toEqual([]);
  });
  it('a filter reaches a table through the joins that pass its column unchanged', async () => {
    // c's filter reaches a through the inner join with b; nothing reaches a through the LEFT join's preserved side
    expect(await targets('SELECT a.v, b.w, c.x FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k')).toEqual(['a', 'a', 'b', 'c']);
    expect(await targets('SELECT a.v, b.w, c.x FROM a LEFT JOIN b ON a.k = b.k JOIN c ON a.k = c.k')).toEqual(['a', 'b', 'c']);
  });
});

describe('fallbacks and the baseline', () => {
  it('yannakakis on a cyclic query falls back to dynamic and says so in the report and the plan', async () => {
    const tables = small;
    const engine = await Engine.create({ sip: 'yannakakis' });
    // a–b on k, b–c on w = x, c–a on k = v: a ring of three different columns
    const sql = 'SELECT a.v FROM a, b, c WHERE a.k = b.k AND b.w = c.x AND c.k = a.v';
    const r = await runSql(engine, sql, tables, { duck });
    expect(compareResults(r.table, await duck.query(sql)).equal).toBe(true);
    expect(r.sip[0]!.note).toMatch(/cyclic/);
    expect(r.sip[0]!.transfers).toEqual([]);
    expect(r.sip[0]!.joinFilters).toBe(true);
    expect(JSON.stringify(r.plan)).toMatch(/fell back to dynamic/);
  });
  it('none publishes no filter into any scan; dynamic does', async () => {
    const sql = 'SELECT a.v, b.w FROM a JOIN b ON a.k = b.k';
    const none = await runSql(await Engine.create({ sip: 'none' }), sql, small, { duck });
    expect(none.scans.flatMap((s) => s.filters)).toEqual([]);
    const dynamic = await runSql(await Engine.create({ sip: 'dynamic' }), sql, small, { duck });
    expect(dynamic.scans.flatMap((s) => s.filters).length).toBeGreaterThan(0);
  });
  it('transfer decodes each table once: a later pass and the joins read the kept rows', async () => {
    const fact = new Table({ k: vectorFromArray(Array.from({ length: 400 }, (_, i) => i % 50), new Int32()), v: vectorFromArray(Array.from({ length: 400 }, (_, i) => i), new Int32()) });
    const dim = new Table({ k: vectorFromArray(Array.from({ length: 50 }, (_, i) => i), new Int32()), w: vectorFromArray(Array.from({ length: 50 }, (_, i) => i % 7), new Int32()) });
    const tables = { f: fact, d: dim };
    for (const [name, t] of Object.entries(tables)) await duck.loadTable(name, t);
    const sql = 'SELECT f.v, d.w FROM f JOIN d ON f.k = d.k WHERE d.w < 2 AND f.v < 20';
    const r = await runSql(await Engine.create({ sip: 'transfer', 'sip.skipWholeKeySets': false, batchSize: 16 }), sql, tables, { duck });
    expect(compareResults(r.table, await duck.query(sql)).equal).toBe(true);
    // one table sends forward, the other back: the first is read by the forward pass, then by its join
    expect(r.sip[0]!.transfers.map((t) => t.info.pass)).toEqual(['forward', 'backward']);
    const decoded = Object.fromEntries(r.scans.map((s) => [s.alias, s.metrics.rowsDecoded]));
    expect(decoded).toEqual({ f: 400, d: 50 });
  });
  it("a derived table's plan, its sip node included, shows under the scan of its rows", async () => {
    const sql = 'SELECT s.v FROM (SELECT a.v FROM a JOIN b ON a.k = b.k WHERE b.w < 3) AS s';
    for (const [name, t] of Object.entries(small)) await duck.loadTable(name, t);
    const r = await runSql(await Engine.create({ sip: 'transfer', 'sip.skipWholeKeySets': false }), sql, small, { duck });
    expect(compareResults(r.table, await duck.query(sql)).equal).toBe(true);
    const labels: string[] = [];
    const walk = (n: { label: string; children: readonly unknown[] }): void => {
      labels.push(n.label);
      for (const c of n.children) walk(c as typeof n);
    };
    walk(r.plan);
    expect(labels.filter((l) => l.startsWith('SIP'))).toHaveLength(2); // the outer query's and the derived table's
    expect(labels.indexOf('SCAN a')).toBeGreaterThan(labels.findIndex((l) => l.startsWith('SCAN (subquery')));
  });
  it('an unknown strategy is a typed error naming the slot', async () => {
    await expect(Engine.create({ sip: 'nope' })).rejects.toThrow(/sip/);
  });
});
