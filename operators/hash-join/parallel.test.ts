/**
 * The hash join on worker threads against the single-threaded join and DuckDB: random cases
 * (NULLs, duplicates, skew, every join type, build side, NOT IN, residual filters, tiny batch
 * sizes — many morsels) for every layout and mode at threads 2 and 4; then the failure paths —
 * a typed error raised inside a worker, an abort mid-probe, a memory limit hit by a worker —
 * each a typed error, no hang, and the pool still serving the next join.
 */
import { Dictionary, Int32, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { ExpressionError, MemoryLimitError, UnsupportedJoinError } from '../../core/errors.ts';
import { WorkerPool } from '../../core/parallel/worker-pool.ts';
import { shareTable } from '../../core/parallel/wire.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { caseSpace, randomCase, type CaseConfig, type JoinCase } from '../../adapters/datagen/random-cases.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { joinToSql } from '../../adapters/duckdb/join-sql.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';

const SEED = 1515;
const CASES = 24;
const MODES = [{ 'hash.mode': 'collect-left' }, { 'hash.mode': 'partitioned', 'hash.partitions': 3 }] as const;
const UNIVERSAL = ['chained', 'auto'];

const engines = new Map<string, Promise<Engine>>();
const engineFor = (config: object) => {
  const key = JSON.stringify(config);
  let e = engines.get(key);
  if (e === undefined) engines.set(key, (e = Engine.create(config)));
  return e;
};

describe('hash join on worker threads', () => {
  let duck: DuckDBSession;
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
  });
  afterAll(async () => {
    await duck?.close();
    await WorkerPool.closeAll();
  });

  async function run(c: JoinCase, config: CaseConfig, threads: number) {
    try {
      return await (await engineFor({ ...config, threads })).join(toJoinSpec(c.spec), c.left, c.right);
    } catch (e) {
      if (e instanceof UnsupportedJoinError && !UNIVERSAL.includes(config.hashmap)) return 'skip' as const;
      throw e;
    }
  }

  for (let from = 0; from < CASES; from += 8) {
    it(`cases ${from}..${from + 7}: every layout and mode at threads 2 and 4 gives the single-threaded answer, and DuckDB's`, async () => {
      const space = caseSpace((await Engine.create()).registry, { algorithms: ['hash'] });
      for (let i = from; i < from + 8; i++) {
        const c = randomCase(space, SEED, i);
        const cols = (t: Table) => t.schema.fields.map((f) => f.name);
        await duck.loadTable('l', c.left);
        await duck.loadTable('r', c.right);
        const expected = await duck.query(joinToSql(toJoinSpec(c.spec), { table: 'l', columns: cols(c.left) }, { table: 'r', columns: cols(c.right) }));
        await duck.run('DROP TABLE l; DROP TABLE r;');
        for (const hashmap of space.hashmaps) {
          for (const mode of MODES) {
            const config = { ...c.config, pushdown: 'auto', hashmap, ...mode, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 } as CaseConfig;
            const single = await run(c, config, 1);
            if (single === 'skip') continue;
            const duckCmp = compareResults(single.table, expected);
            expect(duckCmp.equal, `case ${i} ${hashmap} ${mode['hash.mode']} threads=1 vs DuckDB\n${formatComparison(duckCmp)}`).toBe(true);
            for (const threads of i % 2 === 0 ? [2, 4] : [2]) {
              const par = await run(c, config, threads);
              if (par === 'skip') throw new Error(`case ${i}: ${hashmap} ran single-threaded but was refused at threads=${threads}`);
              const cmp = compareResults(par.table, single.table);
              expect(cmp.equal, `case ${i} ${hashmap} ${mode['hash.mode']} threads=${threads} vs threads=1\n${formatComparison(cmp)}`).toBe(true);
              const used = String(par.metrics.operators.join?.details.threads);
              expect(used === String(threads) || used.startsWith('1 ('), `case ${i}: details.threads = ${used}`).toBe(true);
            }
          }
        }
      }
    });
  }

  const n = 20_000;
  const probeSide = new Table({
    k: vectorFromArray(Int32Array.from({ length: n }, (_, i) => i % 1000)),
    big: vectorFromArray(BigInt64Array.from({ length: n }, (_, i) => BigInt(i === 15_000 ? 1000 : i % 100))),
    s: vectorFromArray(Array.from({ length: n }, (_, i) => `row ${i}`), new Utf8()),
  });
  const buildSide = new Table({ k: vectorFromArray(Int32Array.from({ length: 1000 }, (_, i) => i)), v: vectorFromArray(Int32Array.from({ length: 1000 }, (_, i) => i * 2)) });

  it('workers start only for a probe that repays them, judged after the build published its filter; once started they serve later joins', async () => {
    // threads 3: a pool no other test here starts
    const sorted = (rows: number) => new Table(Array.from({ length: rows / 10_000 }, (_, b) => new Table({ k: vectorFromArray(Int32Array.from({ length: 10_000 }, (_, i) => b * 10_000 + i)) }).batches[0]!));
    const keys = new Table({ k: vectorFromArray(Int32Array.from({ length: 10 }, (_, i) => i * 3)) });
    const config = { join: 'hash', threads: 3, 'hash.build': 'right', pushdown: 'bounds' };
    const engine = await engineFor(config);
    const pool = engine.workers()!;
    const small = await engine.join({ type: 'inner', on: 'k=k' }, probeSide, buildSide);
    expect(small.metrics.operators.join!.details.threads).toBe(`1 (probe input of ${n} estimated rows, below parallel.minProbeRows=100000)`);
    const mid = await (await engineFor({ ...config, pushdown: 'none' })).join({ type: 'inner', on: 'k=k' }, sorted(150_000), keys);
    expect(mid.metrics.operators.join!.details.threads).toBe('1 (probe input of 150000 estimated rows, below parallel.minStartRows=25000000 to start the worker pool)');
    // 150K rows by the static estimate, but the build's bounds [0, 27] leave one 10K-row container
    const pruned = await engine.join({ type: 'inner', on: 'k=k' }, sorted(150_000), keys);
    expect(pruned.metrics.operators.join!.details.threads).toBe('1 (probe input of 10000 estimated rows, below parallel.minProbeRows=100000)');
    expect(pruned.table.numRows).toBe(10);
    expect(pool.started).toBe(false);
    // a join that repays the start starts the pool and says how it came up...
    const first = await (await engineFor({ ...config, pushdown: 'none', 'parallel.minStartRows': 100_000 })).join({ type: 'inner', on: 'k=k' }, sorted(150_000), keys);
    expect(first.metrics.operators.join!.details.threads).toBe('3');
    expect(first.metrics.operators.join!.details.workerStart).toMatch(/^3 workers from the compiled bundle( \(built now\))? in \d+ ms$/);
    expect(first.table.numRows).toBe(10);
    expect(pool.started).toBe(true);
    // ...and later joins use the started pool for anything above parallel.minProbeRows
    const warm = await engine.join({ type: 'inner', on: 'k=k' }, sorted(150_000), new Table({ k: vectorFromArray(Int32Array.from({ length: 10 }, (_, i) => i * 15_000)) }));
    expect(warm.metrics.operators.join!.details.threads).toBe('3');
    expect(warm.metrics.operators.join!.details.workerStart).toBeUndefined();
    expect(warm.table.numRows).toBe(10);
  });

  it('probe input in shared memory gives the same answer, and the workers say they ran', async () => {
    const engine = await engineFor({ join: 'hash', 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0, threads: 2, batchSize: 1024, 'hash.build': 'right' });
    const plain = await engine.join({ type: 'inner', on: 'k=k' }, probeSide, buildSide);
    const shared = await engine.join({ type: 'inner', on: 'k=k' }, shareTable(probeSide), buildSide);
    expect(plain.table.numRows).toBe(n);
    expect(compareResults(plain.table, shared.table).equal).toBe(true);
    expect(plain.metrics.operators.join!.details.threads).toBe('2');
    expect(plain.metrics.operators.join!.counters.morsels).toBeGreaterThanOrEqual(1);
    // the plain table's morsels were copied to the workers, the shared one's were not
    expect(plain.metrics.operators.join!.counters.morselBytesCopied).toBeGreaterThan(n * 4);
    expect(shared.metrics.operators.join!.counters.morselBytesCopied ?? 0).toBe(0);
  });

  it("the dynamic filter's row test runs on the workers (built-in filters and an extension's), dropping what the serial scan drops", async () => {
    const small = new Table({ k: vectorFromArray(Int32Array.from({ length: 100 }, (_, i) => i * 10)) });
    const bloomExtension = fileURLToPath(new URL('../../strategies/examples/bloom-pushdown.ts', import.meta.url));
    const variants = [
      { pushdown: 'inlist', 'pushdown.rowFilter': 'always' },
      { pushdown: 'map', 'pushdown.rowFilter': 'always', 'hash.mode': 'partitioned', 'hash.partitions': 3 },
      { pushdown: 'bloom', 'pushdown.rowFilter': 'always', extensions: [bloomExtension] },
    ];
    for (const v of variants) {
      const config = { join: 'hash', 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0, batchSize: 1024, 'hash.build': 'right', ...v };
      const serial = await (await engineFor({ ...config, threads: 1 })).join({ type: 'inner', on: 'k=k' }, probeSide, small);
      const par = await (await engineFor({ ...config, threads: 2 })).join({ type: 'inner', on: 'k=k' }, probeSide, small);
      expect(par.table.numRows, v.pushdown).toBe(n / 10);
      expect(compareResults(par.table, serial.table).equal, v.pushdown).toBe(true);
      const join = par.metrics.operators.join!;
      expect([v.pushdown, join.details.threads, join.details.workerRowTest]).toEqual([v.pushdown, '2', 'shared']);
      // 90% of the probe keys are not in the build: the exact filters drop all of them, the Bloom filter nearly all
      const dropped = join.counters.workerRowTestDropped ?? 0;
      if (v.pushdown === 'bloom') expect(dropped).toBeGreaterThan(0.8 * n);
      else expect(dropped, v.pushdown).toBe(0.9 * n);
    }
  });

  it('a typed error raised in a worker reaches the caller as that error, and the pool serves the next join', async () => {
    const engine = await engineFor({ join: 'hash', 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0, threads: 2, batchSize: 512, 'hash.build': 'right' });
    // row 15000's `big` is 1000: the cast fails only there, inside whichever worker probes it
    const bad = engine.join({ type: 'inner', on: 'k=k', filter: 'CAST(l.big AS TINYINT) >= 0' }, probeSide, buildSide);
    await expect(bad).rejects.toBeInstanceOf(ExpressionError);
    await expect(bad).rejects.toThrow(/Conversion Error/);
    const ok = await engine.join({ type: 'inner', on: 'k=k' }, probeSide, buildSide);
    expect(ok.table.numRows).toBe(n);
  });

  it('an abort mid-probe stops the join with the abort, and the pool serves the next join', async () => {
    const engine = await engineFor({ join: 'hash', 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0, threads: 2, batchSize: 256, 'hash.build': 'right' });
    const controller = new AbortController();
    const s = await engine.stream({ type: 'inner', on: 'k=k' }, probeSide, buildSide, { signal: controller.signal });
    let batches = 0;
    const err = await (async () => {
      for await (const _ of s.batches) if (++batches === 3) controller.abort();
    })().catch((e: unknown) => e);
    expect(err).toBeDefined();
    expect(batches).toBeLessThan(n / 256);
    const ok = await engine.join({ type: 'inner', on: 'k=k' }, probeSide, buildSide);
    expect(ok.table.numRows).toBe(n);
  });

  it('under a memory limit a parallel join either gives the right answer or a MemoryLimitError, never anything else', async () => {
    let refused = 0;
    for (const limit of [64 << 20, 4 << 20, 2 << 20, 1 << 20, 600_000, 300_000]) {
      const engine = await engineFor({ join: 'hash', 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0, threads: 2, batchSize: 2048, 'hash.build': 'right', memoryLimit: limit });
      try {
        const s = await engine.stream({ type: 'inner', on: 'k=k' }, probeSide, buildSide);
        let rows = 0;
        for await (const b of s.batches) rows += b.numRows; // streamed: the consumer holds nothing
        expect(rows, `memoryLimit=${limit}`).toBe(n);
      } catch (e) {
        expect(e, `memoryLimit=${limit}: ${(e as Error).message}`).toBeInstanceOf(MemoryLimitError);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(0);
  });

  it('morsels whose output takes several replies, interleaved in a worker, keep their own probe state (left passthrough, inner many-to-many)', async () => {
    // 200K probe rows of ~130-byte strings: a 64K-row morsel's output is past a reply's 8 MB, so
    // a worker drains it over several replies while its second morsel is opened
    const n = 200_000;
    const probe = new Table({
      k: vectorFromArray(Float64Array.from({ length: n }, (_, i) => (i * 7919) % 60_000)),
      s: vectorFromArray(Array.from({ length: n }, (_, i) => `${'p'.repeat(120)}-${i}`), new Utf8()),
    });
    const unique = new Table({ k: vectorFromArray(Float64Array.from({ length: 50_000 }, (_, i) => i)), v: vectorFromArray(Float64Array.from({ length: 50_000 }, (_, i) => i % 997)) });
    const dup = new Table({ k: vectorFromArray(Float64Array.from({ length: 50_000 }, (_, i) => i % 5000)), v: vectorFromArray(Float64Array.from({ length: 50_000 }, (_, i) => i % 13)) });
    const fold = (t: Table) => {
      let sum = 0;
      let nulls = 0;
      let bytes = 0;
      for (const b of t.batches) {
        const v = b.getChild('v')!;
        for (let i = 0; i < b.numRows; i++) {
          const x = v.get(i);
          if (x === null) nulls++;
          else sum += x as number;
        }
        for (const d of b.getChild('s')!.data) bytes += (d.valueOffsets as Int32Array)[d.length]! - (d.valueOffsets as Int32Array)[0]!;
      }
      return { rows: t.numRows, sum, nulls, bytes };
    };
    // the third: the workers' row test (bounds [0, 49999]) cuts each morsel into a new batch, which
    // the output's slices point into while the morsel is drained (it must not move with a reply)
    const cut = { pushdown: 'bounds', 'pushdown.rowFilter': 'always' };
    for (const [type, build, extra] of [
      ['left', unique, {}],
      ['inner', dup, {}],
      ['inner', unique, cut],
    ] as const) {
      const spec = { type, on: 'k=k', select: ['k', 's', 'v'] };
      const serial = fold((await (await engineFor({ threads: 1, 'hash.build': 'right', ...extra })).join(spec, probe, build)).table);
      const r = await (await engineFor({ threads: 2, 'hash.build': 'right', 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0, ...extra })).join(spec, probe, build);
      expect(String(r.metrics.operators.join?.details.threads)).toBe('2');
      if (extra === cut) expect(r.metrics.operators.join?.counters.workerRowTestDropped).toBeGreaterThan(0);
      expect(fold(r.table), type).toEqual(serial);
    }
  });

  it("partitioned mode builds its partitions' tables on the workers, and the answer is the single-threaded one", async () => {
    const n = 60_000;
    const probe = new Table({ k: vectorFromArray(Float64Array.from({ length: n }, (_, i) => (i * 31) % 20_000)) });
    const build = new Table({ k: vectorFromArray(Float64Array.from({ length: 30_000 }, (_, i) => i % 15_000)), v: vectorFromArray(Float64Array.from({ length: 30_000 }, (_, i) => i)) });
    const count = (t: Table) => {
      let sum = 0;
      for (const b of t.batches) for (const x of b.getChild('v')!.toArray() as Float64Array) sum += x;
      return { rows: t.numRows, sum };
    };
    for (const layout of ['chained', 'swiss', 'linear', 'auto']) {
      const config = { 'hash.mode': 'partitioned', 'hash.partitions': 4, 'hash.build': 'right', hashmap: layout, pushdown: 'auto' } as const;
      const serial = await (await engineFor({ ...config, threads: 1 })).join({ type: 'inner', on: 'k=k' }, probe, build);
      const parallel = await (await engineFor({ ...config, threads: 2, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 })).join({ type: 'inner', on: 'k=k' }, probe, build);
      expect(parallel.metrics.operators.join?.details.partitionsBuiltOn, layout).toBe('2 workers');
      expect(count(parallel.table), layout).toEqual(count(serial.table));
      expect(parallel.metrics.operators.join?.details.dynamicFilter).toBe(serial.metrics.operators.join?.details.dynamicFilter);
    }
  });

  it('collect-left: a build of several batches in shared memory is concatenated on the workers (payload) and here (keys), and the answer is the single-threaded one', async () => {
    const space = caseSpace((await Engine.create()).registry, { algorithms: ['hash'] });
    let onWorkers = 0;
    for (let i = 0; i < 16; i++) {
      const c = randomCase(space, SEED + 7, i);
      const both = { left: shareTable(c.left), right: shareTable(c.right) };
      for (const hashmap of ['chained', 'auto']) {
        const config = { ...c.config, pushdown: 'auto', hashmap, 'hash.mode': 'collect-left', 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 } as CaseConfig;
        const single = await run(c, config, 1);
        if (single === 'skip') continue;
        const par = await (await engineFor({ ...config, threads: 2 })).join(toJoinSpec(c.spec), both.left, both.right);
        const cmp = compareResults(par.table, single.table);
        expect(cmp.equal, `case ${i} ${hashmap}\n${formatComparison(cmp)}`).toBe(true);
        const concat = par.metrics.operators.join?.details.buildConcat;
        if (concat !== undefined) {
          expect(String(concat)).toMatch(/payload columns on 2 workers/);
          onWorkers++;
        }
      }
    }
    expect(onWorkers).toBeGreaterThan(4);
  });

  it('a full join against an empty build side with a dictionary column: every worker reply encodes (the padded side is one cached empty column)', async () => {
    const keys = vectorFromArray(Array.from({ length: 300 }, (_, i) => `k${i % 7}`), new Dictionary(new Utf8(), new Int32()));
    const left = new Table({ k: keys, v: vectorFromArray(Float64Array.from({ length: 300 }, (_, i) => i)) });
    const batches = Array.from({ length: 6 }, (_, b) => left.slice(b * 50, b * 50 + 50).batches).flat();
    const probe = new Table(batches);
    const right = new Table({ k: vectorFromArray([] as string[], new Dictionary(new Utf8(), new Int32())), w: vectorFromArray(new Float64Array(0)) });
    const r = await (await engineFor({ threads: 2, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0, 'hash.build': 'right', batchSize: 16 })).join({ type: 'full', on: 'k=k' }, probe, right);
    expect(String(r.metrics.operators.join?.details.threads)).toBe('2');
    expect(r.table.numRows).toBe(300);
    expect(r.table.getChild('k_right')!.nullCount).toBe(300);
  });
});
