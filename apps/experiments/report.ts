/**
 * Presenting experiment results: one self-contained HTML page, and plain-text tables.
 *
 * Why self-contained: a report is evidence that gets attached to issues, mailed and opened years
 * later, so it carries everything inline — CSS, SVG charts, the data — and no scripts, fonts or
 * network fetches (it renders the same offline, in a mail client, or with JavaScript disabled).
 * Every piece of text that came from a file or a measurement (names, descriptions, SQL, filter
 * descriptions, paths) is HTML-escaped, since experiment files are user input.
 *
 * Per data set the page shows the data and join, the results table, and five bar charts: time
 * per variant (median bar, whisker the 95% confidence interval of the median, or the min–max range
 * where the interval is unknown) with DuckDB as the last bar; probe containers pruned per variant
 * (pruned/total); rows decoded, bytes decoded (`probe.bytesDecoded`) and peak memory reserved by
 * the join (`peakReservedBytes`; a query's: its largest join's) per variant. Above them, one
 * summary table: per data set, the variant that won on time — or, when the fastest one's 95%
 * interval overlaps others', `tie:` and every variant whose interval overlaps it (the times cannot
 * tell them apart; the HTML cell lists them one a line) — with what they decoded (rows, bytes,
 * containers pruned, the filter: counters that do not depend on timing), and the one(s) that
 * decoded the fewest probe rows.
 *
 * A time is shown as its median and its 95% confidence interval (stats.ts: bootstrap percentile
 * interval of the median over the repetitions); with fewer than 3 repetitions the interval is
 * unknown and the cell shows the min–max range, marked `(min–max)`. The `runs` column says how
 * many timed runs were taken and, with `repeat: auto`, why they stopped.
 *
 * Readable from 800 px up, checked in headless Chromium (report.browser.test.ts): the page never
 * scrolls sideways — every table sits in its own `div.scroll` (overflow-x: auto) and a wide one
 * scrolls there; charts take the width they have (a viewBox, `width: 100%`); numeric cells do not
 * wrap (intervals, bytes).
 *
 * The dynamic-filter column shows the filter's short label (`bounds + map(992, swiss) + bitmap`);
 * the full description (which lists IN-list values and can run to a screen) is the cell's tooltip
 * and sits in a collapsed <details> under the table. Where a policy fell back, the variant's own
 * cell says what ran, `requested → ran (reason)` (`fallbacks`): `inlist → map (992 rows, > 150
 * distinct)` from the map filter's `[IN list fallback: …]` note, `yannakakis → dynamic (cyclic join
 * graph)` from a sip strategy's; the terminal table prints them as notes.
 *
 * With two or more variants each row says how it compares with the baseline variant ("1.32x
 * faster", compare.ts) and a last table sums that up over the data sets (geometric mean of the
 * time ratios, counts of faster / slower / unchanged data sets). With `orders`, each data set also
 * gets a join-order table (time under the cost order; min, median, max and max/min over the
 * orders; the largest intermediate result; orders.ts) and a chart of it.
 *
 * With `timeout`, a run that passed it shows as `timeout` with its time as `> T` (in ms, like the
 * column): a variant's median, DuckDB's, and in the join-order table every value that is only a
 * lower bound (max `> T`, max/min `> T/min`; orders.ts `lowerBounds`). The comparison says
 * `timeout` and the summary over the data sets counts those apart.
 *
 * A `sql:` data set whose variants passed information (a `sip` strategy other than the default
 * `dynamic`, a transfer, or a note such as a cyclic query's fallback) gets a small table of its
 * own, "information passing": per variant the strategy, the transfers, the rows they dropped, the
 * bytes of their filters and the note, summed over the query's join trees (`VariantResult.sip`).
 * A table of its own because the results table is already wide.
 */
import { formatTable } from '../cli/format.ts';
import type { FileInfo } from './generators.ts';
import { timeInterval, timesTie } from './compare.ts';
import type { ComparisonSummary, DatasetResult, ExperimentResults, OrdersBound, OrdersSummary, RunStats, VariantResult } from './results.ts';
import { repeatPlan, repeatText } from './stats.ts';
import type { TableSource } from './schema.ts';

// ---------------------------------------------------------------------------------------------
// Text helpers
// ---------------------------------------------------------------------------------------------

/** Escapes text for HTML element content and double- or single-quoted attributes. */
export function escapeHtml(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** 1536 -> '1.5 KiB'. */
export function formatBytes(n: number | undefined): string | undefined {
  if (n === undefined || !Number.isFinite(n)) return undefined;
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(1)} ${units[u]}`;
}

function fmtMs(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
}

function fmtInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** A time known only to exceed `ms` (a timeout), as a table cell: `> 5000`. */
function moreThan(ms: number): string {
  return `> ${Number.isInteger(ms) ? ms : Number(ms.toPrecision(6))}`;
}

/** How many timed runs the experiment took per variant, in words (`3 timed runs`, `timed runs until …`). */
function repeatOf(results: ExperimentResults): string {
  return repeatText(repeatPlan(results.experiment.repeat, results.experiment.repeatAuto));
}

/** The experiment's timeout in ms, or null. */
function timeoutMsOf(results: ExperimentResults): number | null {
  const t = results.experiment.timeout;
  return t === undefined || t === null ? null : t * 1000;
}

/** A variant's median cell: its median, `> T` when it timed out, else nothing. */
function medianCell(v: { readonly status?: string; readonly time?: { readonly medianMs: number } }, timeoutMs: number | null): number | string | undefined {
  if (v.time) return v.time.medianMs;
  return v.status === 'timeout' && timeoutMs !== null ? moreThan(timeoutMs) : undefined;
}

/** A time's interval as text: `35.8–43.4` (its 95% CI), or `10.0–12.0 (min–max)` when the CI is unknown. */
export function intervalText(t: RunStats): string {
  const i = timeInterval(t);
  return `${fmtMs(i.lo)}–${fmtMs(i.hi)}${i.kind === 'min-max' ? ' (min–max)' : ''}`;
}

/** A variant's interval cell: its 95% CI (or marked min–max), `timeout`, or nothing. */
function rangeCell(v: { readonly status?: string; readonly time?: RunStats }): string | undefined {
  if (v.time) return intervalText(v.time);
  return v.status === 'timeout' ? 'timeout' : undefined;
}

/** A variant's `runs` cell: how many timed runs, and with `repeat: auto` why they stopped (`12, precise`). */
function runsCell(v: { readonly time?: RunStats }): number | string | undefined {
  if (!v.time) return undefined;
  const n = v.time.runsMs.length;
  const stop = v.time.stop;
  return stop === undefined || stop === 'fixed' ? n : `${n}, ${stop}`;
}

/** What the time columns hold, in one line. */
const TIME_CAPTION =
  "time: the median over the timed runs and its 95% confidence interval (bootstrap percentile, 2,000 seeded resamples); '(min–max)': fewer than 3 runs, no interval, the range instead; runs: how many (with repeat: auto, why they stopped)";

function parityText(v: VariantResult): string {
  if (v.status !== 'ok') return v.status;
  if (!v.parity) return '-';
  return v.parity.equal ? '✓' : `✗ (${v.parity.missing} missing, ${v.parity.extra} extra)`;
}

function prunedText(v: VariantResult): string | undefined {
  if (!v.probe) return undefined;
  const bloom = v.probe.containersPrunedByBloom ?? 0;
  const pages = v.probe.pagesTotal ?? 0;
  return `${v.probe.containersPruned}/${v.probe.containersTotal}${bloom > 0 ? ` (${bloom} by Bloom)` : ''}${pages > 0 ? `, pages ${v.probe.pagesPruned ?? 0}/${pages}` : ''}`;
}

/** One-line description of a join block (`inner on customer_id=customer_id filter …`), or of a data set's query. */
export function joinSummary(d: DatasetResult): string {
  if (d.kind === 'sql') return `sql ${d.sql.replace(/\s+/g, ' ').trim()}`;
  const j = d.join;
  const parts: string[] = [j.type];
  if (j.on !== undefined) parts.push(`on ${typeof j.on === 'string' ? j.on : j.on.map((k) => `${k.left}=${k.right}`).join(',')}`);
  if (j.range !== undefined) parts.push(`range ${typeof j.range === 'string' ? j.range : `${j.range.left} ${j.range.op} ${j.range.right}`}`);
  if (j.filter !== undefined) parts.push(`filter ${j.filter}`);
  if (j.nullEqualsNull) parts.push('null = null');
  if (j.nullAware) parts.push('null-aware (NOT IN)');
  return parts.join(' ');
}

function generatorText(g: { generator: string; params: object; seed: number; rowGroupSize: number }): string {
  const params = Object.entries(g.params)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  return `generator ${g.generator} (${params}; seed ${g.seed}, rowGroupSize ${g.rowGroupSize})`;
}

function sourceText(s: TableSource): string {
  if (s.kind === 'file') return `file ${s.path}`;
  if (s.kind === 'workload') return `${s.data.workload} sf=${s.data.sf} ${s.table}`;
  return `${s.data.generator} ${s.table}`;
}

/** One-line description of a data set's data. */
export function dataSummary(d: DatasetResult): string {
  if (d.kind === 'sql') {
    const tables = Object.entries(d.tables).map(
      ([name, t]) => `${name} ${fmtInt(t.file.rows)} rows / ${t.file.rowGroups} row groups (${sourceText(t.source)})`,
    );
    const generators = [...new Set(Object.values(d.tables).flatMap((t) => (t.source.kind === 'generated' ? [generatorText(t.source.data)] : [])))];
    return `${[...generators, ''].join('; ')}tables ${tables.join(', ')}`;
  }
  const files = `left ${fmtInt(d.files.left.rows)} rows / ${d.files.left.rowGroups} row groups, right ${fmtInt(d.files.right.rows)} rows / ${d.files.right.rowGroups} row groups`;
  if (d.data.kind === 'files') return `files ${d.data.left} x ${d.data.right}: ${files}`;
  return `${generatorText(d.data)}: ${files}`;
}

// ---------------------------------------------------------------------------------------------
// Terminal table
// ---------------------------------------------------------------------------------------------

const TABLE_HEADER = ['variant', 'median ms', '95% CI ms', 'runs', 'x duckdb', 'rows', 'pruned/total', 'rows decoded', 'rows kept', 'bytes decoded', 'peak memory', 'filter', 'parity'];

/** The short form of a variant's dynamic filter (its label; else the description, cut at 60). */
export function filterLabel(v: VariantResult): string {
  if (v.status !== 'ok') return v.status;
  const text = v.dynamicFilterLabel ?? v.dynamicFilter ?? '-';
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/** A winner's counters that do not depend on timing. */
export interface WinnerCounters {
  readonly name: string;
  readonly rowsDecoded: number | null;
  readonly bytesDecoded: number | null;
  readonly pruned: string | null;
  readonly filter: string;
}


/**
 * A map filter the `inlist` policy fell back to (strategies/pushdown/inlist.ts `membershipFilter`,
 * map.ts `MapFilter.description`): `k IN MAP(992 rows, swiss)`, an optional ` + BITMAP(…)`, then
 * ` [IN list fallback: more than 150 distinct values]`. Groups: the map's rows, the reason.
 */
const INLIST_FALLBACK = /IN MAP\((\d+) rows, [^)]*\)(?: \+ BITMAP\([^)]*\))? \[IN list fallback: ([^\]]+)\]/g;

/** `more than 150 distinct values` -> `> 150 distinct`, `more than 131072 bytes of keys` -> `> 128 KiB of keys`. */
function shortReason(reason: string): string {
  const distinct = /^more than (\d+) distinct values$/.exec(reason);
  if (distinct) return `> ${distinct[1]} distinct`;
  const bytes = /^more than (\d+) bytes of keys$/.exec(reason);
  if (bytes) return `> ${bytesTick(Number(bytes[1]))} of keys`;
  return reason;
}

/**
 * What actually ran where a variant's policy fell back, one short line each, `requested → ran
 * (reason)`: `inlist → map (992 rows, > 150 distinct)` when the IN list was over its limits
 * (`inlist → map in 3 of 4 partitions (> 150 distinct)` for a partitioned build, `auto → map in
 * joins 3, 4 (> 150 distinct)` for a query's joins, numbered in the order they ran), and
 * `yannakakis → dynamic (cyclic join graph)` from a sip strategy's note. Empty when nothing fell
 * back. The report shows them in the variant's own cell; the full filter text is under the table.
 */
export function fallbacks(v: VariantResult): string[] {
  if (v.status !== 'ok') return [];
  const out: string[] = [];
  const requested = String(v.config.pushdown ?? 'inlist');
  // a query's row joins its joins' filters with ' ; ' (runner.ts), one per join in the order they ran
  const perJoin = v.dynamicFilter === undefined ? [] : v.joins !== undefined ? v.dynamicFilter.split(' ; ') : [v.dynamicFilter];
  const maps = perJoin.map((f) => [...f.matchAll(INLIST_FALLBACK)]);
  const all = maps.flat();
  if (all.length > 0) {
    const reasons = [...new Set(all.map((m) => shortReason(m[2]!)))].join('; ');
    const rows = all.length === 1 ? `${all[0]![1]} rows, ` : '';
    if (v.joins !== undefined) {
      const joins = maps.flatMap((m, i) => (m.length > 0 ? [i + 1] : []));
      out.push(`${requested} → map in join${joins.length > 1 ? 's' : ''} ${joins.join(', ')} (${rows}${reasons})`);
    } else if (all.length === 1) {
      out.push(`${requested} → map (${rows}${reasons})`);
    } else {
      const partitions = /^(\d+) partitions: /.exec(v.dynamicFilterLabel ?? '')?.[1];
      out.push(`${requested} → map in ${all.length}${partitions !== undefined ? ` of ${partitions}` : ''} partitions (${reasons})`);
    }
  }
  for (const t of v.sip ?? []) {
    const to = t.note === null ? null : /fell back to ([\w-]+)/.exec(t.note);
    if (!to || to[1] === t.strategy) continue;
    const line = `${t.strategy} → ${to[1]} (${t.note!.split(':')[0]!.replace(/ \(.*\)$/, '')})`;
    if (!out.includes(line)) out.push(line);
  }
  return out;
}

/** Which variant won a data set: on time (ties listed), and on probe rows decoded (ties listed). */
export interface DatasetWinners {
  readonly dataset: string;
  /** The lowest median (null when no variant ran). */
  readonly fastest: { readonly name: string; readonly medianMs: number; readonly ratio: number | null; readonly interval: string } | null;
  /**
   * Every variant tied with the fastest — its time's interval (95% CI, or min–max where either is
   * unknown: compare.ts `timesTie`) overlaps the fastest's — fastest first, then by median; just
   * the fastest when it won outright. `by`: the rule that decided (null: no other variant ran).
   */
  readonly tied: readonly string[];
  readonly by: 'ci95' | 'min-max' | null;
  /** The counters of every variant in `tied`. */
  readonly counters: readonly WinnerCounters[];
  readonly fewestDecoded: { readonly names: readonly string[]; readonly rowsDecoded: number } | null;
  readonly duckdbMs: number | null;
}

export function winnersOf(d: DatasetResult): DatasetWinners {
  const ran = d.variants.filter((v) => v.status === 'ok' && v.time !== undefined).sort((a, b) => a.time!.medianMs - b.time!.medianMs);
  const fastest = ran[0] ?? null;
  const tied = fastest === null ? [] : [fastest, ...ran.slice(1).filter((v) => timesTie(v.time!, fastest.time!).tie)];
  const by = fastest === null || ran.length < 2 ? null : ran.slice(1).some((v) => timesTie(v.time!, fastest.time!).by === 'min-max') ? 'min-max' : 'ci95';
  const decoded = ran.filter((v) => v.probe !== undefined);
  const least = decoded.length === 0 ? null : Math.min(...decoded.map((v) => v.probe!.rowsDecoded));
  return {
    dataset: d.name,
    fastest: fastest === null ? null : { name: fastest.name, medianMs: fastest.time!.medianMs, ratio: fastest.ratio, interval: intervalText(fastest.time!) },
    tied: tied.map((v) => v.name),
    by,
    counters: tied.map((v) => ({
      name: v.name,
      rowsDecoded: v.probe?.rowsDecoded ?? null,
      bytesDecoded: v.probe?.bytesDecoded ?? null,
      pruned: prunedText(v) ?? null,
      filter: filterLabel(v),
    })),
    fewestDecoded: least === null ? null : { names: d.variants.filter((v) => decoded.includes(v) && v.probe!.rowsDecoded === least).map((v) => v.name), rowsDecoded: least },
    duckdbMs: d.duckdb?.time?.medianMs ?? null,
  };
}

/** `auto`, or `tie: auto, inlist, map` when the fastest variant's interval overlaps others'. */
export function fastestText(w: DatasetWinners): string | undefined {
  if (w.fastest === null) return undefined;
  return w.tied.length > 1 ? `tie: ${w.tied.join(', ')}` : w.fastest.name;
}

/**
 * One counter of the winners: the value when they all agree, else each value with the variants
 * that have it (`4096 (inlist, auto); 20000 (none)`).
 */
function agreed<T>(counters: readonly WinnerCounters[], pick: (c: WinnerCounters) => T | null, show: (x: T) => string | number): string | number | undefined {
  const values = counters.map(pick);
  if (values.length === 0 || values.every((x) => x === null)) return undefined;
  if (values.every((x) => x === values[0])) return values[0] === null ? undefined : show(values[0]!);
  const groups = new Map<T | null, string[]>();
  counters.forEach((c, i) => groups.set(values[i]!, [...(groups.get(values[i]!) ?? []), c.name]));
  return [...groups].map(([x, names]) => `${x === null ? '-' : show(x)} (${names.join(', ')})`).join('; ');
}

const WINNERS_HEADER = ['data set', 'fastest', 'median ms', '95% CI ms', 'x duckdb', 'rows decoded', 'bytes decoded', 'pruned/total', 'filter', 'decoded fewest rows', 'fewest rows decoded', 'duckdb ms'];

/** What the winners table says, in one line. */
const WINNERS_CAPTION =
  "fastest: the lowest median; 'tie:' lists every variant whose 95% CI of the median (min–max range where an interval is unknown) overlaps the fastest's, whose times therefore cannot be told apart (median, CI and x duckdb are the first's); rows / bytes decoded, containers pruned and the filter do not depend on timing (one value when the tied variants agree, else each's)";

function winnersRows(results: ExperimentResults): unknown[][] {
  return results.datasets.map((d) => {
    const w = winnersOf(d);
    const c = w.counters;
    return [
      w.dataset,
      fastestText(w),
      w.fastest?.medianMs,
      w.fastest?.interval,
      w.fastest?.ratio ?? undefined,
      agreed(c, (x) => x.rowsDecoded, (n) => n),
      agreed(c, (x) => x.bytesDecoded, (n) => formatBytes(n) ?? '-'),
      agreed(c, (x) => x.pruned, (t) => t),
      agreed(c, (x) => x.filter, (t) => t),
      w.fewestDecoded?.names.join(', '),
      w.fewestDecoded?.rowsDecoded,
      w.duckdbMs ?? undefined,
    ];
  });
}

/** The per-data-set winners as a plain-text table. */
export function formatWinnersTable(results: ExperimentResults): string {
  return formatTable(WINNERS_HEADER, winnersRows(results));
}

// ---------------------------------------------------------------------------------------------
// Against the baseline, and over join orders
// ---------------------------------------------------------------------------------------------

/** The baseline a data set's variants were compared with; undefined when they were not (one variant, older results). */
export function baselineOf(d: DatasetResult): string | undefined {
  return d.variants.find((v) => v.comparison !== undefined)?.comparison!.baseline;
}

/** A variant's cell in the `vs BASELINE` column: `1.32x faster`, `no change`, `baseline`, … */
function comparisonCell(v: VariantResult, baseline: string): string {
  return v.name === baseline ? 'baseline' : (v.comparison?.text ?? '-');
}

const ORDERS_HEADER = ['variant', 'cost ms', 'min ms', 'median ms', 'max ms', 'max/min', 'fastest', 'slowest', 'largest join (cost)', 'largest join (any)', 'orders ran'];

/** A field of an orders summary as a cell: the number, `> x` when it is a lower bound, or nothing. */
function boundCell(s: OrdersSummary, field: OrdersBound): number | string | undefined {
  const x = s[field];
  if (x === null) return undefined;
  return (s.lowerBounds ?? []).includes(field) ? moreThan(x) : x;
}

/** `3/3`, `2/3, 1 timeout`. */
function ranText(s: OrdersSummary): string {
  const t = s.timedOut?.length ?? 0;
  return `${s.ran}/${s.orders}${t > 0 ? `, ${t} timeout` : ''}`;
}

/** The join-order rows of a data set (one per variant), or null when it ran no orders. */
function ordersRows(d: DatasetResult): unknown[][] | null {
  if (!d.variants.some((v) => v.ordersSummary !== undefined)) return null;
  return d.variants.map((v) => {
    const s = v.ordersSummary;
    if (s === undefined) return [v.name, ...ORDERS_HEADER.slice(1).map(() => undefined)];
    const b = (f: OrdersBound) => boundCell(s, f);
    return [v.name, b('costMs'), b('minMs'), b('medianMs'), b('maxMs'), b('maxOverMin'), s.fastest ?? undefined, s.slowest ?? undefined, s.costLargestJoinRows ?? undefined, s.largestJoinRows ?? undefined, ranText(s)];
  });
}

/** What the join-order table shows, in one line. */
function ordersCaption(d: DatasetResult, repeat: string, timeoutMs: number | null): string {
  const orders = d.variants.find((v) => v.orders !== undefined)?.orders?.map((o) => o.order) ?? [];
  const timeouts = d.variants.some((v) => (v.ordersSummary?.timedOut?.length ?? 0) > 0);
  const bound = timeouts && timeoutMs !== null ? `; an order that timed out counts as more than ${timeoutMs / 1000} s (> ${timeoutMs} ms): '>' marks a lower bound` : '';
  return `join orders ${orders.join(', ')}: time = each order's median over ${repeat}; max/min over the orders (the robustness factor of Robust Predicate Transfer); largest join = the most rows one join output${bound}`;
}

/** Notes for join orders that did not run or whose answer differs (the cost order's are the variant's own notes). */
function orderNotes(d: DatasetResult): string[] {
  return d.variants.flatMap((v) =>
    (v.orders ?? [])
      .filter((o) => o.order !== 'cost')
      .flatMap((o) => [
        ...(o.status !== 'ok' ? [`  ${v.name} [${o.order}]: ${o.status} — ${o.reason ?? ''}`] : []),
        ...(o.parity && !o.parity.equal ? [`  ${v.name} [${o.order}]: differs from DuckDB\n${(o.parity.detail ?? '').replace(/^/gm, '    ')}`] : []),
      ]),
  );
}

/** Whether any variant timed out on some data set (the summary then has a `timeout` column). */
function anyTimeout(c: ComparisonSummary): boolean {
  return c.variants.some((v) => (v.timeout ?? 0) > 0);
}

/** Whether the summary has counters (rows and bytes decoded) to show beside the times. */
function anyDecoded(c: ComparisonSummary): boolean {
  return c.variants.some((v) => v.decoded !== undefined);
}

function comparisonHeader(c: ComparisonSummary): string[] {
  const orders = c.variants.some((v) => v.orders !== undefined);
  return [
    'variant',
    'data sets',
    `time / ${c.baseline} (geomean)`,
    `geomean vs ${c.baseline}`,
    'faster',
    'slower',
    'no change',
    'incomparable',
    ...(anyTimeout(c) ? ['timeout'] : []),
    ...(anyDecoded(c) ? [`rows decoded / ${c.baseline}`, `bytes decoded / ${c.baseline}`, 'pruned/total'] : []),
    ...(orders ? ['max/min (geomean)', 'max/min (worst)', 'worst data set'] : []),
  ];
}

function comparisonRows(c: ComparisonSummary): unknown[][] {
  const orders = c.variants.some((v) => v.orders !== undefined);
  const bound = (x: number | null | undefined, atLeast: boolean | undefined) => (x === null || x === undefined ? undefined : atLeast ? moreThan(x) : x);
  return c.variants.map((v) => [
    v.name,
    v.compared,
    v.geomeanRatio ?? undefined,
    v.text,
    v.faster,
    v.slower,
    v.noChange,
    v.incomparable,
    ...(anyTimeout(c) ? [v.timeout ?? 0] : []),
    ...(anyDecoded(c) ? [v.decoded?.rowsVsBaseline ?? undefined, v.decoded?.bytesVsBaseline ?? undefined, v.decoded ? `${v.decoded.containersPruned}/${v.decoded.containersTotal}` : undefined] : []),
    ...(orders ? [bound(v.orders?.geomeanMaxOverMin, v.orders?.atLeast), bound(v.orders?.worstMaxOverMin, v.orders?.worstAtLeast), v.orders?.worstDataset ?? undefined] : []),
  ]);
}

/** What the comparison table's words mean, in one line. */
function comparisonCaption(c: ComparisonSummary, orders: boolean): string {
  const timeout = anyTimeout(c) ? "; timeout: the variant's run passed the experiment's timeout (no ratio)" : '';
  const rule =
    c.spread === 'min-max'
      ? 'no change when the two min–max ranges over the repetitions overlap'
      : "no change (a tie) when the two 95% confidence intervals of the median overlap (the min–max ranges where an interval is unknown, fewer than 3 runs)";
  const decoded = anyDecoded(c) ? `; rows / bytes decoded (the probe side; a query's every table scan) as a ratio to ${c.baseline}'s and containers pruned, summed over the same data sets: counters that do not depend on timing` : '';
  return `geometric mean of the time ratios over the data sets both ran; per data set: faster / slower by the ratio of medians, ${rule}${orders ? '; times under the cost-based join order' : ''}${timeout}${decoded}`;
}

/** Every variant against the baseline over the data sets, as a plain-text table. */
export function formatComparisonTable(c: ComparisonSummary): string {
  return formatTable(comparisonHeader(c), comparisonRows(c));
}

// ---------------------------------------------------------------------------------------------
// Information passing (sip)
// ---------------------------------------------------------------------------------------------

/** A variant's information passing, summed over the query's join trees. */
export interface SipCell {
  /** The strategies (one per tree; the same one, usually). */
  readonly strategy: string;
  readonly transfers: number;
  readonly rowsDropped: number;
  readonly rowsTested: number;
  readonly filterBytes: number;
  /** The trees' notes (a cyclic query's fallback), `; `-joined; null without. */
  readonly note: string | null;
}

/** `v.sip` summed over its trees; null when the variant has none (a join data set, a run that did not finish). */
export function sipCell(v: VariantResult): SipCell | null {
  if (v.sip === undefined || v.status !== 'ok') return null;
  const transfers = v.sip.flatMap((t) => t.transfers);
  const notes = [...new Set(v.sip.flatMap((t) => (t.note !== null ? [t.note] : [])))];
  return {
    strategy: [...new Set(v.sip.map((t) => t.strategy))].join(', ') || '-',
    transfers: transfers.length,
    rowsDropped: transfers.reduce((n, t) => n + t.rowsDropped, 0),
    rowsTested: transfers.reduce((n, t) => n + t.rowsTested, 0),
    filterBytes: transfers.reduce((n, t) => n + t.bytes, 0),
    note: notes.length > 0 ? notes.join('; ') : null,
  };
}

/** Whether a data set gets the information-passing table: some variant passed information, or has a note. */
function showsSip(d: DatasetResult): boolean {
  return d.variants.some((v) => v.sip?.some((t) => t.strategy !== 'dynamic' || t.transfers.length > 0 || t.note !== null) ?? false);
}

const SIP_HEADER = ['variant', 'sip', 'transfers', 'rows dropped', 'filter bytes', 'note'];

/** The information-passing rows of a data set (one per variant), or null when it has none to show. */
function sipRows(d: DatasetResult): unknown[][] | null {
  if (!showsSip(d)) return null;
  return d.variants.map((v) => {
    const c = sipCell(v);
    if (c === null) return [v.name, v.status === 'ok' ? '-' : v.status, undefined, undefined, undefined, undefined];
    return [v.name, c.strategy, c.transfers, c.rowsDropped, formatBytes(c.filterBytes), c.note ?? '-'];
  });
}

const SIP_CAPTION = "information passing (sip, docs/sip.md), the cost order's last run: transfers run before the joins, the rows their filters dropped at the target scans, the filters' bytes; summed over the query's join trees";

/** One plain-text table per data set (variants, then DuckDB), with notes for variants that did not run. */
export function formatResultsTable(results: ExperimentResults): string {
  const blocks: string[] = [];
  const timeoutMs = timeoutMsOf(results);
  for (const [i, d] of results.datasets.entries()) {
    const baseline = baselineOf(d);
    const rows: unknown[][] = d.variants.map((v) => [
      v.name,
      medianCell(v, timeoutMs),
      rangeCell(v),
      runsCell(v),
      v.ratio ?? undefined,
      ...(baseline !== undefined ? [comparisonCell(v, baseline)] : []),
      v.rows,
      prunedText(v),
      v.probe?.rowsDecoded,
      v.probe?.rowsAfterFilter,
      formatBytes(v.probe?.bytesDecoded),
      formatBytes(v.peakReservedBytes),
      filterLabel(v),
      parityText(v),
    ]);
    if (d.duckdb) {
      const k = d.duckdb;
      rows.push([`duckdb (threads=${k.threads})`, medianCell(k, timeoutMs), rangeCell(k), runsCell(k), k.time ? 1 : undefined, ...(baseline !== undefined ? [undefined] : []), k.rows, undefined, undefined, undefined, undefined, undefined, undefined, undefined]);
    }
    const notes = [
      ...d.variants.flatMap((v) => fallbacks(v).map((f) => `  ${v.name}: ran ${f}`)),
      ...d.variants.filter((v) => v.status !== 'ok').map((v) => `  ${v.name}: ${v.status} — ${v.reason ?? ''}`),
      ...(d.duckdb?.status === 'timeout' && d.parityUnchecked === undefined ? [`  duckdb: timeout — ${d.duckdb.reason ?? ''}`] : []),
      ...(d.parityUnchecked !== undefined ? [`  parity not checked: ${d.parityUnchecked}`] : []),
      ...d.variants
        .filter((v) => v.parity && !v.parity.equal)
        .map((v) => `  ${v.name}: differs from DuckDB\n${(v.parity!.detail ?? '').replace(/^/gm, '    ')}`),
      ...orderNotes(d),
    ];
    const header = baseline !== undefined ? [...TABLE_HEADER.slice(0, 5), `vs ${baseline}`, ...TABLE_HEADER.slice(5)] : TABLE_HEADER;
    const orders = ordersRows(d);
    const sip = sipRows(d);
    blocks.push(
      [
        `${results.experiment.name} / ${d.name}: ${joinSummary(d)}`,
        `  ${dataSummary(d)}`,
        ...(i === 0 ? [`  ${TIME_CAPTION}`] : []),
        '',
        formatTable(header, rows),
        ...(orders !== null ? ['', `  ${ordersCaption(d, repeatOf(results), timeoutMs)}`, '', formatTable(ORDERS_HEADER, orders)] : []),
        ...(sip !== null ? ['', `  ${SIP_CAPTION}`, '', formatTable(SIP_HEADER, sip)] : []),
        ...(notes.length ? ['', ...notes] : []),
      ].join('\n'),
    );
  }
  if (results.datasets.length > 1) blocks.push(`${results.experiment.name}: winners per data set\n  ${WINNERS_CAPTION}\n\n${formatWinnersTable(results)}`);
  const c = results.comparison;
  if (c !== undefined) {
    const n = results.datasets.length;
    blocks.push(`${results.experiment.name}: against ${c.baseline} over ${n} data set${n === 1 ? '' : 's'}\n  ${comparisonCaption(c, (results.experiment.orders ?? 0) > 0)}\n\n${formatComparisonTable(c)}`);
  }
  return blocks.join('\n\n');
}

// ---------------------------------------------------------------------------------------------
// SVG bar charts
// ---------------------------------------------------------------------------------------------

export interface ChartBar {
  readonly label: string;
  /** null: nothing to draw (e.g. the variant did not run); `text` explains why. */
  readonly value: number | null;
  readonly lo?: number;
  readonly hi?: number;
  readonly text: string;
  readonly kind?: 'joinlab' | 'duckdb';
}

/**
 * The chart's own coordinates (its viewBox). On the page it takes the width it has (`width:
 * 100%`) and scales: 900 units on 768 px (an 800 px window) draw a 12-unit label at 10 px.
 */
const CHART_WIDTH = 900;
const LABEL_WIDTH = 200;
const TEXT_WIDTH = 190;
const ROW_HEIGHT = 26;
const PLOT_WIDTH = CHART_WIDTH - LABEL_WIDTH - TEXT_WIDTH - 20;
/** Presentation attributes rather than CSS classes: a chart copied out of the page keeps its look. */
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif"';
const WHISKER = 'stroke="#1d2329" stroke-width="1.2"';

function niceMax(x: number, steps: readonly number[] = [1, 2, 2.5, 5, 10]): number {
  if (!(x > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of steps) if (m * p >= x) return m * p;
  return 10 * p;
}

/** A byte axis's end: a round number of the largest value's unit, in quarters that read well (400 MiB: 100, 200, 300). */
function niceBytesMax(x: number): number {
  if (!(x > 0)) return 1024;
  let unit = 1;
  while (x / unit >= 1024 && unit < 1024 ** 4) unit *= 1024;
  return niceMax(x / unit, [1, 2, 4, 6, 8, 10]) * unit;
}

/** A byte axis's tick: `125 MiB`, `62.5 MiB`, `0`. */
function bytesTick(v: number): string {
  return v === 0 ? '0' : formatBytes(v)!.replace('.0 ', ' ');
}

/** A horizontal bar chart as one inline <svg> (bars, optional min–max whiskers, value labels). */
export function barChart(title: string, bars: readonly ChartBar[], options: { max?: number; axis?: (v: number) => string; niceMax?: (x: number) => number } = {}): string {
  const dataMax = Math.max(0, ...bars.map((b) => Math.max(b.value ?? 0, b.hi ?? 0)));
  const max = options.max ?? (options.niceMax ?? niceMax)(dataMax);
  const axis = options.axis ?? ((v: number) => fmtInt(v));
  const top = 30;
  const height = top + bars.length * ROW_HEIGHT + 28;
  const x = (v: number) => LABEL_WIDTH + (max > 0 ? (Math.min(v, max) / max) * PLOT_WIDTH : 0);
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="100%" viewBox="0 0 ${CHART_WIDTH} ${height}" role="img" aria-label="${escapeHtml(title)}">`,
    `<title>${escapeHtml(title)}</title>`,
    `<text x="0" y="16" font-size="13" font-weight="600" ${FONT}>${escapeHtml(title)}</text>`,
  );
  // grid: 0, 1/4, …, max
  for (let k = 0; k <= 4; k++) {
    const v = (max * k) / 4;
    const gx = x(v).toFixed(1);
    parts.push(`<line x1="${gx}" y1="${top - 4}" x2="${gx}" y2="${top + bars.length * ROW_HEIGHT}" stroke="#eaeef2"/>`);
    parts.push(`<text x="${gx}" y="${top + bars.length * ROW_HEIGHT + 16}" font-size="10" fill="#57606a" text-anchor="middle" ${FONT}>${escapeHtml(axis(v))}</text>`);
  }
  bars.forEach((b, i) => {
    const y = top + i * ROW_HEIGHT;
    const mid = y + ROW_HEIGHT / 2;
    parts.push(`<text x="${LABEL_WIDTH - 8}" y="${mid + 4}" font-size="12" text-anchor="end" ${FONT}>${escapeHtml(b.label)}</text>`);
    if (b.value !== null && Number.isFinite(b.value)) {
      const w = Math.max(1, x(b.value) - LABEL_WIDTH);
      parts.push(`<rect x="${LABEL_WIDTH}" y="${y + 5}" width="${w.toFixed(1)}" height="${ROW_HEIGHT - 10}" fill="${b.kind === 'duckdb' ? '#e3a008' : '#2f6fdb'}"/>`);
      if (b.lo !== undefined && b.hi !== undefined) {
        const x1 = x(b.lo).toFixed(1);
        const x2 = x(b.hi).toFixed(1);
        parts.push(
          `<line x1="${x1}" y1="${mid}" x2="${x2}" y2="${mid}" ${WHISKER}/>`,
          `<line x1="${x1}" y1="${mid - 5}" x2="${x1}" y2="${mid + 5}" ${WHISKER}/>`,
          `<line x1="${x2}" y1="${mid - 5}" x2="${x2}" y2="${mid + 5}" ${WHISKER}/>`,
        );
      }
    }
    const tx = b.value !== null && Number.isFinite(b.value) ? Math.max(x(b.value), b.hi !== undefined ? x(b.hi) : 0) + 6 : LABEL_WIDTH + 6;
    parts.push(`<text x="${tx.toFixed(1)}" y="${mid + 4}" font-size="12" fill="${b.value === null ? '#57606a' : '#1d2329'}" ${FONT}>${escapeHtml(b.text)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('');
}

function notRun(v: VariantResult): string {
  return v.status === 'ok' ? 'n/a' : v.status;
}

/** What the pruning columns count: the probe side of a join, or every table scan of a query. */
function scanWord(d: DatasetResult): string {
  return d.kind === 'sql' ? 'scan' : 'probe';
}

/** With `orders`: per variant, the cost order's time (bar) and the fastest–slowest order (whisker); else null. */
export function ordersChart(d: DatasetResult): string | null {
  if (!d.variants.some((v) => v.ordersSummary !== undefined)) return null;
  const bars: ChartBar[] = d.variants.map((v) => {
    const s = v.ordersSummary;
    if (s === undefined || s.minMs === null || s.maxMs === null) return { label: v.name, value: null, text: notRun(v) };
    const over = (f: OrdersBound) => ((s.lowerBounds ?? []).includes(f) ? '> ' : '');
    const ratio = s.maxOverMin !== null ? `, max/min ${over('maxOverMin')}${s.maxOverMin.toFixed(2)}` : '';
    return { label: v.name, value: s.costMs, lo: s.minMs, hi: s.maxMs, text: `${s.costMs !== null ? `${over('costMs')}${fmtMs(s.costMs)} ms` : 'cost: n/a'}${ratio}` };
  });
  return barChart('Time over the join orders (bar: cost order; whiskers: fastest–slowest order), ms', bars, { axis: (v) => (v === 0 ? '0' : fmtMs(v)) });
}

/** The five charts of one data set: time, containers pruned, rows decoded, bytes decoded, peak memory. */
export function datasetCharts(d: DatasetResult): string[] {
  const time: ChartBar[] = d.variants.map((v) =>
    v.time
      ? { label: v.name, value: v.time.medianMs, lo: timeInterval(v.time).lo, hi: timeInterval(v.time).hi, text: `${fmtMs(v.time.medianMs)} ms${v.ratio !== null ? ` (${v.ratio.toFixed(2)}× duckdb)` : ''}` }
      : { label: v.name, value: null, text: notRun(v) },
  );
  if (d.duckdb) {
    const t = d.duckdb.time;
    const label = `duckdb (threads=${d.duckdb.threads})`;
    time.push(t ? { label, value: t.medianMs, lo: timeInterval(t).lo, hi: timeInterval(t).hi, text: `${fmtMs(t.medianMs)} ms`, kind: 'duckdb' } : { label, value: null, text: d.duckdb.status ?? 'n/a', kind: 'duckdb' });
  }
  const pruned: ChartBar[] = d.variants.map((v) =>
    v.probe
      ? {
          label: v.name,
          value: v.probe.containersTotal > 0 ? v.probe.containersPruned / v.probe.containersTotal : 0,
          text: `${v.probe.containersPruned}/${v.probe.containersTotal} (${v.probe.containersTotal > 0 ? ((100 * v.probe.containersPruned) / v.probe.containersTotal).toFixed(1) : '0'}%)`,
        }
      : { label: v.name, value: null, text: notRun(v) },
  );
  const decoded: ChartBar[] = d.variants.map((v) =>
    v.probe ? { label: v.name, value: v.probe.rowsDecoded, text: `${fmtInt(v.probe.rowsDecoded)} rows` } : { label: v.name, value: null, text: notRun(v) },
  );
  const bytes: ChartBar[] = d.variants.map((v) =>
    v.probe ? { label: v.name, value: v.probe.bytesDecoded, text: formatBytes(v.probe.bytesDecoded)! } : { label: v.name, value: null, text: notRun(v) },
  );
  const memory: ChartBar[] = d.variants.map((v) =>
    v.status === 'ok' && v.peakReservedBytes !== undefined ? { label: v.name, value: v.peakReservedBytes, text: formatBytes(v.peakReservedBytes)! } : { label: v.name, value: null, text: notRun(v) },
  );
  return [
    barChart('Time per variant (median; whiskers: 95% CI of the median, min–max with fewer than 3 runs), ms', time, { axis: (v) => (v === 0 ? '0' : fmtMs(v)) }),
    barChart(
      d.kind === 'sql' ? 'Containers (row groups) pruned, every table scan: pruned/total' : 'Probe containers (row groups) pruned: pruned/total',
      pruned,
      { max: 1, axis: (v) => `${Math.round(v * 100)}%` },
    ),
    barChart(d.kind === 'sql' ? 'Rows decoded, every table scan' : 'Probe rows decoded', decoded),
    barChart(d.kind === 'sql' ? 'Bytes decoded, every table scan' : 'Probe bytes decoded', bytes, { niceMax: niceBytesMax, axis: bytesTick }),
    barChart(d.kind === 'sql' ? 'Peak memory reserved, the largest join' : 'Peak memory reserved by the join', memory, { niceMax: niceBytesMax, axis: bytesTick }),
  ];
}

// ---------------------------------------------------------------------------------------------
// HTML page
// ---------------------------------------------------------------------------------------------

// Readable from 800 px up: the page never scrolls sideways. A table wider than the page scrolls
// in its own box (div.scroll), charts take the width they have (viewBox, width 100%), numbers
// never wrap (td.n), and the definition list's second column may shrink (minmax(0, 1fr)).
const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1d2329}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{margin-top:2.5rem;border-bottom:1px solid #d0d7de;padding-bottom:.3rem}
.meta{color:#57606a}dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.2rem 1rem}dt{font-weight:600}dd{margin:0}
pre{background:#f6f8fa;padding:.6rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all;font-size:12px}
.scroll{overflow-x:auto;max-width:100%;margin:1rem 0}
table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}tr.duck td{background:#fff8e6}
.ok{color:#1a7f37;font-weight:700}.bad{color:#cf222e;font-weight:700}.na{color:#57606a}
.filter{font-family:ui-monospace,monospace;font-size:11px;max-width:22rem}
.ran{color:#9a6700;font-size:12px;min-width:11rem}.why{white-space:nowrap}ul.names{margin:0;padding:0;list-style:none}
figure{margin:1.2rem 0}svg.chart{display:block;width:100%;height:auto}
`;

/** A table in its own horizontally scrolling box: a wide table scrolls there, not the page. */
function scrollBox(table: string): string {
  return `<div class="scroll">${table}</div>`;
}

/** Names as one cell: the name, or with several (a tie) a list, one name a line. */
function namesTd(names: readonly string[]): string {
  if (names.length === 0) return td(undefined);
  if (names.length === 1) return td(names[0]);
  return `<td><ul class="names">${names.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul></td>`;
}

/** The variant cell: its name, and under it what actually ran where a policy fell back (`fallbacks`; the reason unbroken). */
function variantTd(v: VariantResult): string {
  const ran = fallbacks(v).map((f) => {
    const i = f.lastIndexOf(' (');
    return i < 0 ? escapeHtml(f) : `${escapeHtml(f.slice(0, i))} <span class="why">${escapeHtml(f.slice(i + 1))}</span>`;
  });
  if (ran.length === 0) return td(v.name);
  return `<td class="variant">${escapeHtml(v.name)}${ran.map((f) => `<div class="ran">${f}</div>`).join('')}</td>`;
}

function td(v: unknown, numeric = false, cls = ''): string {
  const text = v === undefined || v === null ? '-' : typeof v === 'number' ? fmtNum(v) : String(v);
  const c = [numeric ? 'n' : '', cls].filter(Boolean).join(' ');
  return `<td${c ? ` class="${c}"` : ''}>${escapeHtml(text)}</td>`;
}

function fmtNum(v: number): string {
  return Number.isInteger(v) ? fmtInt(v) : String(Math.round(v * 1000) / 1000);
}

function overridesText(v: VariantResult): string {
  const entries = Object.entries(v.overrides).filter(([k]) => k !== 'extensions');
  return entries.length ? entries.map(([k, val]) => `${k}=${Array.isArray(val) ? val.join(',') : String(val)}`).join(' ') : '(defaults)';
}

function resultsTable(d: DatasetResult, timeoutMs: number | null): string {
  const w = scanWord(d);
  const baseline = baselineOf(d);
  const cmp = (v: VariantResult) => (baseline !== undefined ? td(comparisonCell(v, baseline)) : '');
  const head = ['variant', 'overrides', 'median ms', '95% CI ms', 'runs', '× duckdb', ...(baseline !== undefined ? [`vs ${baseline}`] : []), 'rows', `${w} pruned/total`, `${w} rows decoded`, `${w} rows kept`, `${w} bytes decoded`, 'peak memory', d.kind === 'sql' ? 'dynamic filters' : 'dynamic filter', 'parity'];
  const rows = d.variants.map((v) => {
    const filter = v.dynamicFilter ?? (v.status === 'ok' ? '-' : (v.reason ?? ''));
    const shown = v.status === 'ok' ? filterLabel(v) : filter;
    const pc = v.status !== 'ok' ? 'na' : !v.parity ? 'na' : v.parity.equal ? 'ok' : 'bad';
    return (
      `<tr>${variantTd(v)}${td(overridesText(v))}${td(medianCell(v, timeoutMs), true)}` +
      `${td(rangeCell(v), true)}${td(runsCell(v), true)}${td(v.ratio, true)}${cmp(v)}${td(v.rows, true)}` +
      `${td(prunedText(v), true)}${td(v.probe?.rowsDecoded, true)}${td(v.probe?.rowsAfterFilter, true)}${td(formatBytes(v.probe?.bytesDecoded), true)}` +
      `${td(formatBytes(v.peakReservedBytes), true)}<td class="filter" title="${escapeHtml(filter)}">${escapeHtml(shown)}</td>${td(parityText(v), false, pc)}</tr>`
    );
  });
  if (d.duckdb) {
    const k = d.duckdb;
    rows.push(
      `<tr class="duck">${td(`duckdb (threads=${k.threads})`)}${td('same SQL, same files')}${td(medianCell(k, timeoutMs), true)}${td(rangeCell(k), true)}${td(runsCell(k), true)}` +
        `${td(k.time ? 1 : undefined, true)}${baseline !== undefined ? td(undefined) : ''}${td(k.rows, true)}${td(undefined)}${td(undefined)}${td(undefined)}${td(undefined)}${td(undefined)}${td(undefined)}${td(undefined)}</tr>`,
    );
  }
  const full = d.variants.filter((v) => v.dynamicFilter !== undefined).map((v) => `${v.name}: ${v.dynamicFilter}`);
  const detail = full.length === 0 ? '' : `<details><summary>dynamic filters in full</summary><pre>${escapeHtml(full.join('\n'))}</pre></details>`;
  return `${scrollBox(`<table class="results"><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`)}${detail}`;
}

/**
 * The variants that won a data set on time, as the winners table shows them: the fastest, or every
 * variant tied with it (`DatasetWinners.tied`); the HTML cell lists them one a line under `tie:`.
 */
export function fastestNames(w: DatasetWinners): readonly string[] {
  return w.tied;
}

/** The winners table of the whole experiment (HTML); the name columns can list several (ties). */
function winnersTable(results: ExperimentResults): string {
  const fastestCol = WINNERS_HEADER.indexOf('fastest');
  const fewestCol = WINNERS_HEADER.indexOf('decoded fewest rows');
  const body = winnersRows(results).map((r, d) => {
    const w = winnersOf(results.datasets[d]!);
    const names = fastestNames(w);
    const cell = (c: unknown, i: number) => (i === fastestCol ? namesTd(names.length > 1 ? ['tie:', ...names] : names) : i === fewestCol ? namesTd(w.fewestDecoded?.names ?? []) : td(c, typeof c === 'number'));
    return `<tr>${r.map(cell).join('')}</tr>`;
  });
  return `<section><h2>Winners per data set</h2><p>${escapeHtml(WINNERS_CAPTION)}</p>${scrollBox(`<table class="winners"><thead><tr>${WINNERS_HEADER.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${body.join('')}</tbody></table>`)}</section>`;
}

/** A plain HTML table (numbers right-aligned). */
function htmlTable(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const body = rows.map((r) => `<tr>${r.map((c) => td(c, typeof c === 'number')).join('')}</tr>`);
  return scrollBox(`<table><thead><tr>${header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${body.join('')}</tbody></table>`);
}

/** The information-passing table of a `sql:` data set (when it has one to show). */
function sipSection(d: DatasetResult): string {
  const rows = sipRows(d);
  if (rows === null) return '';
  return `<h3>Information passing</h3><p>${escapeHtml(SIP_CAPTION)}</p>${htmlTable(SIP_HEADER, rows)}`;
}

/** Notes on DuckDB's runs: a timeout, parity not checked. */
function duckdbNotes(d: DatasetResult): string {
  const notes = [
    ...(d.duckdb?.status === 'timeout' && d.parityUnchecked === undefined ? [`duckdb: timeout — ${d.duckdb.reason ?? ''}`] : []),
    ...(d.parityUnchecked !== undefined ? [`parity not checked: ${d.parityUnchecked}`] : []),
  ];
  return notes.length > 0 ? `<pre>${escapeHtml(notes.join('\n'))}</pre>` : '';
}

/** With `orders`: the join-order table, its notes and its chart. */
function ordersSection(d: DatasetResult, repeat: string, timeoutMs: number | null): string {
  const rows = ordersRows(d);
  if (rows === null) return '';
  const notes = orderNotes(d);
  return [
    `<h3>Join orders</h3><p>${escapeHtml(ordersCaption(d, repeat, timeoutMs))}</p>`,
    htmlTable(ORDERS_HEADER, rows),
    notes.length ? `<pre>${escapeHtml(notes.join('\n'))}</pre>` : '',
    `<figure>${ordersChart(d)!}</figure>`,
  ].join('\n');
}

/** Every variant against the baseline over the data sets (HTML). */
function comparisonSection(results: ExperimentResults): string {
  const c = results.comparison;
  if (c === undefined) return '';
  return `<section><h2>${escapeHtml(`Against ${c.baseline}`)}</h2><p>${escapeHtml(comparisonCaption(c, (results.experiment.orders ?? 0) > 0))}</p>${htmlTable(comparisonHeader(c), comparisonRows(c))}</section>`;
}

function datasetSection(d: DatasetResult, repeat: string, warmup: number, timeoutMs: number | null): string {
  const charts = datasetCharts(d);
  const fileLine = (name: string, f: FileInfo) => `${name}: ${f.path} (${fmtInt(f.rows)} rows, ${f.rowGroups} row groups, ${formatBytes(f.bytes)})`;
  const files = (d.kind === 'sql' ? Object.entries(d.tables).map(([name, t]) => fileLine(name, t.file)) : (['left', 'right'] as const).map((s) => fileLine(s, d.files[s]))).join('\n');
  const timed = d.kind === 'sql' ? 'engine.sql (parse + open files + every join + materialise)' : 'engine.join (open files + join + materialise)';
  return [
    `<section><h2>${escapeHtml(d.name)}</h2>`,
    '<dl>',
    `<dt>data</dt><dd>${escapeHtml(dataSummary(d))}</dd>`,
    `<dt>files</dt><dd><pre>${escapeHtml(files)}</pre></dd>`,
    d.kind === 'sql' ? '' : `<dt>join</dt><dd>${escapeHtml(joinSummary(d))}</dd>`,
    `<dt>${d.kind === 'sql' ? 'SQL (joinlab and DuckDB)' : 'DuckDB SQL'}</dt><dd><pre>${escapeHtml(d.sql)}</pre></dd>`,
    `<dt>runs</dt><dd>${escapeHtml(`${warmup} warm-up + ${repeat} per variant${d.variants.some((v) => v.orders !== undefined) ? ' and join order' : ''}; time = wall time of ${timed} vs DuckDB CREATE TEMP TABLE AS${d.duckdb ? ` (threads=${d.duckdb.threads}, joinlab's too)` : ''}${timeoutMs !== null ? `; each run limited to ${timeoutMs / 1000} s (past it: timeout, the other runs skipped)` : ''}`)}</dd>`,
    '</dl>',
    `<p class="meta">${escapeHtml(TIME_CAPTION)}</p>`,
    resultsTable(d, timeoutMs),
    duckdbNotes(d),
    ordersSection(d, repeat, timeoutMs),
    sipSection(d),
    ...charts.map((svg) => `<figure>${svg}</figure>`),
    '</section>',
  ].join('\n');
}

/** The run's conditions: load average at start and end, malloc settings, thread counts (empty for older results). */
export function runConditions(m: ExperimentResults['machine']): string {
  const parts: string[] = [];
  const load = (xs: readonly number[]) => xs.map((x) => x.toFixed(2)).join(' ');
  if (m.loadAverage) parts.push(`load average (1/5/15 min) ${load(m.loadAverage.start)} at start, ${load(m.loadAverage.end)} at end`);
  if (m.allocator) parts.push(`malloc: MALLOC_MMAP_THRESHOLD_ ${m.allocator.MALLOC_MMAP_THRESHOLD_}, MALLOC_TRIM_THRESHOLD_ ${m.allocator.MALLOC_TRIM_THRESHOLD_}`);
  if (m.threads) {
    const counts = [...new Set(Object.values(m.threads.joinlab))];
    const joinlab = counts.length === 1 ? String(counts[0]) : Object.entries(m.threads.joinlab).map(([k, v]) => `${k} ${v}`).join(', ');
    parts.push(`threads: joinlab ${joinlab || '-'}, DuckDB ${m.threads.duckdb}`);
  }
  return parts.join(' · ');
}

/** The whole report as one self-contained HTML page (inline CSS and SVG, no scripts). */
export function renderReport(results: ExperimentResults): string {
  const e = results.experiment;
  const m = results.machine;
  const machine = `${m.os} (${m.arch}), ${m.cpus} × ${m.cpuModel}, ${formatBytes(m.memoryBytes)} RAM; Node ${m.node}; joinlab ${m.joinlab}; DuckDB ${m.duckdb} (@duckdb/node-api ${m.duckdbNodeApi})`;
  const conditions = runConditions(m);
  const verdict = results.datasets.some((d) => d.variants.some((v) => v.parity))
    ? results.parityOk
      ? '<p class="ok">Every checked answer matches DuckDB.</p>'
      : '<p class="bad">Some answers differ from DuckDB (see the parity column).</p>'
    : '';
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(`joinlab experiment: ${e.name}`)}</title>`,
    `<style>${CSS}</style></head><body>`,
    `<h1>${escapeHtml(e.name)}</h1>`,
    e.description ? `<p>${escapeHtml(e.description)}</p>` : '',
    `<p class="meta">${escapeHtml(`${results.timestamp} · ${machine} · total ${(results.wallMs / 1000).toFixed(1)} s · experiment file ${e.copy}`)}</p>`,
    conditions !== '' ? `<p class="meta">${escapeHtml(conditions)}</p>` : '',
    // `joinlab run --set`: the file alone does not say what ran
    e.set !== undefined && Object.keys(e.set).length > 0
      ? `<p class="meta">${escapeHtml(`command-line overrides in every variant: ${Object.entries(e.set).map(([k, v]) => `--set ${k}=${Array.isArray(v) ? v.join(',') : String(v)}`).join(' ')}`)}</p>`
      : '',
    verdict,
    comparisonSection(results),
    results.datasets.length > 1 ? winnersTable(results) : '',
    ...results.datasets.map((d) => datasetSection(d, repeatOf(results), e.warmup, timeoutMsOf(results))),
    '</body></html>',
    '',
  ].join('\n');
}
