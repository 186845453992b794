/**
 * `pushdown.rowFilter`: the gate's pause / re-sample cycle, and end to end through the hash join —
 * `auto` pauses a row test that keeps most rows and keeps one that drops most, `always` tests every
 * batch, `never` none, and all three give the same answer (a paused test keeps rows: always safe).
 */
import { Table } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { int64Data, int64Values, tableOf } from '../../adapters/datagen/keys.ts';
import { KEEP_LIMIT, PAUSE_ROWS, RowFilterGate, SAMPLE_ROWS } from './row-gate.ts';

describe('RowFilterGate', () => {
  it('tests a sample, pauses for PAUSE_ROWS when it kept more than KEEP_LIMIT, then samples again', () => {
    const gate = new RowFilterGate();
    const batch = SAMPLE_ROWS / 4;
    for (let i = 0; i < 4; i++) {
      expect(gate.shouldTest(batch)).toBe(true);
      gate.observe(batch, batch * 0.9);
    }
    let skipped = 0;
    while (!gate.shouldTest(batch)) skipped += batch;
    expect(skipped).toBe(PAUSE_ROWS);
    expect(gate.skippedRows).toBe(PAUSE_ROWS);
    expect(gate.testedRows).toBe(SAMPLE_ROWS);
    expect(gate.summary()).toBe(`tested ${SAMPLE_ROWS} rows (kept 90.0%), skipped ${PAUSE_ROWS}`);
  });

  it('never pauses a test that drops most rows', () => {
    const gate = new RowFilterGate();
    for (let i = 0; i < 100; i++) {
      expect(gate.shouldTest(SAMPLE_ROWS)).toBe(true);
      gate.observe(SAMPLE_ROWS, Math.floor(SAMPLE_ROWS * KEEP_LIMIT));
    }
    expect(gate.skippedRows).toBe(0);
  });
});

describe('pushdown.rowFilter through the hash join', () => {
  // build: keys 0, 10, 20, … (10K rows); probe: 400K keys, `half` of them beyond the build's max
  const build = tableOf({ k: int64Data(int64Values(10_000, (i) => i * 10)) }, 4096);
  const probe = (inside: number) =>
    tableOf({ k: int64Data(int64Values(400_000, (i) => (i % 100 < inside ? (i * 7) % 100_000 : 1_000_000 + i))) }, 8192);

  async function join(rowFilter: string, p: Table, bitmap = false) {
    const engine = await Engine.create({ join: 'hash', pushdown: 'auto', 'pushdown.rowFilter': rowFilter, 'pushdown.keyRangeBitmap': bitmap, 'hash.build': 'right' });
    const { table, metrics } = await engine.join({ type: 'inner', on: 'k=k' }, p, build);
    return { rows: table.numRows, scan: metrics.scans.left, details: metrics.operators.join!.details };
  }

  it('auto pauses bounds that keep half the rows; always tests every batch; never none; same rows', async () => {
    const p = probe(50);
    const auto = await join('auto', p);
    const always = await join('always', p);
    const never = await join('never', p);
    expect(auto.rows).toBe(always.rows);
    expect(never.rows).toBe(always.rows);
    // always: bounds and the map's membership per row (salts only: a few false positives)
    expect(always.scan.rowsAfterFilter).toBeGreaterThanOrEqual(always.rows);
    expect(always.scan.rowsAfterFilter).toBeLessThan(1.1 * always.rows);
    expect(always.details.rowFilter).toBe('every batch tested');
    expect(never.scan.rowsAfterFilter).toBe(400_000);
    expect(auto.details.rowFilter).toMatch(/^tested \d+ rows \(kept 50\.0%\), skipped [1-9]\d*$/);
    expect(auto.scan.rowsAfterFilter).toBeGreaterThan(300_000);
    // per row, auto runs bounds only: the map lookup is the join's own probe
    expect(auto.details.dynamicFilter).toMatch(/\[per row: k BETWEEN 0 AND 99990\]$/);
  });

  it('auto keeps testing when the test drops most rows', async () => {
    const auto = await join('auto', probe(10));
    expect(auto.details.rowFilter).toMatch(/kept 10\.0%\), skipped 0$/);
    expect(auto.scan.rowsAfterFilter).toBe(40_000);
  });

  it('auto keeps a KeyRangeBitmap per row (cheap), which here drops most rows', async () => {
    const auto = await join('auto', probe(50), true);
    expect(auto.details.dynamicFilter).toMatch(/\[per row: k BETWEEN 0 AND 99990 AND BITMAP\(/);
    expect(auto.details.rowFilter).toMatch(/kept 5\.0%\), skipped 0$/);
    expect(auto.scan.rowsAfterFilter).toBe(auto.rows);
  });
});
