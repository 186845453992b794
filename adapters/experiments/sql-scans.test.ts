/**
 * The table scans of an Engine.sql result: `scans` when the result carries them, else the leaves of
 * its left-deep join chain; the fact scan by name or position; the sum of every counter.
 */
import { describe, expect, it } from 'vitest';
import { Table } from 'apache-arrow';
import type { JoinMetrics } from '../../core/engine.ts';
import { newScanMetrics, type ScanMetrics } from '../../core/metrics.ts';
import type { SqlResult } from '../sql/run.ts';
import { scanOf, sqlScans, sumScans } from './sql-scans.ts';

const scan = (containersTotal: number, containersPruned: number, rowsDecoded: number): ScanMetrics => ({ ...newScanMetrics(), containersTotal, containersPruned, rowsDecoded });
const join = (left: ScanMetrics, right: ScanMetrics) => ({ scans: { left, right } }) as unknown as JoinMetrics;

describe('sqlScans', () => {
  const [fact, dates, middle, customers] = [scan(100, 90, 10_240), scan(1, 0, 1096), scan(3, 1, 20_000), scan(10, 9, 10_000)];
  const chain = { table: new Table(), joins: [join(fact, dates), join(middle, customers)], orderedBy: [] } as SqlResult;

  it('reads the leaves of a left-deep chain (the first left input, every right input) when the result has no scans', () => {
    const scans = sqlScans(chain);
    expect(scans.map((s) => s.metrics)).toEqual([fact, dates, customers]);
    expect(scans.every((s) => s.table === '' && s.alias === '' && s.filters.length === 0)).toBe(true);
    expect(scanOf(scans, 'fact', 0)!.metrics).toBe(fact);
    expect(sumScans(scans)).toMatchObject({ containersTotal: 111, containersPruned: 99, rowsDecoded: 21_336 });
    expect(sqlScans({ ...chain, joins: [] })).toEqual([]);
  });

  it('prefers the scans the result reports, and finds a table by name or alias', () => {
    const reported = [
      { table: 'date_dim', alias: 'd', metrics: dates, filters: ['d.month = 3'] },
      { table: 'fact', alias: 'f', metrics: fact, filters: [] },
    ];
    const scans = sqlScans({ ...chain, scans: reported } as SqlResult);
    expect(scans).toBe(reported);
    expect(scanOf(scans, 'fact', 0)!.metrics).toBe(fact);
    expect(scanOf(scans, 'd', 1)!.metrics).toBe(dates);
    expect(scanOf(scans, 'product', 0)).toBeUndefined();
  });
});
