/**
 * Misuse of the public Engine (composition.ts, core/arguments.ts): every call rejects a wrong argument with an
 * `InvalidArgumentError` that names it — before, `engine.join(null, …)` and friends failed with a
 * TypeError from deep inside, and a sort key `{ descending: 'yes' }` or an options object with a
 * string `signal` were accepted silently. `close()` ends the engine (its worker threads too) and
 * every later call throws `EngineClosedError`; a second `close()` does nothing.
 */
import { Int32, Table, vectorFromArray } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine, EngineClosedError, InvalidArgumentError, JoinlabError, UsageError } from '../index.ts';

const t = new Table({ k: vectorFromArray([3, 1, 2], new Int32()) });
const on = { type: 'inner', on: 'k=k' } as const;
let engine: Engine;
const engineReady = Engine.create({ threads: 1 }).then((e) => (engine = e));
afterAll(async () => engine?.close());

/** `call()` rejects with an InvalidArgumentError about `argument` whose message matches `detail`. */
async function rejects(call: () => Promise<unknown>, argument: string, detail: RegExp): Promise<void> {
  await engineReady;
  const e = await call().then(
    () => null,
    (err: unknown) => err,
  );
  expect(e, `${argument}: accepted`).toBeInstanceOf(InvalidArgumentError);
  expect(e).toBeInstanceOf(UsageError); // the CLI's one-line report, exit 2
  expect((e as InvalidArgumentError).argument).toBe(argument);
  expect((e as Error).message).toContain(`'${argument}'`);
  expect((e as Error).message).toMatch(detail);
}

const any = (v: unknown) => v as never;

describe('Engine arguments', () => {
  it('join / stream: spec, inputs and options', async () => {
    for (const call of ['join', 'stream'] as const) {
      const run = (spec: unknown, left: unknown, right: unknown, options?: unknown) => () => engine[call](any(spec), any(left), any(right), any(options));
      await rejects(run(null, t, t), 'spec', /got null/);
      await rejects(run('k=k', t, t), 'spec', /got string 'k=k'/);
      await rejects(run(on, null, t), 'left', /Arrow Table, a file path .* got null/);
      await rejects(run(on, t, 42), 'right', /got number 42/);
      await rejects(run(on, t, ''), 'right', /got string ''/);
      await rejects(run({ type: 'inner', on: 5 }, t, t), 'spec.on', /got number 5/);
      await rejects(run({ type: 'inner', on: [{ left: 'k' }] }, t, t), 'spec.on', /a=b/);
      await rejects(run({ type: 7, on: 'k=k' }, t, t), 'spec.type', /expected string, got number 7/);
      await rejects(run({ type: 'inner', on: 'k=k', nullEqualsNull: 'yes' }, t, t), 'spec.nullEqualsNull', /expected boolean, got string 'yes'/);
      await rejects(run({ type: 'inner', key: 'k=k' }, t, t), 'spec', /unknown key 'key'/);
      await rejects(run(on, t, t, null), 'options', /got null/);
      await rejects(run(on, t, t, { signal: 'soon' }), 'options.signal', /AbortSignal, got string 'soon'/);
      await rejects(run(on, t, t, { pool: {} }), 'options.pool', /MemoryPool, got an object/);
    }
    // what was valid still is (the text and the parsed form of a spec)
    expect((await engine.join(on, t, t)).table.numRows).toBe(3);
    expect((await engine.join({ type: 'inner', on: [{ left: 'k', right: 'k' }], nullEqualsNull: false, select: 'k' }, t, t)).table.numRows).toBe(3);
  });

  it('sort / sortStream: input, keys and options', async () => {
    for (const call of ['sort', 'sortStream'] as const) {
      const run = (input: unknown, keys: unknown, options?: unknown) => () => engine[call](any(input), any(keys), any(options));
      await rejects(run(null, 'k'), 'input', /got null/);
      await rejects(run(t, null), 'keys', /got null/);
      await rejects(run(t, { column: 'k' }), 'keys', /got an object/);
      await rejects(run(t, [{ column: 'k', descending: 'yes' }]), 'keys[0].descending', /expected boolean, got string 'yes'/);
      await rejects(run(t, [{ column: 'k' }, { column: 'k', nullsFirst: 1 }]), 'keys[1].nullsFirst', /got number 1/);
      await rejects(run(t, [{ column: 'k', desc: true }]), 'keys[0]', /unknown key 'desc'/);
      await rejects(run(t, [{ column: '' }]), 'keys[0].column', /non-empty/);
      await rejects(run(t, 'k', { signal: {} }), 'options.signal', /got an object/);
    }
    const sorted = await engine.sort(t, [{ column: 'k', descending: true }]);
    expect(sorted.table.getChild('k')!.toArray()).toEqual(new Int32Array([3, 2, 1]));
  });

  it('aggregate: input, spec and options', async () => {
    const run = (input: unknown, spec: unknown, options?: unknown) => () => engine.aggregate(any(input), any(spec), any(options));
    const sum = { fn: 'sum', column: 'k', distinct: false, as: 's' } as const;
    await rejects(run(5, { groupBy: [], aggregates: [sum] }), 'input', /got number 5/);
    await rejects(run(t, null), 'spec', /got null/);
    await rejects(run(t, { groupBy: 'k', aggregates: [] }), 'spec.groupBy', /expected array, got string 'k'/);
    await rejects(run(t, { groupBy: [], aggregates: [{ ...sum, fn: 'median' }] }), 'spec.aggregates[0].fn', /"sum".* got string 'median'/);
    await rejects(run(t, { groupBy: [], aggregates: [{ fn: 'sum', column: 'k', distinct: false, name: 's' }] }), 'spec.aggregates[0].as', /got undefined/);
    await rejects(run(t, { groupBy: [], aggregates: [sum] }, 'fast'), 'options', /got string 'fast'/);
    expect(Number((await engine.aggregate(t, { groupBy: [], aggregates: [sum] })).table.getChild('s')!.toArray()[0])).toBe(6);
  });

  it('sql: text, tables and options', async () => {
    await rejects(() => engine.sql(any(null), { t }), 'text', /got null/);
    await rejects(() => engine.sql('  ', { t }), 'text', /got string ' {2}'/);
    await rejects(() => engine.sql('SELECT * FROM t', any(null)), 'tables', /got null/);
    await rejects(() => engine.sql('SELECT * FROM t', any(t)), 'tables', /got a Table/);
    await rejects(() => engine.sql('SELECT * FROM t', { t: any(5) }), 'tables.t', /got number 5/);
    await rejects(() => engine.sql('SELECT * FROM t', { t }, any({ signal: true })), 'options.signal', /got boolean true/);
    expect((await engine.sql('SELECT k FROM t WHERE k > 1', { t })).table.numRows).toBe(2);
  });
});

describe('Engine.close', () => {
  it('every later call throws EngineClosedError; close is idempotent', async () => {
    const e = await Engine.create({ threads: 1 });
    expect((await e.join(on, t, t)).table.numRows).toBe(3);
    await e.close();
    await e.close();
    expect(e.closed).toBe(true);
    const calls: [string, () => Promise<unknown>][] = [
      ['join', () => e.join(on, t, t)],
      ['stream', () => e.stream(on, t, t)],
      ['sort', () => e.sort(t, 'k')],
      ['sortStream', () => e.sortStream(t, 'k')],
      ['aggregate', () => e.aggregate(t, { groupBy: ['k'], aggregates: [] })],
      ['sql', () => e.sql('SELECT 1', {})],
      ['with', () => e.with({ batchSize: 16 })],
    ];
    for (const [method, call] of calls) {
      const err = await call().then(
        () => null,
        (x: unknown) => x,
      );
      expect(err, method).toBeInstanceOf(EngineClosedError);
      expect(err).toBeInstanceOf(JoinlabError);
      expect((err as Error).message).toContain(`Engine.${method}`);
    }
  });

  it('ends the worker threads the engine started', async () => {
    const e = await Engine.create({ threads: 2 });
    const pool = e.workers()!;
    await pool.ready();
    expect(pool.started).toBe(true);
    await e.close();
    // the pool is closed: it opens no session any more (a new engine of this shape gets a new pool)
    await expect(pool.open('no-such-task', {})).rejects.toThrow(/closed/);
    const again = await Engine.create({ threads: 2 });
    expect(again.workers()).not.toBe(pool);
    await again.close();
  }, 60_000);

  it("closing one engine leaves the pool another engine of the same shape holds running", async () => {
    const a = await Engine.create({ threads: 2 });
    const b = await Engine.create({ threads: 2 });
    const pool = a.workers()!;
    expect(b.workers()).toBe(pool); // one pool per shape and process
    await pool.ready();
    await a.close();
    await pool.ready(); // still open: b holds it
    await b.close();
    await expect(pool.open('no-such-task', {})).rejects.toThrow(/closed/);
  }, 60_000);
});
