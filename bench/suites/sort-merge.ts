/**
 * `sort-merge` suite (issue 11): the sort-merge join and the sort, against DuckDB (at joinlab's thread count, `--threads`) on
 * the same in-memory data, and against joinlab's own alternatives where a case compares two
 * strategies (`baseline`, `speedup = baselineMs / joinlabMs`). Sizes below are at `--scale 1`;
 * `--scale` multiplies every row count.
 *
 * - `skewed-semi`: one key, 10,000 rows a side, a left semi join with a residual filter that about
 *   1% of the pairs pass; `smj.existence=bitwise` (timed as joinlab) against `materializing` (the
 *   baseline), DuckDB's `SEMI JOIN` for the ratio. Two filters: `r.x % 100 = 0` (one inner row in
 *   100 passes for every outer row; the inner x are a shuffled 0..n-1, the first passing one is the
 *   45th at scale 1) and `r.y < l.x` (l.x a shuffled 0..n-1, r.y uniform in [0, 50n): ~1% of the
 *   pairs, different inner rows per outer row, and some outer rows (29 at scale 1) match nothing,
 *   so the bitwise stream cannot stop the group early). DuckDB counts the realized selectivity at
 *   setup.
 * - `presorted`: the hash-join suite's data (build 1M unique int64 keys, multiples of 10, with a
 *   float payload; probe 10M int64 uniform in [0, 20M), ~5% match), both sorted and declared so
 *   (`sortedTable`): the sort-merge join sorts nothing; the baseline is joinlab's hash join
 *   (`pushdown=auto`) on the same rows. count + sum(bv), as in hash-join.
 * - `sort`: 10M uniform int64 keys in [0, 2^50) + an int64 payload: `Engine.sort` (no memoryLimit:
 *   in memory), collected into a table, against DuckDB `CREATE OR REPLACE TABLE … AS SELECT * FROM
 *   … ORDER BY k` (the sorted rows materialised in DuckDB's own storage; nothing converted to JS).
 * - `spill`: 20M x 20M int64 keys uniform in [0, 40M) + an int64 payload a side (~10M output rows),
 *   unsorted, `join=sort-merge` with `memoryLimit` a tenth of the two inputs' bytes (the tables
 *   themselves are outside the pool): both sides must be sorted externally. Streamed and folded
 *   (count + sum), never collected. DuckDB runs the same join in a session of its own opened under
 *   the same `memory_limit` (its temp directory for spilling; its copy of the inputs counts against
 *   it), or with no limit if it cannot run there (the `duckdbMemoryLimit` fact says which). The
 *   case first runs at a tenth of its size (at least 2M a side): if that fails with a
 *   MemoryLimitError (a sort that cannot spill, or a limit too small for its merge) the case is
 *   listed as skipped, with the error.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Table } from 'apache-arrow';
import { Engine } from '../../composition.ts';
import { batchByteSize } from '../../core/arrow/size.ts';
import { MemoryLimitError } from '../../core/errors.ts';
import { Rng } from '../../core/random.ts';
import type { JoinSpecInput } from '../../core/spec.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { float64Data, int64Data, int64Values, tableOf, uniformInts } from '../../adapters/datagen/keys.ts';
import { sortedTable, type MemoryScan } from '../../operators/memory-scan/memory-scan.ts';
import { caseConfig, type BenchCase, type CaseFacts, type SuiteOverrides, suiteThreads } from '../harness.ts';

const BATCH_ROWS = 65_536;
/** The skewed case's batches: the one key group spans two batches a side (default batchSize). */
const SKEW_BATCH_ROWS = 8192;

/** A random permutation of 0..n-1 as doubles (seeded Fisher-Yates). */
function shuffled(n: number, seed: number): Float64Array {
  const rng = new Rng(seed);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    const t = out[i]!;
    out[i] = out[j]!;
    out[j] = t;
  }
  return out;
}

/** Uniform integers in [0, 2^50) (two 32-bit draws: Rng has 32 bits). */
function wideInts(n: number, seed: number): Float64Array {
  const rng = new Rng(seed);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(rng.next() * 2 ** 32) * 2 ** 18 + Math.floor(rng.next() * 2 ** 18);
  return out;
}

const int64Col = (v: ArrayLike<number>) => int64Data(int64Values(v.length, (i) => v[i]!));
const tableBytes = (t: Table) => t.batches.reduce((s, b) => s + batchByteSize(b), 0);

/** Streams a join and folds its output like the DuckDB query: rows, and the sum of column `sum`. */
export let lastSum = 0;
export async function foldJoin(engine: Engine, spec: JoinSpecInput, left: Table | MemoryScan, right: Table | MemoryScan, sum: string | null) {
  const s = await engine.stream(spec, left, right);
  let rows = 0;
  let total = 0;
  for await (const b of s.batches) {
    rows += b.numRows;
    const col = sum === null ? null : b.getChild(sum);
    if (col) {
      for (const d of col.data) {
        const v = d.values as Float64Array | BigInt64Array;
        if (v instanceof Float64Array) for (let i = 0; i < d.length; i++) total += v[i]!;
        else {
          // int64 payloads: the low words are enough to keep the fold from being dead code
          const w = new Int32Array(v.buffer, v.byteOffset, 2 * d.length);
          for (let i = 0; i < d.length; i++) total += w[2 * i]!;
        }
      }
    }
  }
  lastSum = total;
  return { rows, metrics: s.metrics };
}

type Metrics = Awaited<ReturnType<typeof foldJoin>>['metrics'];
const counter = (m: Metrics | null, name: string) => m?.operators.join?.counters[name] ?? 0;

// ------------------------------------------------------------------------------------------------
// skewed-semi
// ------------------------------------------------------------------------------------------------

export function skewedData(scale: number) {
  const n = Math.max(100, Math.round(10_000 * scale));
  const key = new Float64Array(n).fill(1);
  const left = tableOf({ k: int64Col(key), x: int64Col(shuffled(n, 11)) }, SKEW_BATCH_ROWS);
  const right = tableOf({ k: int64Col(key), x: int64Col(shuffled(n, 12)), y: int64Col(uniformInts(n, 50 * n, 13)) }, SKEW_BATCH_ROWS);
  return { n, left, right };
}

async function skewedCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides): Promise<BenchCase[]> {
  const d = skewedData(scale);
  await duck.loadTable('sm_skew_l', d.left);
  await duck.loadTable('sm_skew_r', d.right);
  const bitwise = await Engine.create(caseConfig({ join: 'sort-merge', 'smj.existence': 'bitwise' }, overrides));
  const materializing = await Engine.create(caseConfig({ join: 'sort-merge', 'smj.existence': 'materializing' }, overrides));
  const cases: BenchCase[] = [];
  for (const filter of ['r.x % 100 = 0', 'r.y < l.x']) {
    const on = 'l.k = r.k AND ' + filter;
    const [[passing]] = (await duck.queryRows(`SELECT count(*) FROM sm_skew_l l JOIN sm_skew_r r ON ${on}`)) as [[bigint]];
    const spec: JoinSpecInput = { type: 'left-semi', on: 'k=k', filter };
    const last: Record<'bitwise' | 'materializing', Metrics | null> = { bitwise: null, materializing: null };
    const run = (engine: Engine, which: keyof typeof last) => async () => {
      const { table, metrics } = await engine.join(spec, d.left, d.right);
      last[which] = metrics;
      return table.numRows;
    };
    cases.push({
      name: `skewed-semi ${d.n}x${d.n} one key, filter ${filter}, smj.existence=bitwise`,
      joinlab: run(bitwise, 'bitwise'),
      baseline: { name: 'materializing', run: run(materializing, 'materializing') },
      duckdb: async () => Number((await duck.queryRows(`SELECT count(*) FROM sm_skew_l l SEMI JOIN sm_skew_r r ON ${on}`))[0]![0]),
      facts: (): CaseFacts => ({
        pairSelectivity: Number(passing) / (d.n * d.n),
        outerRowsMatched: last.bitwise?.rows ?? -1,
        pairsEvaluated: counter(last.bitwise, 'pairsEvaluated'),
        baselinePairsEvaluated: counter(last.materializing, 'pairsEvaluated'),
        baselinePairsMaterialized: counter(last.materializing, 'pairsMaterialized'),
        peakReservedBytes: last.bitwise?.memory.peakReservedBytes ?? -1,
        baselinePeakReservedBytes: last.materializing?.memory.peakReservedBytes ?? -1,
      }),
    });
  }
  return cases;
}

// ------------------------------------------------------------------------------------------------
// presorted
// ------------------------------------------------------------------------------------------------

export function presortedData(scale: number) {
  const buildRows = Math.round(1_000_000 * scale);
  const probeRows = Math.round(10_000_000 * scale);
  const probeKeys = uniformInts(probeRows, buildRows * 20, 7).sort();
  const payload = new Float64Array(buildRows);
  for (let i = 0; i < buildRows; i++) payload[i] = (i % 1000) / 10;
  const build = tableOf({ k: int64Data(int64Values(buildRows, (i) => i * 10)), bv: float64Data(payload) }, BATCH_ROWS);
  const probe = tableOf({ k: int64Col(probeKeys) }, BATCH_ROWS);
  return { build, probe, buildRows, probeRows };
}

async function presortedCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides): Promise<BenchCase[]> {
  const d = presortedData(scale);
  await duck.loadTable('sm_pre_build', d.build);
  await duck.loadTable('sm_pre_probe', d.probe);
  const smj = await Engine.create(caseConfig({ join: 'sort-merge' }, overrides));
  const hash = await Engine.create(caseConfig({ join: 'hash', pushdown: 'auto' }, overrides));
  const probe = sortedTable(d.probe, [{ column: 'k' }], 'probe');
  const build = sortedTable(d.build, [{ column: 'k' }], 'build');
  const spec: JoinSpecInput = { type: 'inner', on: 'k=k', select: 'bv' };
  let mSmj: Metrics | null = null;
  let mHash: Metrics | null = null;
  return [
    {
      name: `presorted inner int64 count+sum, declared sorted, sort-merge (${d.buildRows / 1e6}M build x ${d.probeRows / 1e6}M probe)`,
      joinlab: async () => {
        const r = await foldJoin(smj, spec, probe, build, 'bv');
        mSmj = r.metrics;
        return r.rows;
      },
      baseline: {
        name: 'hash',
        run: async () => {
          const r = await foldJoin(hash, spec, d.probe, d.build, 'bv');
          mHash = r.metrics;
          return r.rows;
        },
      },
      duckdb: async () => Number((await duck.queryRows('SELECT count(*), sum(b.bv) FROM sm_pre_probe p JOIN sm_pre_build b ON p.k = b.k'))[0]![0]),
      facts: (): CaseFacts => ({
        order: mSmj?.operators.join?.details.order ?? '',
        keyGroups: counter(mSmj, 'keyGroups'),
        leftRowsRead: counter(mSmj, 'leftRows'),
        rightRowsRead: counter(mSmj, 'rightRows'),
        peakReservedBytes: mSmj?.memory.peakReservedBytes ?? -1,
        baselinePeakReservedBytes: mHash?.memory.peakReservedBytes ?? -1,
        baselineHashmap: mHash?.operators.join?.details.hashmap ?? '',
      }),
    },
  ];
}

// ------------------------------------------------------------------------------------------------
// sort
// ------------------------------------------------------------------------------------------------

export function sortData(scale: number): Table {
  const n = Math.round(10_000_000 * scale);
  return tableOf({ k: int64Col(wideInts(n, 21)), v: int64Data(int64Values(n, (i) => i)) }, BATCH_ROWS);
}

async function sortCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides): Promise<BenchCase[]> {
  const table = sortData(scale);
  await duck.loadTable('sm_sort_in', table);
  const engine = await Engine.create(caseConfig({}, overrides));
  let facts: CaseFacts = {};
  return [
    {
      name: `sort ${table.numRows / 1e6}M int64 keys + int64 payload, Engine.sort -> table vs CREATE TABLE AS … ORDER BY`,
      joinlab: async () => {
        const { table: out, metrics } = await engine.sort(table, [{ column: 'k' }]);
        facts = { peakReservedBytes: metrics.memory.peakReservedBytes, runsSpilled: metrics.sort.runsSpilled, bytesSpilled: metrics.sort.bytesSpilled };
        return out.numRows;
      },
      duckdb: async () => {
        await duck.run('CREATE OR REPLACE TABLE sm_sort_out AS SELECT * FROM sm_sort_in ORDER BY k');
        return Number((await duck.queryRows('SELECT count(*) FROM sm_sort_out'))[0]![0]);
      },
      facts: () => facts,
    },
  ];
}

// ------------------------------------------------------------------------------------------------
// spill
// ------------------------------------------------------------------------------------------------

export function spillData(scale: number) {
  const n = Math.round(20_000_000 * scale);
  // batches of at most 1/300 of the rows: the limit (a tenth of the inputs) holds ~30 of them a
  // side whatever the scale, as it does at full size with 64K-row batches
  const batchRows = Math.min(BATCH_ROWS, Math.max(1024, Math.floor(n / 300)));
  const left = tableOf({ k: int64Col(uniformInts(n, 2 * n, 31)), v: int64Data(int64Values(n, (i) => i)) }, batchRows);
  const right = tableOf({ k: int64Col(uniformInts(n, 2 * n, 32)), w: int64Data(int64Values(n, (i) => i)) }, batchRows);
  const inputBytes = tableBytes(left) + tableBytes(right);
  return { n, left, right, inputBytes, memoryLimit: Math.floor(inputBytes / 10) };
}

const SPILL_SPEC: JoinSpecInput = { type: 'inner', on: 'k=k' };

/**
 * Whether the sort-merge join completes at a tenth of its inputs' bytes (null), or why not: a trial
 * at a tenth of the case's rows, but at least 2M a side (3 s; smaller limits are too small for the
 * sort's merge with 8192-row output batches: 0.2M a side under 640 KB fails there) and at most the case.
 */
async function spillUnsupported(scale: number, overrides: SuiteOverrides): Promise<string | null> {
  const d = spillData(Math.min(scale, Math.max(scale / 10, 0.1)));
  const engine = await Engine.create(caseConfig({ join: 'sort-merge', memoryLimit: d.memoryLimit }, overrides));
  try {
    await foldJoin(engine, SPILL_SPEC, d.left, d.right, null);
    return null;
  } catch (e) {
    if (e instanceof MemoryLimitError) return `a ${d.n / 1e6}M x ${d.n / 1e6}M trial under memoryLimit=${d.memoryLimit} (a tenth of its inputs) failed: ${e.message}`;
    throw e;
  }
}

/**
 * DuckDB in a session of its own under `memoryLimit` bytes, with `tables` loaded, for a spilling
 * case: its tables live in its buffer pool and count against the limit (spilled to its temp
 * directory), as joinlab's pool does not count joinlab's Arrow inputs; nothing of the other cases'
 * tables competes for the limit. The tables are loaded before the limit is set (DuckDB's appender
 * cannot load a table larger than the limit). If DuckDB cannot run `sql` there at all, the limit
 * is lifted; `limit` says which (the case's `duckdbMemoryLimit` fact).
 */
export async function limitedDuckDB(duck: DuckDBSession, overrides: SuiteOverrides, memoryLimit: number, tables: Readonly<Record<string, Table>>, sql: string): Promise<{ session: DuckDBSession; limit: string }> {
  const session = await DuckDBSession.open({ threads: suiteThreads(overrides) });
  const duckTemp = join(tmpdir(), 'joinlab-bench', 'duckdb-spill'); // not ./.tmp, DuckDB's default
  mkdirSync(duckTemp, { recursive: true }); // DuckDB does not create its parent
  await session.run(`SET temp_directory = '${duckTemp}'`);
  for (const [name, table] of Object.entries(tables)) await session.loadTable(name, table);
  await session.run(`SET memory_limit = '${memoryLimit}B'`);
  try {
    await session.queryRows(sql);
    return { session, limit: String(memoryLimit) };
  } catch (e) {
    // by value: `RESET memory_limit` reads back as the default but leaves the buffer pool at the old limit (DuckDB 1.5.6)
    const [[unlimited]] = (await duck.queryRows("SELECT current_setting('memory_limit')")) as [[string]];
    await session.run(`SET memory_limit = '${unlimited}'`);
    return { session, limit: `none (under ${memoryLimit} B: ${(e as Error).message.split('\n')[0]})` };
  }
}

async function spillCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides): Promise<BenchCase[]> {
  const n = Math.round(20_000_000 * scale);
  const name = `spill inner ${n / 1e6}M x ${n / 1e6}M int64 unsorted, sort-merge, memoryLimit = inputs / 10`;
  const why = await spillUnsupported(scale, overrides);
  if (why !== null) return [{ name, skipped: why, joinlab: () => Promise.reject(new Error(why)), duckdb: () => Promise.reject(new Error(why)) }];
  const d = spillData(scale);
  const engine = await Engine.create(caseConfig({ join: 'sort-merge', memoryLimit: d.memoryLimit }, overrides));
  const sql = 'SELECT count(*), sum(l.v) FROM sm_spill_l l JOIN sm_spill_r r ON l.k = r.k';
  const { session: limited, limit: duckLimit } = await limitedDuckDB(duck, overrides, d.memoryLimit, { sm_spill_l: d.left, sm_spill_r: d.right }, sql);
  let m: Metrics | null = null;
  return [
    {
      name,
      iterations: { timed: 3, warmup: 0 },
      joinlab: async () => {
        const r = await foldJoin(engine, SPILL_SPEC, d.left, d.right, 'v');
        m = r.metrics;
        return r.rows;
      },
      duckdb: async () => Number((await limited.queryRows(sql))[0]![0]),
      close: async () => limited.close(),
      facts: (): CaseFacts => ({
        inputBytes: d.inputBytes,
        memoryLimit: d.memoryLimit,
        peakReservedBytes: m?.memory.peakReservedBytes ?? -1,
        spilledBytes: m?.operators.join?.spilledBytes ?? 0,
        spillFiles: m?.operators.join?.spillFiles ?? 0,
        leftSortRunsSpilled: counter(m, 'leftSortRunsSpilled'),
        rightSortRunsSpilled: counter(m, 'rightSortRunsSpilled'),
        leftSortBytesSpilled: counter(m, 'leftSortBytesSpilled'),
        rightSortBytesSpilled: counter(m, 'rightSortBytesSpilled'),
        groupsSpilled: counter(m, 'groupsSpilled'),
        rowsSpilled: counter(m, 'rowsSpilled'),
        duckdbMemoryLimit: duckLimit,
      }),
    },
  ];
}

/** The suite; `SORT_MERGE_CASES=skewed,presorted,sort,spill` (any subset) runs only those groups. */
export async function sortMergeCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides = {}): Promise<BenchCase[]> {
  const groups = { skewed: skewedCases, presorted: presortedCases, sort: sortCases, spill: spillCases } as const;
  const wanted = (process.env['SORT_MERGE_CASES'] ?? Object.keys(groups).join(',')).split(',').map((s) => s.trim());
  const cases: BenchCase[] = [];
  for (const [g, make] of Object.entries(groups)) if (wanted.includes(g)) cases.push(...(await make(duck, scale, overrides)));
  return cases;
}
