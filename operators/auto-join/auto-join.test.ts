/**
 * `join=auto`: the choice per spec shape (DuckDB's rule for the joins joinlab has), how a planner
 * is resolved (core/join-planning.ts: a chosen name that is not registered, a cycle), and end to
 * end through the engine: the chosen algorithm runs, the metrics name it with `chosenBy: 'auto'`,
 * and an UnsupportedJoinError names it. Nothing here needs `piecewise` to be registered: the
 * pure range join is checked on `choose` and against a registry holding a stand-in.
 */
import { Bool, makeVector, Table, vectorFromArray, type RecordBatch } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { parseConfig } from '../../core/config/schema.ts';
import { ConfigError, UnknownStrategyError, UnsupportedJoinError } from '../../core/errors.ts';
import type { JoinAlgorithm, JoinContext, JoinInputs } from '../../core/join-algorithm.ts';
import { chooseJoinAlgorithm, joinUnsupportedReason } from '../../core/join-planning.ts';
import { bindJoin, type BoundJoin } from '../../core/plan.ts';
import { Registry } from '../../core/registry/registry.ts';
import { JOIN } from '../../core/registry/slots.ts';
import { toJoinSpec, type JoinSpecInput } from '../../core/spec.ts';
import { JOIN_TYPES } from '../../core/types.ts';
import { AutoJoin, explainAutoJoin } from './auto-join.ts';

const left = new Table({ k: makeVector(Int32Array.from([1, 2, 2, 3])), a: makeVector(Int32Array.from([10, 20, 30, 40])) });
const right = new Table({ k: makeVector(Int32Array.from([2, 3, 4])), b: makeVector(Int32Array.from([15, 35, 50])) });

const bind = (spec: JoinSpecInput): BoundJoin => bindJoin(toJoinSpec(spec), left.schema, right.schema);

/** A stand-in algorithm: refuses what `refuse` says, yields nothing. */
function stub(name: string, refuse: (join: BoundJoin) => string | null = () => null): JoinAlgorithm {
  return {
    name,
    description: `stand-in ${name}`,
    unsupportedReason: refuse,
    async *execute(): AsyncIterable<RecordBatch> {
      return;
    },
  };
}

describe('AutoJoin.choose', () => {
  const auto = new AutoJoin();
  const cases: [string, JoinSpecInput, string][] = [
    ['an equi-key', { type: 'inner', on: 'k=k' }, 'hash'],
    ['two equi-keys', { type: 'left', on: 'k=k,a=b' }, 'hash'],
    ['an equi-key and a filter', { type: 'full', on: 'k=k', filter: 'l.a < r.b' }, 'hash'],
    ['an equi-key and a range', { type: 'inner', on: 'k=k', range: 'a < b' }, 'hash'],
    ['NOT IN', { type: 'left-anti', on: 'k=k', nullAware: true }, 'hash'],
    ['a range only', { type: 'inner', range: 'a < b' }, 'piecewise'],
    ['a range only (>=)', { type: 'left-mark', range: 'a >= b' }, 'piecewise'],
    ['a range and a filter', { type: 'inner', range: 'a < b', filter: 'l.k <> r.k' }, 'nested-loop'],
    ['a range and a second inequality', { type: 'inner', range: 'a < b', filter: 'l.k >= r.k' }, 'iejoin'],
    ['two inequalities in the filter (one reversed), a residual beside them', { type: 'full', filter: 'r.b > l.a AND l.k <= r.k AND l.a + 1 <> r.b' }, 'iejoin'],
    ['a range and an inequality inside an AND', { type: 'right', range: 'a <= b', filter: 'l.k <> r.k AND (l.k > r.k AND l.a > r.k)' }, 'iejoin'],
    ['two inequalities, a semi join (DuckDB: no IEJoin, no single-condition merge)', { type: 'left-semi', range: 'a < b', filter: 'l.k >= r.k' }, 'nested-loop'],
    ['two inequalities and an equi-key', { type: 'left', on: 'k=k', filter: 'l.a < r.b AND l.k > r.b' }, 'hash'],
    ['an inequality against an expression is not a condition', { type: 'inner', range: 'a < b', filter: 'l.k > r.k + 1' }, 'nested-loop'],
    ['a filter only', { type: 'left', filter: 'l.a < r.b' }, 'nested-loop'],
    ['a cross product', { type: 'inner' }, 'nested-loop'],
  ];
  it.each(cases)('%s -> %s', (_, spec, expected) => {
    expect(auto.choose(bind(spec))).toBe(expected);
    expect(explainAutoJoin(toJoinSpec(spec)).algorithm).toBe(expected);
  });

  it('two inequality conditions go to iejoin for inner / left / right / full, to nested-loop for semi / anti / mark (can_iejoin = false)', () => {
    for (const type of JOIN_TYPES) {
      const expected = type === 'inner' || type === 'left' || type === 'right' || type === 'full' ? 'iejoin' : 'nested-loop';
      expect(auto.choose(bind({ type, range: 'a <= b', filter: 'l.k > r.k' })), type).toBe(expected);
    }
  });

  it('a single range predicate goes to piecewise for every join type (one condition: DuckDB merges semi/anti/mark too)', () => {
    for (const type of JOIN_TYPES) expect(auto.choose(bind({ type, range: 'a <= b' })), type).toBe('piecewise');
  });

  it('states the rule in its description (what `joinlab strategies` prints) and is the default of `join`', () => {
    expect(auto.description).toMatch(/hash when the join has an equi-key; iejoin for two or more inequality conditions \(inner\/left\/right\/full\); piecewise for one range predicate without equi-key or filter; nested-loop otherwise/);
    expect(parseConfig({}).join).toBe('auto');
  });
});

describe('resolving a planner (core/join-planning.ts)', () => {
  const registry = (...algorithms: JoinAlgorithm[]): Registry => {
    const r = new Registry();
    for (const a of algorithms) r.register(JOIN, a);
    r.register(JOIN, new AutoJoin(r));
    return r;
  };

  it('returns the chosen algorithm and the planner that chose it; a plain algorithm is its own choice', () => {
    const r = registry(stub('hash'), stub('nested-loop'), stub('piecewise'));
    expect(chooseJoinAlgorithm(r, 'auto', bind({ type: 'inner', on: 'k=k' }))).toMatchObject({ algorithm: { name: 'hash' }, chosenBy: 'auto' });
    expect(chooseJoinAlgorithm(r, 'auto', bind({ type: 'right', range: 'a > b' }))).toMatchObject({ algorithm: { name: 'piecewise' }, chosenBy: 'auto' });
    expect(chooseJoinAlgorithm(r, 'auto', bind({ type: 'inner' }))).toMatchObject({ algorithm: { name: 'nested-loop' }, chosenBy: 'auto' });
    expect(chooseJoinAlgorithm(r, 'nested-loop', bind({ type: 'inner', on: 'k=k' }))).toMatchObject({ algorithm: { name: 'nested-loop' }, chosenBy: null });
  });

  it("auto's unsupportedReason is the chosen algorithm's", () => {
    const r = registry(stub('hash', (j) => (j.spec.range ? 'no range beside equi-keys' : null)), stub('nested-loop'));
    const auto = r.resolve(JOIN, 'auto');
    expect(auto.unsupportedReason(bind({ type: 'inner', on: 'k=k', range: 'a < b' }))).toBe('no range beside equi-keys');
    expect(auto.unsupportedReason(bind({ type: 'inner', on: 'k=k' }))).toBeNull();
    expect(joinUnsupportedReason(r, 'auto', bind({ type: 'inner', on: 'k=k', range: 'a < b' }))).toBe('no range beside equi-keys');
    // without a registry it cannot ask, and leaves the check to the engine
    expect(new AutoJoin().unsupportedReason(bind({ type: 'inner', on: 'k=k', range: 'a < b' }))).toBeNull();
  });

  it('a chosen algorithm that is not registered: UnknownStrategyError naming the planner, a reason for the case generator', () => {
    const r = registry(stub('hash'), stub('nested-loop'));
    const range = bind({ type: 'inner', range: 'a < b' });
    expect(() => chooseJoinAlgorithm(r, 'auto', range)).toThrow(UnknownStrategyError);
    expect(() => chooseJoinAlgorithm(r, 'auto', range)).toThrow(/unknown join strategy 'piecewise' \(chosen by 'auto' for this join\); registered: hash, nested-loop, auto/);
    expect(joinUnsupportedReason(r, 'auto', range)).toMatch(/unknown join strategy 'piecewise' \(chosen by 'auto'/);
    expect(r.resolve(JOIN, 'auto').unsupportedReason(range)).toMatch(/unknown join strategy 'piecewise'/);
    // an unknown configured name is still an error, not a reason
    expect(() => joinUnsupportedReason(r, 'quantum', range)).toThrow(UnknownStrategyError);
  });

  it('execute, reached only by a caller that bypasses the engine, runs the chosen algorithm', async () => {
    const ran: string[] = [];
    const recording = (name: string): JoinAlgorithm => ({
      ...stub(name),
      async *execute(): AsyncIterable<RecordBatch> {
        ran.push(name);
      },
    });
    const r = registry(recording('hash'), recording('nested-loop'));
    const ctx = { registry: r } as unknown as JoinContext;
    const inputs = {} as JoinInputs;
    for await (const _ of r.resolve(JOIN, 'auto').execute(bind({ type: 'inner' }), inputs, ctx));
    for await (const _ of r.resolve(JOIN, 'auto').execute(bind({ type: 'inner', on: 'k=k' }), inputs, ctx));
    expect(ran).toEqual(['nested-loop', 'hash']);
  });

  it('follows a planner that chooses a planner, and refuses a cycle', () => {
    const r = registry(stub('hash'), stub('nested-loop'));
    r.register(JOIN, { ...stub('outer'), choose: () => 'auto' });
    expect(chooseJoinAlgorithm(r, 'outer', bind({ type: 'inner', on: 'k=k' }))).toMatchObject({ algorithm: { name: 'hash' }, chosenBy: 'outer' });
    r.register(JOIN, { ...stub('ping'), choose: () => 'pong' });
    r.register(JOIN, { ...stub('pong'), choose: () => 'ping' });
    expect(() => chooseJoinAlgorithm(r, 'ping', bind({ type: 'inner' }))).toThrow(ConfigError);
    expect(() => chooseJoinAlgorithm(r, 'ping', bind({ type: 'inner' }))).toThrow(/cycle: ping -> pong -> ping/);
  });
});

describe('join=auto through the engine', () => {
  it('is the default: an equi-join runs on hash, and the metrics say auto chose it', async () => {
    const engine = await Engine.create();
    expect(engine.config.join).toBe('auto');
    const { table, metrics } = await engine.join({ type: 'inner', on: 'k=k' }, left, right);
    expect(table.numRows).toBe(3);
    expect(metrics.algorithm).toBe('hash');
    expect(metrics.chosenBy).toBe('auto');
    expect(Object.keys(metrics.operators)).toContain('join');
    expect(metrics.operators.join!.name).toBe('hash');
    expect(engine.choose(bind({ type: 'inner', on: 'k=k' }))).toMatchObject({ algorithm: { name: 'hash' }, chosenBy: 'auto' });
  });

  it('a cross product, a filter-only join and a range with a filter run on nested-loop', async () => {
    const engine = await Engine.create({ join: 'auto' });
    const oracle = await Engine.create({ join: 'nested-loop' });
    for (const spec of [{ type: 'inner' }, { type: 'left', filter: 'l.a < r.b' }, { type: 'full', range: 'a < b', filter: 'l.k <> r.k' }] as JoinSpecInput[]) {
      const { table, metrics } = await engine.join(spec, left, right);
      const expected = await oracle.join(spec, left, right);
      expect(metrics, JSON.stringify(spec)).toMatchObject({ algorithm: 'nested-loop', chosenBy: 'auto' });
      expect(expected.metrics).toMatchObject({ algorithm: 'nested-loop', chosenBy: null });
      expect(table.numRows).toBe(expected.table.numRows);
    }
  });

  it('a single range predicate runs on piecewise under the default, with the oracle\'s answer', async () => {
    const engine = await Engine.create();
    const oracle = await Engine.create({ join: 'nested-loop' });
    for (const type of ['inner', 'full', 'left-semi', 'right-anti'] as const) {
      const spec = { type, range: 'a < b' };
      const { table, metrics } = await engine.join(spec, left, right);
      expect(metrics, type).toMatchObject({ algorithm: 'piecewise', chosenBy: 'auto' });
      expect(table.numRows, type).toBe((await oracle.join(spec, left, right)).table.numRows);
    }
  });

  it('an algorithm named in the config is run as named (chosenBy null)', async () => {
    const { metrics } = await (await Engine.create({ join: 'sort-merge' })).join({ type: 'inner', on: 'k=k' }, left, right);
    expect(metrics).toMatchObject({ algorithm: 'sort-merge', chosenBy: null });
  });

  it('an equi-key plus a range runs on hash (the range as its residual filter)', async () => {
    const engine = await Engine.create();
    // the key pairs: (2, a 20 | 30) with (2, b 15) and (3, a 40) with (3, b 35): a > b for all three
    for (const [range, rows] of [['a > b', 3], ['a < b', 0]] as const) {
      const { table, metrics } = await engine.join({ type: 'inner', on: 'k=k', range }, left, right);
      expect(metrics, range).toMatchObject({ algorithm: 'hash', chosenBy: 'auto' });
      expect(table.numRows, range).toBe(rows);
    }
  });

  it('the UnsupportedJoinError names the chosen algorithm and auto', async () => {
    const engine = await Engine.create();
    // a range the residual filter cannot compare (BOOLEAN with INTEGER): hash refuses it
    const boolLeft = new Table({ k: makeVector(Int32Array.from([2])), a: vectorFromArray([true], new Bool()) });
    const run = engine.join({ type: 'inner', on: 'k=k', range: 'a < b' }, boolLeft, right);
    await expect(run).rejects.toThrow(UnsupportedJoinError);
    await expect(engine.join({ type: 'inner', on: 'k=k', range: 'a < b' }, boolLeft, right)).rejects.toThrow(
      /^join algorithm 'hash' \(chosen by 'auto'\) cannot run this join: its range predicate cannot be evaluated as a residual filter/,
    );
  });
});
