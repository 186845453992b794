/**
 * The report renders hostile text inert (escaped, no scripts, nothing fetched) and draws the
 * charts and terminal table from a results object alone.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../core/config/schema.ts';
import { summarizeComparisons, withComparisons } from './compare.ts';
import { summarizeOrders } from './orders.ts';
import { Int64 } from 'apache-arrow';
import { inlistPushdown } from '../../strategies/pushdown/inlist.ts';
import { batchOf, buildPartitions, contextFor, kindsFor, testConfig, vec } from '../../strategies/pushdown/test-support.ts';
import { barChart, datasetCharts, escapeHtml, fallbacks, fastestNames, fastestText, filterLabel, formatBytes, formatResultsTable, renderReport, runConditions, winnersOf } from './report.ts';
import type { OrderRunResult } from './results.ts';
import { configJson, stats, type DatasetResult, type ExperimentResults, type VariantResult } from './runner.ts';

const EVIL = `<script>alert("x")</script> & 'quotes'`;

function variant(name: string, ms: number[], pruned: number, parityOk = true): VariantResult {
  return {
    name,
    status: 'ok',
    overrides: { pushdown: name },
    config: configJson(parseConfig({ pushdown: 'map' })),
    algorithm: 'hash',
    time: stats(ms),
    joinMs: 1,
    rows: 42,
    probeSide: 'left',
    probe: { containersTotal: 10, containersPruned: pruned, rowsDecoded: 1000 * (10 - pruned), rowsAfterFilter: 5, bytesDecoded: 2048, bytesSkipped: 0, bytesRead: 1024 },
    peakReservedBytes: 3 * 1024 * 1024,
    dynamicFilter: EVIL,
    parity: { equal: parityOk, missing: parityOk ? 0 : 2, extra: parityOk ? 0 : 1, actualRows: 42, expectedRows: 43, schemaProblems: [] },
    ratio: 2,
  };
}

function dataset(name: string): DatasetResult {
  return {
    name,
    data: { kind: 'generator', generator: 'sparse', params: { probeRows: 100, rowsPerKey: 10, period: 10, islandWidth: 2 }, seed: 1, rowGroupSize: 2048 },
    files: { left: { path: `/d/${EVIL}/left.parquet`, rows: 100, rowGroups: 10, bytes: 999 }, right: { path: '/d/right.parquet', rows: 4, rowGroups: 1, bytes: 99 } },
    join: { type: 'inner', on: 'k=k', filter: EVIL },
    sql: `SELECT * FROM x WHERE a < b AND c = '${EVIL}'`,
    variants: [
      variant('none', [3, 1, 2], 0),
      variant(EVIL, [5], 7, false),
      { name: 'hash on a range', status: 'unsupported', reason: `cannot ${EVIL}`, overrides: {}, config: configJson(parseConfig({})), parity: null, ratio: null },
    ],
    duckdb: { name: 'duckdb', threads: 1, time: stats([1, 1.5]), rows: 42 },
  };
}

const RESULTS: ExperimentResults = {
  experiment: { name: EVIL, description: EVIL, source: '/x/e.yaml', copy: 'e.yaml', repeat: 3, warmup: 1, duckdb: true, parity: true, threads: 1, extensions: [] },
  timestamp: '2025-01-01T00:00:00.000Z',
  wallMs: 1234,
  machine: { os: 'Linux', platform: 'linux', arch: 'x64', cpus: 2, cpuModel: EVIL, memoryBytes: 1 << 30, freeMemoryBytes: 1 << 29, node: 'v20', joinlab: '0.1.0', duckdb: 'v1.5.6', duckdbNodeApi: '1.5.6-r.1' },
  datasets: [dataset('one'), dataset('two')],
  parityOk: false,
  out: '/out',
};

describe('report', () => {
  it('escapes every piece of text and has no scripts', () => {
    const html = renderReport(RESULTS);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain(EVIL);
    expect(html).toContain(escapeHtml(EVIL));
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).not.toMatch(/\b(src|href)=/); // nothing fetched
  });

  it('draws five charts per data set, with whiskers, the DuckDB bar and unsupported rows', () => {
    const html = renderReport(RESULTS);
    expect(html.match(/<svg/g)).toHaveLength(10);
    expect(html).toContain('Some answers differ from DuckDB');
    expect(html).toContain('✗ (2 missing, 1 extra)');
    const chart = barChart('t', [
      { label: 'a', value: 2, lo: 1, hi: 3, text: '2 ms' },
      { label: 'b', value: null, text: 'unsupported' },
    ]);
    expect(chart.match(/<rect/g)).toHaveLength(1);
    expect(chart.match(/<line/g)!.length).toBe(5 + 3); // 5 grid lines + one whisker (3 lines)
    expect(chart).toContain('unsupported');
  });

  it('formats the terminal table', () => {
    const text = formatResultsTable(RESULTS);
    expect(text).toContain('median ms');
    expect(text).toMatch(/none\s+2\s+1\.00–3\.00\s+3\s+2\s+42\s+0\/10\s+10000\s+5\s+2\.0 KiB\s+3\.0 MiB\s+<script>.*✓/);
    expect(text).toContain('duckdb (threads=1)');
    expect(text).toContain('hash on a range: unsupported — cannot');
    expect(text).toContain('winners per data set');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
  });

  it('shows the short filter label in tables, the full description as tooltip and in a details block', () => {
    const long = `k IN (${Array.from({ length: 150 }, (_, i) => i).join(', ')})`;
    const v: VariantResult = { ...variant('inlist', [2], 3), dynamicFilter: long, dynamicFilterLabel: 'bounds + in(150)' };
    const d: DatasetResult = { ...dataset('one'), variants: [v, { ...variant('raw', [2], 3), dynamicFilter: long }] };
    expect(filterLabel(v)).toBe('bounds + in(150)');
    expect(filterLabel(d.variants[1]!)).toHaveLength(60); // no label: the description, cut
    const html = renderReport({ ...RESULTS, datasets: [d] });
    expect(html).toContain('>bounds + in(150)</td>');
    expect(html).toContain(`title="${long}"`);
    expect(html).toContain('<details><summary>dynamic filters in full</summary>');
  });

  it('names the winners per data set: fastest median, fewest rows decoded (ties listed)', () => {
    const d: DatasetResult = { ...dataset('w'), variants: [variant('a', [5], 2), variant('b', [3], 2), variant('c', [4], 1)] };
    const w = winnersOf(d);
    expect(w.fastest).toEqual({ name: 'b', medianMs: 3, ratio: 2, interval: '3.00–3.00 (min–max)' });
    // one run each: the ranges are points, none overlaps b's, so b won outright
    expect(w.tied).toEqual(['b']);
    expect(w.fewestDecoded).toEqual({ names: ['a', 'b'], rowsDecoded: 8000 });
    expect(w.duckdbMs).toBe(1.25);
    const html = renderReport(RESULTS);
    expect(html).toContain('Winners per data set');
  });
});

describe('report: ties and counters', () => {
  it('the winners say "tie" and list every variant whose 95% interval overlaps the fastest\'s, with their counters', () => {
    const auto = variant('auto', [64, 60, 70, 130, 62, 125, 61], 7);
    const map = variant('map', [131, 60, 140, 65, 135, 66, 128], 7);
    const none = variant('none', [300, 301, 302, 299, 300], 0);
    const d: DatasetResult = { ...dataset('t'), variants: [none, map, auto] };
    const w = winnersOf(d);
    expect(w.fastest?.name).toBe('auto');
    expect(w.tied).toEqual(['auto', 'map']);
    expect(w.by).toBe('ci95');
    expect(fastestText(w)).toBe('tie: auto, map');
    expect(w.counters.map((c) => [c.name, c.rowsDecoded, c.pruned])).toEqual([
      ['auto', 3000, '7/10'],
      ['map', 3000, '7/10'],
    ]);
    const text = formatResultsTable({ ...RESULTS, datasets: [d, { ...d, name: 'u', variants: [none, { ...map, probe: { ...map.probe!, rowsDecoded: 9000 } }, auto] }] });
    expect(text).toMatch(/data set\s+fastest\s+median ms\s+95% CI ms\s+x duckdb\s+rows decoded\s+bytes decoded\s+pruned\/total\s+filter/);
    // the tied variants agree on what they decoded: one value; else each's
    expect(text).toMatch(/^t\s+tie: auto, map\s+64\s+\S+\s+2\s+3000\s+2\.0 KiB\s+7\/10/m);
    expect(text).toMatch(/^u\s+tie: auto, map\s+64\s+\S+\s+2\s+3000 \(auto\); 9000 \(map\)\s+2\.0 KiB/m);
    expect(text).toContain("'tie:' lists every variant whose 95% CI");
    const html = renderReport({ ...RESULTS, datasets: [d, d] });
    expect(html).toContain('<ul class="names"><li>tie:</li><li>auto</li><li>map</li></ul>');
    expect(html).toContain('95% CI ms');
  });

  it('one run each: the interval is unknown, the min–max range stands in, marked', () => {
    const d: DatasetResult = { ...dataset('w'), variants: [variant('a', [5, 6], 2), variant('b', [3, 4], 2)] };
    const text = formatResultsTable({ ...RESULTS, datasets: [d] });
    expect(text).toMatch(/^a\s+5\.5\s+5\.00–6\.00 \(min–max\)\s+2\s/m);
    expect(winnersOf(d)).toMatchObject({ tied: ['b'], by: 'min-max' });
  });

  it('the page states the run conditions: load average, malloc settings, thread counts', () => {
    const machine = {
      ...RESULTS.machine,
      loadAverage: { start: [1.5, 1, 0.5], end: [2, 1.25, 0.75] },
      allocator: { MALLOC_MMAP_THRESHOLD_: '33554432', MALLOC_TRIM_THRESHOLD_: 'not set' },
      threads: { joinlab: { none: 2, map: 2 }, duckdb: 2 },
    };
    expect(runConditions(machine)).toBe(
      'load average (1/5/15 min) 1.50 1.00 0.50 at start, 2.00 1.25 0.75 at end · malloc: MALLOC_MMAP_THRESHOLD_ 33554432, MALLOC_TRIM_THRESHOLD_ not set · threads: joinlab 2, DuckDB 2',
    );
    expect(renderReport({ ...RESULTS, machine })).toContain('MALLOC_TRIM_THRESHOLD_ not set');
    expect(runConditions(RESULTS.machine)).toBe(''); // older results
  });
});

describe('report: memory and bytes, what ran, readable from 800 px', () => {
  /** The description the `inlist` policy really publishes for a build of `keys` distinct keys (strategies/pushdown/inlist.ts). */
  function inlistDescription(keys: number, config: Record<string, unknown> = {}): string {
    const kinds = kindsFor([new Int64()], [new Int64()]);
    const [part] = buildPartitions(batchOf({ b: vec(new Int64(), Array.from({ length: keys }, (_, i) => BigInt(3 * i))) }), ['b'], kinds, 1);
    return inlistPushdown.planPartition(part!, contextFor([new Int64()], kinds, ['k'], testConfig(config)))!.description;
  }
  const inlist = (description: string, pushdown = 'inlist'): VariantResult => ({ ...variant('inlist', [2], 3), config: configJson(parseConfig({ pushdown })), dynamicFilter: description });

  it('charts bytes decoded and peak memory beside time, pruning and rows decoded', () => {
    const charts = datasetCharts(dataset('one'));
    expect(charts).toHaveLength(5);
    expect(charts[3]).toContain('Probe bytes decoded');
    expect(charts[3]).toContain('>2.0 KiB</text>');
    expect(charts[4]).toContain('Peak memory reserved by the join');
    expect(charts[4]).toContain('>3.0 MiB</text>');
    expect(charts[4]).toContain('>4 MiB</text>'); // the axis ends at a round number of its unit, in quarters
    expect(charts[4]).toContain('>1 MiB</text>');
    expect(charts[4]).toContain('unsupported'); // the variant that did not run
    const sql = datasetCharts({ kind: 'sql', name: 'q', tables: {}, sql: 'SELECT 1', variants: [variant('a', [1], 1)], duckdb: null });
    expect(sql[3]).toContain('Bytes decoded, every table scan');
    expect(sql[4]).toContain('Peak memory reserved, the largest join');
  });

  it('charts take the width they have (a viewBox, width 100%) and tables scroll in their own box', () => {
    const html = renderReport(RESULTS);
    expect(html).not.toMatch(/<svg[^>]* width="\d+"/);
    expect(html.match(/<svg[^>]* width="100%" viewBox="0 0 \d+ \d+"/g)).toHaveLength(10);
    const tables = html.match(/<table/g)!.length;
    expect(html.match(/<div class="scroll"><table/g)).toHaveLength(tables);
    expect(html).toMatch(/td\.n\{[^}]*white-space:nowrap/);
    expect(html).toMatch(/\.scroll\{overflow-x:auto/);
  });

  it("says what ran when the IN list fell back to the map, from the policy's own description", () => {
    const over = inlistDescription(992);
    expect(over).toContain('[IN list fallback: more than 150 distinct values]');
    expect(fallbacks(inlist(over))).toEqual(['inlist → map (992 rows, > 150 distinct)']);
    expect(fallbacks(inlist(over, 'auto'))).toEqual(['auto → map (992 rows, > 150 distinct)']);
    expect(fallbacks(inlist(inlistDescription(40, { 'pushdown.inlistMaxBytes': 64 })))).toEqual(['inlist → map (40 rows, > 64 B of keys)']);
    expect(fallbacks(inlist(inlistDescription(150)))).toEqual([]); // within the limits: an IN list, nothing fell back
    // a query's joins (in the order they ran), a partitioned build
    const under = inlistDescription(5);
    expect(fallbacks({ ...inlist(`${under} ; ${over} ; ${over}`, 'auto'), joins: 3 })).toEqual(['auto → map in joins 2, 3 (> 150 distinct)']);
    expect(fallbacks({ ...inlist(`${under} ; ${over}`, 'auto'), joins: 2 })).toEqual(['auto → map in join 2 (992 rows, > 150 distinct)']);
    const partitioned = `CASE partition(k) WHEN 0 THEN ${over} WHEN 1 THEN ${under} WHEN 2 THEN ${over} END`;
    expect(fallbacks({ ...inlist(partitioned), dynamicFilterLabel: '3 partitions: bounds + map(992, swiss) | bounds + in(5)' })).toEqual(['inlist → map in 2 of 3 partitions (> 150 distinct)']);
    expect(fallbacks({ ...inlist(over), status: 'timeout' })).toEqual([]);
    const sip: VariantResult = { ...variant('y', [1], 1), sip: [{ strategy: 'yannakakis', root: null, note: 'cyclic join graph: no join tree for a full reduction, fell back to dynamic', joinFilters: true, adaptive: false, transfers: [] }] };
    expect(fallbacks(sip)).toEqual(['yannakakis → dynamic (cyclic join graph)']);
    // in the variant's own cell, and as a note under the terminal table
    const results = { ...RESULTS, datasets: [{ ...dataset('one'), variants: [inlist(over), variant('none', [3], 0)] }] };
    expect(renderReport(results)).toContain('<td class="variant">inlist<div class="ran">inlist → map <span class="why">(992 rows, &gt; 150 distinct)</span></div></td>');
    expect(formatResultsTable(results)).toContain('  inlist: ran inlist → map (992 rows, > 150 distinct)');
  });

  it('the winners table can list several names in one cell (ties), the hook statistics will fill', () => {
    const d: DatasetResult = { ...dataset('w'), variants: [variant('a', [5], 2), variant('b', [3], 2), variant('c', [4], 1)] };
    expect(fastestNames(winnersOf(d))).toEqual(['b']);
    const html = renderReport({ ...RESULTS, datasets: [d, dataset('two')] });
    expect(html).toContain('<td>b</td>');
    expect(html).toContain('<td><ul class="names"><li>a</li><li>b</li></ul></td>'); // fewest rows decoded: a tie
  });
});

describe('report: against the baseline, and over join orders', () => {
  const order = (o: string, ms: number, largest: number, equal = true): OrderRunResult => ({
    order: o,
    status: 'ok',
    time: stats([ms]),
    joinMs: 1,
    rows: 42,
    joins: 2,
    joinRows: [largest, 1],
    largestJoinRows: largest,
    parity: { equal, missing: equal ? 0 : 1, extra: 0, actualRows: 42, expectedRows: 42, schemaProblems: [] },
  });
  const withOrders = (v: VariantResult, orders: OrderRunResult[]): VariantResult => ({ ...v, time: orders[0]!.time, orders, ordersSummary: summarizeOrders(orders) });
  const d: DatasetResult = withComparisons(
    {
      ...dataset('q'),
      variants: [
        withOrders(variant('none', [10], 0), [order('cost', 10, 5000), order('random:1', 40, 90000), order('random:2', 20, 7000)]),
        withOrders(variant('transfer', [5], 0), [order('cost', 5, 700), order('random:1', 6, 800, false), { order: 'random:2', status: 'failed', reason: 'memory limit', parity: null }]),
      ],
    },
    'none',
  );
  const results: ExperimentResults = {
    ...RESULTS,
    experiment: { ...RESULTS.experiment, name: 'orders', repeat: 1, orders: 2, baseline: 'none' },
    datasets: [d],
    comparison: summarizeComparisons([d], ['none', 'transfer'], 'none'),
  };

  it('the terminal tables: a vs-baseline column, the join-order table with its notes, the summary over data sets', () => {
    const text = formatResultsTable(results);
    expect(text).toMatch(/x duckdb\s+vs none\s+rows/);
    expect(text).toMatch(/none\s+10\s+10\.0–10\.0 \(min–max\)\s+1\s+2\s+baseline\s+42/);
    expect(text).toMatch(/transfer\s+5\s+5\.00–5\.00 \(min–max\)\s+1\s+2\s+2\.00x faster\s+42/);
    expect(text).toContain('join orders cost, random:1, random:2: time = each order\'s median over 1 timed run;');
    expect(text).toMatch(/variant\s+cost ms\s+min ms\s+median ms\s+max ms\s+max\/min\s+fastest\s+slowest\s+largest join \(cost\)\s+largest join \(any\)\s+orders ran/);
    expect(text).toMatch(/none\s+10\s+10\s+20\s+40\s+4\s+cost\s+random:1\s+5000\s+90000\s+3\/3/);
    expect(text).toMatch(/transfer\s+5\s+5\s+5\.5\s+6\s+1\.2\s+cost\s+random:1\s+700\s+800\s+2\/3/);
    expect(text).toContain('transfer [random:2]: failed — memory limit');
    expect(text).toContain('transfer [random:1]: differs from DuckDB');
    expect(text).toContain('orders: against none over 1 data set');
    expect(text).toMatch(/transfer\s+1\s+0\.5\s+2\.00x faster\s+1\s+0\s+0\s+0\s+1\s+1\s+0\/10\s+1\.2\s+1\.2\s+q/);
    // without comparisons (one variant, older results) no such column or table
    expect(formatResultsTable(RESULTS)).not.toMatch(/vs |against /);
  });

  it('the page: the same column and tables, and a chart of the time over the orders', () => {
    const html = renderReport(results);
    expect(html).toContain('<th>vs none</th>');
    expect(html).toContain('<td>2.00x faster</td>');
    expect(html).toContain('<h3>Join orders</h3>');
    expect(html).toContain('<h2>Against none</h2>');
    expect(html).toContain('Time over the join orders (bar: cost order; whiskers: fastest–slowest order), ms');
    expect(html.match(/<svg/g)).toHaveLength(6); // the five charts and the orders chart
    expect(html).toContain('transfer [random:2]: failed — memory limit');
    expect(html).not.toMatch(/<script/i);
  });
});

describe('report: timeouts', () => {
  const order = (o: string, ms: number | 'timeout'): OrderRunResult =>
    ms === 'timeout'
      ? { order: o, status: 'timeout', reason: 'no answer within 0.05 s (run 1/1)', parity: null }
      : { order: o, status: 'ok', time: stats([ms]), joinMs: 1, rows: 42, joins: 2, joinRows: [9, 1], largestJoinRows: 9, parity: null };
  const timedOut = (name: string): VariantResult => ({ name, status: 'timeout', reason: 'no answer within 0.05 s (run 1/1)', overrides: {}, config: configJson(parseConfig({})), parity: null, ratio: null });
  const withOrders = (v: VariantResult, orders: OrderRunResult[]): VariantResult => ({ ...v, orders, ordersSummary: summarizeOrders(orders, 50) });
  const d: DatasetResult = withComparisons(
    {
      ...dataset('q'),
      variants: [
        withOrders({ ...variant('none', [10], 0), time: stats([10]) }, [order('cost', 10), order('random:1', 'timeout'), order('random:2', 20)]),
        withOrders(timedOut('lip'), [order('cost', 'timeout'), order('random:1', 30), order('random:2', 'timeout')]),
      ],
      duckdb: { name: 'duckdb', threads: 1, status: 'timeout', reason: 'no answer within 0.05 s (warm-up 1/1); its other runs skipped' },
    },
    'none',
    0.05,
  );
  const results: ExperimentResults = {
    ...RESULTS,
    experiment: { ...RESULTS.experiment, name: 'slow', repeat: 1, orders: 2, baseline: 'none', timeout: 0.05 },
    datasets: [d],
    comparison: summarizeComparisons([d], ['none', 'lip'], 'none'),
  };

  it('the terminal tables: timeout and > T for the time, lower bounds in the join-order table, timeouts counted apart', () => {
    const text = formatResultsTable(results);
    expect(text).toMatch(/^lip\s+> 50\s+timeout\s+-\s+-\s+timeout\s+-/m);
    expect(text).toMatch(/^duckdb \(threads=1\)\s+> 50\s+timeout\s+-/m);
    expect(text).toContain('lip: timeout — no answer within 0.05 s (run 1/1)');
    expect(text).toContain('duckdb: timeout — no answer within 0.05 s (warm-up 1/1); its other runs skipped');
    expect(text).toContain("an order that timed out counts as more than 0.05 s (> 50 ms): '>' marks a lower bound");
    // none: 10, > 50, 20 -> max > 50, max/min > 5; lip: > 50 (cost), 30, > 50 -> median and max > 50, max/min > 1.667
    expect(text).toMatch(/^none\s+10\s+10\s+20\s+> 50\s+> 5\s+cost\s+random:1\s+9\s+9\s+2\/3, 1 timeout$/m);
    expect(text).toMatch(/^lip\s+> 50\s+30\s+> 50\s+> 50\s+> 1\.667\s+random:1\s+cost\s+-\s+9\s+1\/3, 2 timeout$/m);
    expect(text).toMatch(/incomparable\s+timeout\s+rows decoded \/ none\s+bytes decoded \/ none\s+pruned\/total\s+max\/min \(geomean\)/);
    expect(text).toMatch(/^lip\s+0\s+-\s+timeout\s+0\s+0\s+0\s+0\s+1\s+-\s+-\s+-\s+> 1\.667\s+> 1\.667\s+q$/m);
    expect(text).toContain("timeout: the variant's run passed the experiment's timeout (no ratio)");
  });

  it('the page: the same cells, DuckDB\'s note and the lower bounds in the chart', () => {
    const html = renderReport(results);
    expect(html).toContain('<td class="n">&gt; 50</td><td class="n">timeout</td>');
    expect(html).toContain('duckdb: timeout — no answer within 0.05 s');
    expect(html).toContain('max/min &gt; 5.00');
    expect(html).toContain('each run limited to 0.05 s');
    expect(html).toContain('<th>timeout</th>');
  });

  it("a data set whose parity reference timed out says so once, and no DuckDB time", () => {
    const unchecked: DatasetResult = { ...dataset('u'), duckdb: { name: 'duckdb', threads: 1, status: 'timeout', reason: 'x' }, parityUnchecked: "no answer within 0.05 s (DuckDB's answer for the parity checks); no answer checked, no DuckDB run timed" };
    const text = formatResultsTable({ ...RESULTS, datasets: [unchecked] });
    expect(text).toContain("parity not checked: no answer within 0.05 s (DuckDB's answer for the parity checks)");
    expect(text).not.toContain('duckdb: timeout');
    expect(winnersOf(unchecked).duckdbMs).toBeNull();
  });
});

describe('report: information passing', () => {
  const transfer = (rowsDropped: number, bytes: number) => ({ pass: 'forward' as const, from: 'a', to: 'b', on: 'a.k = b.k', filter: 'bloom', bytes, buildMs: 1, sourceRows: 10, rowsTested: 100, rowsDropped });
  const sipVariant = (name: string, sip: VariantResult['sip']): VariantResult => ({ ...variant(name, [5], 1), sip });
  const d: DatasetResult = {
    ...dataset('q'),
    variants: [
      sipVariant('none', [{ strategy: 'none', root: null, note: null, joinFilters: false, adaptive: false, transfers: [] }]),
      sipVariant('transfer', [
        { strategy: 'transfer', root: 'lineorder', note: null, joinFilters: false, adaptive: false, transfers: [transfer(60, 1024), transfer(30, 2048)] },
        { strategy: 'transfer', root: 'part', note: null, joinFilters: false, adaptive: false, transfers: [transfer(5, 1024)] },
      ]),
      sipVariant('yannakakis', [{ strategy: 'dynamic', root: null, note: 'cyclic join graph (GYO leaves 4 tables): fell back to dynamic', joinFilters: true, adaptive: false, transfers: [] }]),
      { name: 'slow', status: 'timeout', reason: 'r', overrides: {}, config: configJson(parseConfig({})), parity: null, ratio: null },
    ],
  };

  it('a table per data set: strategy, transfers, rows dropped, filter bytes and the note, summed over the trees', () => {
    const text = formatResultsTable({ ...RESULTS, datasets: [d] });
    expect(text).toContain("information passing (sip, docs/sip.md), the cost order's last run");
    expect(text).toMatch(/variant\s+sip\s+transfers\s+rows dropped\s+filter bytes\s+note/);
    expect(text).toMatch(/^none\s+none\s+0\s+0\s+0 B\s+-$/m);
    expect(text).toMatch(/^transfer\s+transfer\s+3\s+95\s+4\.0 KiB\s+-$/m);
    expect(text).toMatch(/^yannakakis\s+dynamic\s+0\s+0\s+0 B\s+cyclic join graph \(GYO leaves 4 tables\): fell back to dynamic$/m);
    expect(text).toMatch(/^slow\s+timeout\s+-\s+-\s+-\s+-$/m);
    const html = renderReport({ ...RESULTS, datasets: [d] });
    expect(html).toContain('<h3>Information passing</h3>');
    expect(html).toContain('<td>cyclic join graph (GYO leaves 4 tables): fell back to dynamic</td>');
  });

  it('no such table when every variant ran the default dynamic strategy without transfers or notes (or has no sip at all)', () => {
    const plain: DatasetResult = { ...dataset('p'), variants: [sipVariant('a', [{ strategy: 'dynamic', root: null, note: null, joinFilters: true, adaptive: false, transfers: [] }])] };
    expect(formatResultsTable({ ...RESULTS, datasets: [plain] })).not.toContain('information passing');
    expect(formatResultsTable(RESULTS)).not.toContain('information passing');
  });
});
