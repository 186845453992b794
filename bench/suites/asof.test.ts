/**
 * The asof suite computes the right thing: on a small data set (written by the suite's own
 * generator into a temporary cache), its joinlab case and its DuckDB case both return DuckDB's
 * count and price sum, some events find no earlier quote, and a different answer is refused.
 * No timings.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { readTable } from '../../adapters/io/index.ts';
import { asofCasesOn, asofFiles, checkAsofAnswer, duckdbAsofAnswer, WrongAsofAnswerError } from './asof.ts';

const EVENTS = 20_000;
const QUOTES = 1_000;
let root: string;
let duck: DuckDBSession;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'joinlab-asof-'));
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(async () => {
  duck.close();
  await rm(root, { recursive: true, force: true });
});

describe('the asof suite', () => {
  it("runs its case with joinlab's answer equal to DuckDB's, and finds the cached files again", async () => {
    const files = await asofFiles(duck, EVENTS, QUOTES, root);
    expect(await asofFiles(duck, EVENTS, QUOTES, root)).toEqual(files);
    await duck.loadParquet('asof_events', files.events);
    await duck.loadParquet('asof_quotes', files.quotes);
    const events = await readTable(files.events);
    const quotes = await readTable(files.quotes);
    expect([events.numRows, quotes.numRows]).toEqual([EVENTS, QUOTES]);
    const want = await duckdbAsofAnswer(duck);
    // most events find a quote (10 a ticker here); those before their ticker's first quote do not
    expect(want.rows).toBeGreaterThan(EVENTS * 0.8);
    expect(want.rows).toBeLessThan(EVENTS);
    for (const threads of [1, 2]) {
      const [c, ...rest] = await asofCasesOn(duck, events, quotes, { threads });
      expect(rest).toHaveLength(0);
      expect(await c!.joinlab()).toBe(want.rows);
      expect(await c!.duckdb()).toBe(want.rows);
      expect(Number(c!.facts!()['joinlabPeakReservedBytes'])).toBeGreaterThan(0);
      await c!.close!();
    }
  });

  it('refuses an answer that is not DuckDB’s', () => {
    const want = { rows: 10, price: 1234.5 };
    expect(checkAsofAnswer('joinlab', { rows: 10, price: 1234.5 * (1 + 1e-12) }, want)).toBe(10);
    expect(() => checkAsofAnswer('joinlab', { rows: 10, price: 1234.6 }, want)).toThrow(WrongAsofAnswerError);
    expect(() => checkAsofAnswer('joinlab', { rows: 11, price: 1234.5 }, want)).toThrow(WrongAsofAnswerError);
  });
});
