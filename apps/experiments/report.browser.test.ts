/**
 * The report in a real browser: headless Chromium (`@sparticuz/chromium`, a binary shipped inside
 * the npm package, driven by `puppeteer-core`) opens a rendered report at 800 and 1280 px and
 * measures the page: no page-level horizontal scroll, every chart within its container, wide
 * tables scrolling inside their own box, numeric cells on one line, and the fallback of a policy
 * (`inlist → map (…)`) visible in the variant's own cell.
 *
 * The first launch unpacks Chromium to /tmp/chromium (~20 s), hence the generous timeouts.
 * `REPORT_SCREENSHOTS=DIR` also saves a full-page screenshot per width, to look at.
 */
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../core/config/schema.ts';
import { summarizeComparisons, withComparisons } from './compare.ts';
import { renderReport } from './report.ts';
import type { DatasetResult, ExperimentResults, VariantResult } from './results.ts';
import { configJson, stats } from './runner.ts';

/** What the `inlist` policy publishes when the build has too many distinct keys (strategies/pushdown/inlist.ts). */
const FALLBACK =
  'k BETWEEN 3 AND 29997 AND k IN MAP(992 rows, swiss) + BITMAP(32768 buckets, 992 set) [IN list fallback: more than 150 distinct values]';

function variant(name: string, pushdown: string, ms: number[], pruned: number, filter: string, label: string): VariantResult {
  return {
    name,
    status: 'ok',
    overrides: { pushdown, 'pushdown.keyRangeBitmap': true, hashmap: 'swiss' },
    config: configJson(parseConfig({ pushdown })),
    algorithm: 'hash',
    time: stats(ms),
    joinMs: 1,
    rows: 123_456,
    probeSide: 'left',
    probe: {
      containersTotal: 1200,
      containersPruned: pruned,
      rowsDecoded: 2_048_000 * (1200 - pruned),
      rowsAfterFilter: 1_234_567,
      bytesDecoded: 8 * 2_048_000 * (1200 - pruned),
      bytesSkipped: 0,
      bytesRead: 1024,
    },
    peakReservedBytes: 300 * 1024 * 1024 + pruned * 4096,
    dynamicFilter: filter,
    dynamicFilterLabel: label,
    parity: { equal: true, missing: 0, extra: 0, actualRows: 123_456, expectedRows: 123_456, schemaProblems: [] },
    ratio: 2.345,
  };
}

function dataset(name: string): DatasetResult {
  return withComparisons(
    {
      name,
      data: { kind: 'generator', generator: 'sparse', params: { probeRows: 1_000_000, rowsPerKey: 10, period: 10, islandWidth: 2 }, seed: 1, rowGroupSize: 2048 },
      files: {
        left: { path: '/tmp/joinlab/experiments/a-rather-long-cache-directory-name/left.parquet', rows: 1_000_000, rowGroups: 1200, bytes: 9_999_999 },
        right: { path: '/tmp/joinlab/experiments/a-rather-long-cache-directory-name/right.parquet', rows: 992, rowGroups: 1, bytes: 9999 },
      },
      join: { type: 'inner', on: 'customer_id=customer_id' },
      sql: 'SELECT * FROM left_input l JOIN right_input r ON l.customer_id = r.customer_id',
      variants: [
        variant('no pushdown at all', 'none', [1234.5, 1200.25, 1300.75], 0, 'true', 'true'),
        variant('inlist', 'inlist', [1010.5, 1000.25, 1100.75], 300, FALLBACK, 'bounds + map(992, swiss) + bitmap'),
        variant('map with a bitmap', 'map', [1020.5, 1005.25, 1090.75], 600, 'k BETWEEN 3 AND 29997 AND k IN MAP(992 rows, swiss) + BITMAP(32768 buckets, 992 set)', 'bounds + map(992, swiss) + bitmap'),
      ],
      duckdb: { name: 'duckdb', threads: 1, time: stats([500.5, 480.25, 520.75]), rows: 123_456 },
    },
    'no pushdown at all',
  );
}

const DATASETS = [dataset('sparse islands'), dataset('dense islands')];
const RESULTS: ExperimentResults = {
  experiment: { name: 'pushdown policies', description: 'inlist, map and none on sparse keys', source: '/x/e.yaml', copy: 'e.yaml', repeat: 3, warmup: 1, duckdb: true, parity: true, threads: 1, extensions: [], baseline: 'no pushdown at all' },
  timestamp: '2026-01-01T00:00:00.000Z',
  wallMs: 12_345,
  machine: { os: 'Linux', platform: 'linux', arch: 'x64', cpus: 2, cpuModel: 'Some CPU', memoryBytes: 8 << 30, freeMemoryBytes: 4 << 30, node: 'v20', joinlab: '0.1.0', duckdb: 'v1.5.6', duckdbNodeApi: '1.5.6-r.1' },
  datasets: DATASETS,
  comparison: summarizeComparisons(DATASETS, ['no pushdown at all', 'inlist', 'map with a bitmap'], 'no pushdown at all'),
  parityOk: true,
  out: '/out',
};

/** What the page measures of itself (MEASURE, run in the browser). */
interface Measured {
  readonly viewport: number;
  readonly pageScrollWidth: number;
  readonly charts: { readonly width: number; readonly container: number }[];
  readonly tables: { readonly width: number; readonly wrapper: string; readonly wrapperOverflow: string; readonly wrapperScrolls: boolean; readonly wrapperRight: number }[];
  /** Per numeric cell: its text, the lines it takes, the height of its text and the cell's line height (px). */
  readonly numeric: { readonly text: string; readonly lines: number; readonly height: number; readonly lineHeight: number }[];
  readonly variantCells: { readonly text: string; readonly visible: boolean }[];
}

/**
 * The measuring, as browser JavaScript (text: this project's TypeScript has no DOM types, and a
 * transpiled function could carry helpers the page does not have).
 */
const MEASURE = `(() => {
  const text = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0);
    const style = getComputedStyle(el);
    const lineHeight = style.lineHeight === 'normal' ? 1.2 * parseFloat(style.fontSize) : parseFloat(style.lineHeight);
    return { lines: new Set(rects.map((r) => Math.round(r.top))).size, height: range.getBoundingClientRect().height, lineHeight };
  };
  return {
    viewport: document.documentElement.clientWidth,
    pageScrollWidth: document.documentElement.scrollWidth,
    charts: [...document.querySelectorAll('svg')].map((svg) => ({ width: svg.getBoundingClientRect().width, container: svg.parentElement.clientWidth })),
    tables: [...document.querySelectorAll('table')].map((t) => {
      const w = t.parentElement;
      return {
        width: t.getBoundingClientRect().width,
        wrapper: w.tagName.toLowerCase(),
        wrapperOverflow: getComputedStyle(w).overflowX,
        wrapperScrolls: w.scrollWidth > w.clientWidth,
        wrapperRight: w.getBoundingClientRect().right,
      };
    }),
    numeric: [...document.querySelectorAll('td.n')].map((td) => ({ text: td.textContent, ...text(td) })),
    variantCells: [...document.querySelectorAll('table.results tbody tr td:first-child')].map((td) => ({
      text: td.innerText,
      visible: td.offsetParent !== null && td.getBoundingClientRect().width > 0,
    })),
  };
})()`;

describe('report in headless Chromium', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await puppeteer.launch({ executablePath: await chromium.executablePath(), args: chromium.args, headless: true });
    page = await browser.newPage();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
  });

  for (const width of [800, 1280]) {
    it(`reads at ${width} px: no page scroll, charts fit, wide tables scroll in their box, numbers on one line, fallbacks in the variant cell`, async () => {
      await page.setViewport({ width, height: 900 });
      await page.setContent(renderReport(RESULTS), { waitUntil: 'load' });
      const m = (await page.evaluate(MEASURE)) as Measured;
      // to look at it: REPORT_SCREENSHOTS=DIR writes DIR/report-800.png and DIR/report-1280.png
      const shots = process.env.REPORT_SCREENSHOTS;
      if (shots) await page.screenshot({ path: `${shots}/report-${width}.png`, fullPage: true });
      expect(m.viewport).toBe(width);
      // the page itself never scrolls sideways
      expect(m.pageScrollWidth).toBeLessThanOrEqual(m.viewport);
      // charts: every one, and within its container
      expect(m.charts.length).toBeGreaterThanOrEqual(2 * 5);
      for (const c of m.charts) {
        expect(c.width).toBeLessThanOrEqual(c.container + 0.5);
        expect(c.width).toBeGreaterThan(c.container - 1); // takes the width it has
      }
      // tables: each in a scrolling wrapper; one wider than the page scrolls there, not the page
      expect(m.tables.length).toBeGreaterThan(0);
      for (const t of m.tables) {
        expect(t.wrapper).toBe('div');
        expect(t.wrapperOverflow).toBe('auto');
        expect(t.wrapperRight).toBeLessThanOrEqual(m.viewport);
        if (t.width > m.viewport) expect(t.wrapperScrolls).toBe(true);
      }
      if (width === 800) expect(m.tables.some((t) => t.wrapperScrolls)).toBe(true); // the results table is wider than 800 px
      // numbers (median, min–max, bytes, …) never wrap
      expect(m.numeric.length).toBeGreaterThan(20);
      for (const n of m.numeric) {
        expect(n.lines, n.text).toBe(1);
        expect(n.height, n.text).toBeLessThan(1.5 * n.lineHeight); // one line high
      }
      // what ran when the policy fell back, in the variant's own cell, visible
      const inlist = m.variantCells.filter((c) => c.text.startsWith('inlist'));
      expect(inlist).toHaveLength(2);
      for (const c of inlist) {
        expect(c.visible).toBe(true);
        expect(c.text).toContain('inlist → map (992 rows, > 150 distinct)');
      }
    }, 60_000);
  }
});
