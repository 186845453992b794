/**
 * The join planner (join-order.ts): on random connected join graphs of 2–14 tables (the DP up to
 * 12, greedy beyond, and the random order) the planned tree never joins two inputs that no
 * condition links, every table and condition appears exactly once, and the answers equal
 * DuckDB's in every order mode; OR factoring finds q19's key; `SELECT *` keeps the written order.
 */
import { Int32, Table, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { Rng } from '../../core/random.ts';
import type { SqlExpr } from './ast.ts';
import { compareResults, formatComparison } from '../duckdb/compare.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { openScan } from '../io/open.ts';
import { formatExplain } from './explain.ts';
import { bindFrom, leaves, type FromPlan } from './join-tree.ts';
import { DP_LIMIT, joinOrderOptions, planFrom, type JoinOrder, type JoinOrderOptions } from './join-order.ts';
import { exprKey } from './or-factor.ts';
import { parseSql } from './parse.ts';
import { childrenOf, conjuncts } from './relation.ts';
import { runSql } from './run.ts';

let duck: DuckDBSession;
beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(async () => {
  await duck.close();
});

/** A table `t<i>(k<i>, a<i>, v<i>)` of `rows` rows: a key, a foreign key into the next table's domain, a value. */
function table(i: number, rows: number, rng: Rng): Table {
  const k = Array.from({ length: rows }, (_x, r) => r);
  const a = Array.from({ length: rows }, () => (rng.chance(0.1) ? null : rng.int(0, 20)));
  const v = Array.from({ length: rows }, () => rng.int(0, 9));
  return new Table({ [`k${i}`]: vectorFromArray(k, new Int32()), [`a${i}`]: vectorFromArray(a, new Int32()), [`v${i}`]: vectorFromArray(v, new Int32()) });
}

interface GraphCase {
  readonly tables: Record<string, Table>;
  readonly sql: string;
}

/** A random connected graph: a random spanning tree plus extra edges, written as a comma join in shuffled order. */
function graphCase(rng: Rng, n: number, maxRows: number): GraphCase {
  const tables: Record<string, Table> = {};
  for (let i = 0; i < n; i++) tables[`t${i}`] = table(i, rng.int(0, maxRows), rng);
  const edges: string[] = [];
  for (let i = 1; i < n; i++) {
    const j = rng.int(0, i - 1);
    edges.push(`t${i}.a${i} = t${j}.k${j}`);
  }
  for (let e = rng.int(0, 2); e > 0 && n > 2; e--) {
    const i = rng.int(0, n - 1);
    const j = rng.int(0, n - 1);
    if (i !== j) edges.push(`t${i}.v${i} = t${j}.v${j}`);
  }
  const filters = Array.from({ length: rng.int(0, 2) }, () => {
    const i = rng.int(0, n - 1);
    return `t${i}.v${i} < ${rng.int(1, 9)}`;
  });
  const order = Object.keys(tables);
  for (let i = order.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const conds = [...edges, ...filters];
  const select = Array.from({ length: Math.min(n, 3) }, (_x, i) => `t${i}.k${i}`).join(', ');
  return { tables, sql: `SELECT ${select} FROM ${order.join(', ')}${conds.length > 0 ? ` WHERE ${conds.join(' AND ')}` : ''}` };
}

async function planOf(sql: string, tables: Record<string, Table>, order: JoinOrder | JoinOrderOptions, seed = 1): Promise<{ plan: FromPlan; where: SqlExpr[] }> {
  const q = await parseSql(duck, sql);
  const bound = await bindFrom(q.from!, (name) => openScan(tables[name]!, name), () => Promise.reject(new Error('no derived tables here')));
  const where = conjuncts(q.where);
  return { plan: planFrom(bound, where, typeof order === 'string' ? { order, seed } : order), where };
}

/** The tree's shape: `((t1 ⋈ t0) ⋈ t2)`. */
function shapeOf(plan: FromPlan): string {
  return plan.kind === 'leaf' ? plan.name : `(${shapeOf(plan.left)} ⋈ ${shapeOf(plan.right)})`;
}

/** Every join's conditions, and whether each join has one naming both of its sides. */
function joinsOf(plan: FromPlan): { conds: SqlExpr[]; crossJoins: number } {
  if (plan.kind === 'leaf') return { conds: [...plan.statics], crossJoins: 0 };
  const l = joinsOf(plan.left);
  const r = joinsOf(plan.right);
  const left = new Set(leaves(plan.left).map((x) => x.name));
  const right = new Set(leaves(plan.right).map((x) => x.name));
  const names = (e: SqlExpr, out = new Set<string>()): Set<string> => {
    if (e.kind === 'column' && e.names.length === 2) out.add(e.names[0]!);
    for (const c of childrenOf(e)) names(c, out);
    return out;
  };
  const linking = plan.where.some((c) => {
    const n = [...names(c)];
    return n.some((x) => left.has(x)) && n.some((x) => right.has(x));
  });
  return { conds: [...l.conds, ...r.conds, ...plan.where], crossJoins: l.crossJoins + r.crossJoins + (linking ? 0 : 1) };
}

describe('join order', () => {
  it('never plans a cross product for a connected graph; every table and condition once', async () => {
    const rng = new Rng(20261206);
    for (let c = 0; c < 60; c++) {
      const n = c < 50 ? rng.int(2, DP_LIMIT) : rng.int(DP_LIMIT + 1, 14);
      const g = graphCase(rng, n, 30);
      for (const order of ['cost', 'random'] as const) {
        const { plan, where } = await planOf(g.sql, g.tables, order, c);
        const { conds, crossJoins } = joinsOf(plan);
        expect(crossJoins, `${order}: ${g.sql}`).toBe(0);
        expect(leaves(plan).map((l) => l.name).sort(), g.sql).toEqual(Object.keys(g.tables).sort());
        expect(conds.map(exprKey).sort(), g.sql).toEqual(where.map(exprKey).sort());
      }
    }
  });

  it('random:SEED is random with that seed (over sql.joinOrderSeed): the same order every time, never a cross product in a connected graph', async () => {
    expect(joinOrderOptions('random:7', 3)).toEqual({ order: 'random', seed: 7 });
    expect(joinOrderOptions('random', 3)).toEqual({ order: 'random', seed: 3 });
    expect(joinOrderOptions('cost', 3)).toEqual({ order: 'cost', seed: 3 });
    const rng = new Rng(28);
    for (let c = 0; c < 20; c++) {
      const g = graphCase(rng, rng.int(3, 8), 20);
      const shapes = new Set<string>();
      for (const seed of [1, 2, 3, 4, 5]) {
        const setting = `random:${seed}` as const;
        const a = await planOf(g.sql, g.tables, joinOrderOptions(setting, 0));
        const b = await planOf(g.sql, g.tables, joinOrderOptions(setting, 99));
        const c2 = await planOf(g.sql, g.tables, 'random', seed);
        expect(shapeOf(b.plan), `${setting}: ${g.sql}`).toBe(shapeOf(a.plan));
        expect(shapeOf(c2.plan), `${setting}: ${g.sql}`).toBe(shapeOf(a.plan));
        expect(joinsOf(a.plan).crossJoins, `${setting}: ${g.sql}`).toBe(0);
        shapes.add(shapeOf(a.plan));
      }
      if (Object.keys(g.tables).length >= 5) expect(shapes.size, g.sql).toBeGreaterThan(1); // the seeds draw different orders
    }
    // through the engine: random:SEED overrides sql.joinOrderSeed, and the answer is DuckDB's
    const g = graphCase(new Rng(11), 5, 15);
    for (const [name, t] of Object.entries(g.tables)) await duck.loadTable(name, t);
    const expected = await duck.query(g.sql);
    const explained: string[] = [];
    for (const config of [{ 'sql.joinOrder': 'random:4', 'sql.joinOrderSeed': 1 }, { 'sql.joinOrder': 'random:4', 'sql.joinOrderSeed': 2 }, { 'sql.joinOrder': 'random', 'sql.joinOrderSeed': 4 }]) {
      const engine = await Engine.create(config);
      const r = await runSql(engine, g.sql, g.tables, { duck });
      expect(compareResults(r.table, expected).equal, JSON.stringify(config)).toBe(true);
      explained.push(formatExplain(r.plan).replace(/[\d.]+ ms/g, ''));
    }
    expect(explained[1]).toBe(explained[0]);
    expect(explained[2]).toBe(explained[0]);
  });

  it('answers as DuckDB does in every order mode (random graphs, NULL keys, empty tables, batch sizes 1, 3, 8192)', async () => {
    const rng = new Rng(7);
    const engines = await Promise.all(
      (['cost', 'written', 'random'] as const).flatMap((order) => [1, 3, 8192].map((batchSize) => Engine.create({ batchSize, 'sql.joinOrder': order, 'sql.joinOrderSeed': batchSize })).map((e) => e)),
    );
    for (let c = 0; c < 45; c++) {
      const g = graphCase(rng, rng.int(2, 5), 12);
      for (const [name, t] of Object.entries(g.tables)) await duck.loadTable(name, t);
      const expected = await duck.query(g.sql);
      const engine = engines[c % engines.length]!;
      const { table } = await runSql(engine, g.sql, g.tables, { duck });
      const r = compareResults(table, expected);
      expect(r.equal, `${engine.config['sql.joinOrder']} ${g.sql}\n${formatComparison(r)}`).toBe(true);
    }
  });

  it('SELECT * lists the columns in the written order whatever the plan', async () => {
    const rng = new Rng(3);
    const tables = { t0: table(0, 50, rng), t1: table(1, 3, rng), t2: table(2, 20, rng) };
    for (const [name, t] of Object.entries(tables)) await duck.loadTable(name, t);
    const engine = await Engine.create({});
    for (const sql of ['SELECT * FROM t0, t1, t2 WHERE t0.a0 = t1.k1 AND t1.a1 = t2.k2', 'SELECT t2.*, t0.* FROM t2 JOIN t0 ON t0.a0 = t2.v2 JOIN t1 ON t1.k1 = t0.v0', 'SELECT * FROM t1 JOIN (t0 LEFT JOIN t2 ON t0.a0 = t2.k2) ON t1.k1 = t0.k0']) {
      const { table: actual } = await runSql(engine, sql, tables, { duck });
      const r = compareResults(actual, await duck.query(sql));
      expect(r.equal, `${sql}\n${formatComparison(r)}`).toBe(true);
    }
  });

  it('factors the key q19 writes in every branch of an OR, and filters each table by what the OR implies', async () => {
    const rng = new Rng(19);
    const tables = { t0: table(0, 200, rng), t1: table(1, 40, rng) };
    for (const [name, t] of Object.entries(tables)) await duck.loadTable(name, t);
    const sql = 'SELECT t0.k0, t1.k1 FROM t0, t1 WHERE (t0.a0 = t1.k1 AND t0.v0 < 3 AND t1.v1 = 1) OR (t1.k1 = t0.a0 AND t0.v0 > 7 AND t1.v1 BETWEEN 4 AND 5) OR (t0.a0 = t1.k1 AND t0.v0 = 5 AND t1.v1 IS NULL)';
    const { plan } = await planOf(sql, tables, 'cost');
    expect(plan.kind).toBe('join');
    const root = plan as Extract<FromPlan, { kind: 'join' }>;
    // the key is a condition of its own, and each table got the OR of its branch filters
    expect(root.where.some((c) => c.kind === 'compare' && c.op === '=')).toBe(true);
    for (const l of leaves(plan)) expect(l.statics.map((s) => s.kind)).toEqual(['or']);
    for (const order of ['cost', 'written'] as const) {
      const engine = await Engine.create({ 'sql.joinOrder': order, batchSize: 7 });
      const { table: actual, joins } = await runSql(engine, sql, tables, { duck });
      const r = compareResults(actual, await duck.query(sql));
      expect(r.equal, `${order}\n${formatComparison(r)}`).toBe(true);
      expect(joins[0]!.algorithm).not.toBe('nested-loop');
    }
  });

  it('builds every dimension and probes with the fact table in a star query written dimensions first', async () => {
    const rng = new Rng(5);
    const tables = { t0: table(0, 5000, rng), t1: table(1, 21, rng), t2: table(2, 21, rng), t3: table(3, 21, rng) };
    const sql = 'SELECT count(*) FROM t1, t2, t3, t0 WHERE t0.a0 = t1.k1 AND t0.v0 = t2.k2 AND t0.a0 = t3.k3 AND t1.v1 < 5 AND t2.v2 < 5';
    const { plan } = await planOf(sql, tables, 'cost');
    // left-deep over the fact table: every join has t0 on its left (probe) side
    for (let p: FromPlan = plan; p.kind === 'join'; p = p.left) {
      expect(leaves(p.right).map((l) => l.name)).not.toContain('t0');
      expect(leaves(p.left).map((l) => l.name)).toContain('t0');
    }
    // --explain: estimated beside actual rows, each scan's static filter as text
    const engine = await Engine.create({});
    const text = formatExplain((await runSql(engine, sql, tables, { duck })).plan);
    expect(text).toContain('static filter: t1.v1 < 5');
    expect(text).toMatch(/rows: \d+ \(estimated \d+\); [\d.]+ ms/);
    expect(text).toMatch(/rows: 5000 decoded, \d+ after filters \(estimated 5000 of 5000\)/);
  });
});
