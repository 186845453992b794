import { afterAll, describe, expect, it } from 'vitest';
import { MemoryLimitError } from '../errors.ts';
import { WorkerPool } from './worker-pool.ts';

const TASKS = new URL('./fixtures/test-tasks.ts', import.meta.url).href;

async function* inputs(n: number, extra: (i: number) => object = () => ({})) {
  for (let i = 0; i < n; i++) {
    const values = Int32Array.from({ length: 100 }, (_, j) => i + j);
    yield { input: { values, ...extra(i) }, transfer: [values.buffer] };
  }
}
const expectedSum = (n: number) => Array.from({ length: n }, (_, i) => 100 * i + 4950).reduce((a, b) => a + b, 0);

describe('worker pool', () => {
  afterAll(() => WorkerPool.closeAll());

  it('runs a session on every worker: morsels spread, shared memory seen by all, close replies per worker', async () => {
    const pool = WorkerPool.get(2, [TASKS], process.cwd());
    expect(WorkerPool.get(2, [TASKS], process.cwd())).toBe(pool); // one pool per shape
    const acc = new SharedArrayBuffer(4);
    const s = await pool.open('test.sum', { acc });
    const seen = new Set<number>();
    let total = 0;
    for await (const v of s.map<{ out: Float64Array }>(inputs(40, () => ({ spin: 2 })))) {
      total += v.out[0]!;
      seen.add(v.out[1]!);
    }
    expect(total).toBe(expectedSum(40));
    expect(Atomics.load(new Int32Array(acc), 0)).toBe(expectedSum(40));
    expect(seen).toEqual(new Set([0, 1]));
    const closed = (await s.close()) as { worker: number; own: number }[];
    expect(closed.map((c) => c.worker)).toEqual([0, 1]);
    expect(closed.reduce((n, c) => n + c.own, 0)).toBe(expectedSum(40));
  });

  it('starts no thread until asked; its workers load the bundle compiled ahead, and answer as workers loading the TypeScript sources do', async () => {
    const sums: Record<string, number> = {};
    for (const code of ['bundle', 'source'] as const) {
      const pool = WorkerPool.get(3, [TASKS], process.cwd(), code); // a shape no other test starts
      expect(pool.started).toBe(false);
      expect(pool.startup).toBeNull();
      const acc = new SharedArrayBuffer(4);
      const s = await pool.open('test.sum', { acc });
      expect(pool.started).toBe(true);
      expect(pool.startup!.code.kind).toBe(code);
      let total = 0;
      for await (const v of s.map<{ out: Float64Array }>(inputs(12))) total += v.out[0]!;
      await s.close();
      sums[code] = total;
    }
    expect(sums).toEqual({ bundle: expectedSum(12), source: expectedSum(12) });
  });

  it('a typed error in a worker reaches the caller as the same class, with its fields; a bug keeps its stack', async () => {
    const pool = WorkerPool.get(2, [TASKS], process.cwd());
    const s = await pool.open('test.sum', { acc: new SharedArrayBuffer(4) });
    const err = await (async () => {
      for await (const _ of s.map(inputs(10, (i) => (i === 6 ? { fail: 'memory' } : {})))) void _;
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemoryLimitError);
    expect((err as MemoryLimitError).consumer).toBe('test task');
    expect((err as MemoryLimitError).kind).toBe('memory-limit');
    const bug = await s.submit({ fail: 'bug' }).catch((e: Error) => e);
    expect((bug as Error).message).toMatch(/in a worker thread: TypeError: a bug in the task/);
    expect((bug as Error).stack).toMatch(/test-tasks\.ts/);
    await s.close();
  });

  it('an unknown task fails the open with the registry error', async () => {
    const pool = WorkerPool.get(2, [TASKS], process.cwd());
    await expect(pool.open('test.nope', {})).rejects.toThrow(/test\.nope/);
  });

  it('a worker that dies rejects what it owed and is replaced on the next open', async () => {
    const pool = WorkerPool.get(2, [TASKS], process.cwd());
    const s = await pool.open('test.sum', { acc: new SharedArrayBuffer(4) });
    const crashed = s.submit({ fail: 'crash', spin: 50 });
    await expect(crashed).rejects.toThrow(/exited \(code 3\)|failed/);
    await s.close();
    const again = await pool.open('test.sum', { acc: new SharedArrayBuffer(4) });
    let total = 0;
    for await (const v of again.map<{ out: Float64Array }>(inputs(8))) total += v.out[0]!;
    expect(total).toBe(expectedSum(8));
    await again.close();
  });

  it('a consumer that stops early lets running morsels settle and stops submitting', async () => {
    const pool = WorkerPool.get(2, [TASKS], process.cwd());
    const acc = new SharedArrayBuffer(4);
    const s = await pool.open('test.sum', { acc });
    let pulled = 0;
    async function* counted() {
      for await (const x of inputs(1000, () => ({ spin: 1 }))) {
        pulled++;
        yield x;
      }
    }
    let got = 0;
    for await (const _ of s.map(counted())) if (++got === 3) break;
    expect(pulled).toBeLessThan(20);
    await s.close();
  });
});
