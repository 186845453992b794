/**
 * Both workloads end to end at a small scale factor: every query run by joinlab and compared with
 * DuckDB (multiset, and the ORDER BY columns in order), under each config of CONFIGS.
 *
 * What makes this test able to fail: every answered query must equal DuckDB's; no query may end
 * in an error other than UnsupportedSqlError; the queries joinlab refuses must be exactly the
 * config's expected unsupported list, and those that run past the timeout exactly its timeout
 * list. So a wrong answer, a crash or a query that regresses from answered to refused or slow
 * fails it (today every query is answered, but for the cross products the written order pins).
 *
 * CONFIGS are `--set`-style overrides: the planned join order, the written one and a random one;
 * then each information-passing strategy (`sip`) under the planned and a random order, and each
 * filter kind of predicate transfer.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../core/config/schema.ts';
import { loadConfig } from '../../composition.ts';
import { geometricMean, runWorkload, summarize, type QueryResult } from './run.ts';
import type { WorkloadName } from './workloads.ts';

const SF = 0.01;
/** Per query; the expected timeouts cost this much each. Passing queries take well under 2 s at SF 0.01. */
const TIMEOUT_MS = 8_000;

type Expected = Record<WorkloadName, { readonly unsupported: readonly string[]; readonly timeout: readonly string[] }>;

/** Every query answered (today's coverage: a refusal or a timeout that appears fails the test). */
const ALL_ANSWERED: Expected = { ssb: { unsupported: [], timeout: [] }, tpch: { unsupported: [], timeout: [] } };

/**
 * Each a list of `key=value` overrides, as `--set` takes them, with what it is expected to leave
 * unanswered: the join orders the planner chooses (cost), pins (written) and draws (random).
 */
const CONFIGS: readonly { readonly name: string; readonly set: readonly string[]; readonly expected: Expected }[] = [
  { name: 'default', set: [], expected: ALL_ANSWERED },
  // SSB q4.1 and q4.2 are written `FROM dwdate, customer, supplier, part, lineorder`: in that order
  // the plan starts with cross products of the dimensions, which is what `written` pins (q4.3's
  // dimension filters are selective enough at SF 0.01 for it to finish)
  { name: 'written join order', set: ['sql.joinOrder=written'], expected: { ...ALL_ANSWERED, ssb: { unsupported: [], timeout: ['q4.1', 'q4.2'] } } },
  { name: 'random join order', set: ['sql.joinOrder=random', 'sql.joinOrderSeed=3'], expected: ALL_ANSWERED },
  // every information-passing strategy (sip) under the planned order and a random one, and each
  // filter kind predicate transfer can build
  ...['none', 'lip', 'transfer', 'yannakakis'].flatMap((sip, i) => [
    { name: `sip=${sip}`, set: [`sip=${sip}`], expected: ALL_ANSWERED },
    { name: `sip=${sip}, random join order`, set: [`sip=${sip}`, 'sql.joinOrder=random', `sql.joinOrderSeed=${11 + i}`], expected: ALL_ANSWERED },
  ]),
  ...['bloom', 'exact', 'bounds', 'policy'].map((filter) => ({ name: `sip=transfer, sip.filter=${filter}`, set: ['sip=transfer', `sip.filter=${filter}`], expected: ALL_ANSWERED })),
];

const names = (qs: readonly QueryResult[], status: QueryResult['status']) => qs.filter((q) => q.status === status).map((q) => q.name);

for (const c of CONFIGS) {
  describe(`workloads at SF ${SF}, ${c.name} config`, () => {
    for (const workload of ['ssb', 'tpch'] as const) {
      it(`${workload}: every answered query equals DuckDB, the rest are the expected refusals and timeouts`, async () => {
        const config = await loadConfig({ set: [...c.set, 'threads=1'] });
        const r = await runWorkload({ workload, sf: SF, config, compare: true, duckdb: false, warmup: 0, repeat: 1, timeoutMs: TIMEOUT_MS });
        const show = (status: QueryResult['status']) => r.queries.filter((q) => q.status === status).map((q) => `${q.name}: ${q.message}`);
        expect(show('different'), 'answers that differ from DuckDB').toEqual([]);
        expect(show('error'), 'errors other than unsupported SQL').toEqual([]);
        expect(names(r.queries, 'unsupported'), 'refused queries').toEqual(c.expected[workload].unsupported);
        expect(names(r.queries, 'timeout'), 'queries past the timeout').toEqual(c.expected[workload].timeout);
        const expectPassed = r.queries.length - c.expected[workload].unsupported.length - c.expected[workload].timeout.length;
        expect(r.summary.counts.passed).toBe(expectPassed);
        expect(r.summary.total).toBe(workload === 'ssb' ? 13 : 22);
        for (const q of r.queries.filter((x) => x.status === 'passed')) {
          expect(q.rows, q.name).toBe(q.duckdbRows);
          expect(q.scans.length, `${q.name} reports its scans`).toBeGreaterThan(0);
        }
      });
    }
  });
}

describe('the runner', () => {
  it('summarises statuses and the geometric mean of the passed queries', () => {
    const q = (name: string, status: QueryResult['status'], ratio: number | null): QueryResult => ({
      name,
      status,
      ratio,
      joinlabMs: null,
      duckdbMs: null,
      joinlabRunsMs: [],
      duckdbRunsMs: [],
      rows: null,
      duckdbRows: null,
      joins: 0,
      scans: [],
    });
    const s = summarize([q('a', 'passed', 2), q('b', 'passed', 8), q('c', 'different', 100), q('d', 'timeout', null)], true);
    expect(s.counts).toMatchObject({ passed: 2, different: 1, timeout: 1, unsupported: 0, error: 0 });
    expect(s.geomeanRatio).toBeCloseTo(4, 10);
    expect(s.allPassed).toBe(false);
    const ran = summarize([q('a', 'ran', 3)], false);
    expect(ran.allPassed).toBe(true);
    expect(ran.geomeanRatio).toBeCloseTo(3, 10);
    expect(geometricMean([])).toBeNull();
  });

  it('times both engines, warm-up runs unmeasured, repeat runs measured', async () => {
    const r = await runWorkload({ workload: 'ssb', sf: SF, queries: ['q1.1'], config: parseConfig({ threads: 1 }), warmup: 1, repeat: 3 });
    const [q] = r.queries;
    expect(q!.status).toBe('ran');
    expect(q!.joinlabRunsMs).toHaveLength(3);
    expect(q!.duckdbRunsMs).toHaveLength(3);
    expect(q!.ratio).toBeCloseTo(q!.joinlabMs! / q!.duckdbMs!, 10);
    expect(r.data.cached).toBe(true); // written by the test above (or an earlier run)
    expect(r.summary.allPassed).toBe(true);
  });

  it('stops at once when the caller aborts, with the abort reason', async () => {
    const controller = new AbortController();
    controller.abort(new Error('interrupted'));
    await expect(runWorkload({ workload: 'ssb', sf: SF, queries: ['q1.1'], config: parseConfig({ threads: 1 }), signal: controller.signal })).rejects.toThrow('interrupted');
  });
});
