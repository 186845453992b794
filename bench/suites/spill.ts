/**
 * `spill` suite (issue 32): a hash join whose build side does not fit — the sort-merge suite's
 * spill data (20M x 20M int64 keys uniform in [0, 40M) + an int64 payload a side, ~10M output rows
 * at `--scale 1`) joined with `join=hash` under `memoryLimit` = a tenth of the two inputs' bytes,
 * so the grace hash join (operators/hash-join/grace.ts) partitions both sides to disk. Against
 * DuckDB in a session of its own opened under the same `memory_limit` (its temp directory for
 * spilling; lifted if DuckDB cannot run there, the `duckdbMemoryLimit` fact says so), and against
 * joinlab's sort-merge join under the same limit (the baseline: `speedup` above 1 means the grace
 * hash join was faster). Streamed and folded (count + sum of l.v), never collected; the facts give
 * the peak the pool reserved (at most the limit: the pool refuses anything more) and what spilled.
 */
import { Engine } from '../../composition.ts';
import type { JoinSpecInput } from '../../core/spec.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { caseConfig, type BenchCase, type CaseFacts, type SuiteOverrides } from '../harness.ts';
import { foldJoin, limitedDuckDB, spillData } from './sort-merge.ts';

const SPEC: JoinSpecInput = { type: 'inner', on: 'k=k' };
type Metrics = Awaited<ReturnType<typeof foldJoin>>['metrics'];

export async function spillCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides): Promise<BenchCase[]> {
  const d = spillData(scale);
  const sql = 'SELECT count(*), sum(l.v) FROM spill_l l JOIN spill_r r ON l.k = r.k';
  const { session: limited, limit: duckLimit } = await limitedDuckDB(duck, overrides, d.memoryLimit, { spill_l: d.left, spill_r: d.right }, sql);
  const hash = await Engine.create(caseConfig({ join: 'hash', memoryLimit: d.memoryLimit }, overrides));
  const sortMerge = await Engine.create(caseConfig({ join: 'sort-merge', memoryLimit: d.memoryLimit }, overrides));
  let m: Metrics | null = null;
  let baseline: Metrics | null = null;
  const counter = (name: string) => m?.operators.join?.counters[name] ?? 0;
  return [
    {
      name: `spill inner ${d.n / 1e6}M x ${d.n / 1e6}M int64 unsorted, hash (grace), memoryLimit = inputs / 10`,
      iterations: { timed: 2, warmup: 0 },
      joinlab: async () => {
        const r = await foldJoin(hash, SPEC, d.left, d.right, 'v');
        m = r.metrics;
        return r.rows;
      },
      baseline: {
        name: 'sort-merge',
        run: async () => {
          const r = await foldJoin(sortMerge, SPEC, d.left, d.right, 'v');
          baseline = r.metrics;
          return r.rows;
        },
      },
      duckdb: async () => Number((await limited.queryRows(sql))[0]![0]),
      close: async () => limited.close(),
      facts: (): CaseFacts => ({
        inputBytes: d.inputBytes,
        memoryLimit: d.memoryLimit,
        peakReservedBytes: m?.memory.peakReservedBytes ?? -1,
        baselinePeakReservedBytes: baseline?.memory.peakReservedBytes ?? -1,
        spill: m?.operators.join?.details.spill ?? 'none',
        dynamicFilter: m?.operators.join?.details.dynamicFilter ?? 'none',
        spilledBytes: m?.operators.join?.spilledBytes ?? 0,
        spillFiles: m?.operators.join?.spillFiles ?? 0,
        gracePairsJoined: counter('gracePairsJoined'),
        partitionMs: Math.round(counter('partitionMs')),
        duckdbMemoryLimit: duckLimit,
      }),
    },
  ];
}
