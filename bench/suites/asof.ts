/**
 * `asof` suite (issue 32): the ASOF join (`join=asof`) on the shape of a market-data join, 10M
 * events x 100K quotes at scale 1 (`--scale` multiplies both):
 *
 *   SELECT count(*), sum(q.price) FROM events e ASOF JOIN quotes q ON e.ticker = q.ticker AND e.ts >= q.ts
 *
 * - quotes: `ticker` INTEGER (100 tickers, round-robin, so 1 000 quotes each at scale 1), `ts`
 *   TIMESTAMP (a random microsecond of one day), `price` DOUBLE;
 * - events: `id` BIGINT, `ticker` INTEGER (random among the 100), `ts` TIMESTAMP (a random
 *   microsecond of the same day, so a few events of each ticker precede its first quote and find
 *   nothing: the inner ASOF join drops them).
 * Integer tickers, as DuckDB's own `benchmark/micro/join/asof_join.benchmark` (v1.5.5) keys its
 * ASOF benchmark, and so the joinlab side reads 10M rows without decoding strings.
 *
 * Why the randomness is `hash()` and not `random()`: DuckDB's `random()` under several threads
 * does not repeat, and the files are cached by a key that says they would be written again
 * identically (`writeCachedTables`, under `os.tmpdir()/joinlab-data/asof-<hash>/`).
 *
 * Both sides answer the same question, count and sum: DuckDB on the tables loaded into its memory,
 * joinlab (`join=asof`) on the files read into Arrow tables, its output streamed (only `price`
 * selected) and summed batch by batch, as DuckDB's aggregate consumes its join's output; neither
 * materialises 10M output rows. DuckDB's answer is computed once at setup and every run of either
 * side is checked against it (count exactly, the sum to 1e-9 relative): a wrong answer stops the
 * suite. Facts: joinlab's peak reserved memory.
 */
import type { Table } from 'apache-arrow';
import { Engine } from '../../composition.ts';
import type { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { writeCachedTables } from '../../adapters/datagen/cached-parquet.ts';
import { readTable } from '../../adapters/io/index.ts';
import { caseConfig, type BenchCase, type SuiteOverrides } from '../harness.ts';

/** Tickers: every quote and event belongs to one of these many. */
export const ASOF_TICKERS = 100;
const DAY_US = 86_400_000_000;
const GENERATOR_VERSION = 1;

export interface AsofAnswer {
  readonly rows: number;
  readonly price: number;
}

/** An answer that is not DuckDB's. */
export class WrongAsofAnswerError extends Error {
  override name = 'WrongAsofAnswerError';
}

/** The two tables' SELECTs (events first: the larger one). */
export function asofTableSql(events: number, quotes: number): { events: string; quotes: string } {
  const ts = (salt: string) => `TIMESTAMP '2026-01-05 00:00:00' + to_microseconds((hash(i, '${salt}') % ${DAY_US})::BIGINT)`;
  return {
    events: `SELECT i::BIGINT AS id, (hash(i, 'ticker') % ${ASOF_TICKERS})::INTEGER AS ticker, ${ts('ets')} AS ts FROM range(${events}) t(i)`,
    quotes: `SELECT (i % ${ASOF_TICKERS})::INTEGER AS ticker, ${ts('qts')} AS ts, (100 + (hash(i, 'price') % 100000) / 1000.0)::DOUBLE AS price FROM range(${quotes}) t(i)`,
  };
}

/** The data set's files, written by DuckDB or found in the cache. */
export async function asofFiles(duck: DuckDBSession, events: number, quotes: number, root?: string): Promise<{ events: string; quotes: string }> {
  const sql = asofTableSql(events, quotes);
  const g = await writeCachedTables(
    duck,
    {
      name: 'asof',
      key: { events, quotes, tickers: ASOF_TICKERS, version: GENERATOR_VERSION },
      rowGroupSize: 122_880,
      tables: { events: { sql: sql.events, order: [] }, quotes: { sql: sql.quotes, order: [] } },
      meta: { suite: 'bench/suites/asof.ts', events, quotes },
    },
    root === undefined ? {} : { root },
  );
  return { events: g.tables['events']!.path, quotes: g.tables['quotes']!.path };
}

/** DuckDB's query over tables `events` and `quotes` it holds. */
export const ASOF_SQL = 'SELECT count(*), sum(q.price) FROM asof_events e ASOF JOIN asof_quotes q ON e.ticker = q.ticker AND e.ts >= q.ts';

/** The joinlab join: each event gets the latest quote of its ticker at or before it. */
export const ASOF_SPEC = { type: 'inner', on: 'ticker=ticker', range: 'ts >= ts', select: 'price' } as const;

export async function duckdbAsofAnswer(duck: DuckDBSession): Promise<AsofAnswer> {
  const [row] = await duck.queryRows(ASOF_SQL);
  return { rows: Number(row![0]), price: Number(row![1] ?? 0) };
}

/** joinlab's answer: the ASOF join streamed, its `price` column summed batch by batch. */
export async function joinlabAsofAnswer(engine: Engine, events: Table, quotes: Table): Promise<AsofAnswer & { readonly peakReservedBytes: number }> {
  const s = await engine.stream(ASOF_SPEC, events, quotes);
  let rows = 0;
  let price = 0;
  for await (const b of s.batches) {
    rows += b.numRows;
    const d = b.getChildAt(0)!.data[0]!;
    const values = d.values as Float64Array;
    if (d.nullCount > 0) throw new WrongAsofAnswerError('asof: an inner ASOF join returned a NULL price');
    for (let i = 0; i < d.length; i++) price += values[d.offset + i]!;
  }
  return { rows, price, peakReservedBytes: s.metrics.memory.peakReservedBytes };
}

/** Throws WrongAsofAnswerError unless `got` is `want` (rows exactly, the sum to 1e-9 relative: the order of summation differs). */
export function checkAsofAnswer(engine: string, got: AsofAnswer, want: AsofAnswer): number {
  const close = Math.abs(got.price - want.price) <= 1e-9 * Math.max(1, Math.abs(want.price));
  if (got.rows === want.rows && close) return got.rows;
  throw new WrongAsofAnswerError(`asof: ${engine} answered ${JSON.stringify(got)}, DuckDB ${JSON.stringify(want)}`);
}

/** The suite's cases on tables already loaded into `duck` as `asof_events` / `asof_quotes`. */
export async function asofCasesOn(duck: DuckDBSession, events: Table, quotes: Table, overrides: SuiteOverrides): Promise<BenchCase[]> {
  const engine = await Engine.create(caseConfig({ join: 'asof' }, overrides));
  const want = await duckdbAsofAnswer(duck);
  let peak = 0;
  return [
    {
      name: `asof events ${events.numRows} x quotes ${quotes.numRows} (${ASOF_TICKERS} tickers)`,
      joinlab: async () => {
        const got = await joinlabAsofAnswer(engine, events, quotes);
        peak = got.peakReservedBytes;
        return checkAsofAnswer('joinlab', got, want);
      },
      duckdb: async () => checkAsofAnswer('DuckDB', await duckdbAsofAnswer(duck), want),
      iterations: { timed: 3, warmup: 1 },
      facts: () => ({ joinlabPeakReservedBytes: peak }),
      close: async () => {
        await engine.close();
      },
    },
  ];
}

export async function asofCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides = {}): Promise<BenchCase[]> {
  const events = Math.max(100, Math.round(10_000_000 * scale));
  const quotes = Math.max(ASOF_TICKERS, Math.round(100_000 * scale));
  process.stderr.write(`  asof: ${events} events x ${quotes} quotes (written once by DuckDB, then cached)…\n`);
  const files = await asofFiles(duck, events, quotes);
  await duck.loadParquet('asof_events', files.events);
  await duck.loadParquet('asof_quotes', files.quotes);
  return asofCasesOn(duck, await readTable(files.events), await readTable(files.quotes), overrides);
}
