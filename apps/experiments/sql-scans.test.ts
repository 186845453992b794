/**
 * The table scans of an Engine.sql result: the fact scan by name or alias; the sum of every counter.
 */
import { describe, expect, it } from 'vitest';
import { Table } from 'apache-arrow';
import type { JoinMetrics } from '../../core/engine.ts';
import { newScanMetrics, type ScanMetrics } from '../../core/metrics.ts';
import type { SqlResult } from '../../adapters/sql/run.ts';
import { scanOf, sqlScans, sumScans } from './sql-scans.ts';

const scan = (containersTotal: number, containersPruned: number, rowsDecoded: number): ScanMetrics => ({ ...newScanMetrics(), containersTotal, containersPruned, rowsDecoded });
const join = (left: ScanMetrics, right: ScanMetrics) => ({ scans: { left, right } }) as unknown as JoinMetrics;

describe('sqlScans', () => {
  const [fact, dates, middle, customers] = [scan(100, 90, 10_240), scan(1, 0, 1096), scan(3, 1, 20_000), scan(10, 9, 10_000)];
  const chain = { table: new Table(), joins: [join(fact, dates), join(middle, customers)], orderedBy: [] } as unknown as SqlResult;

  it('reads the scans the result reports, finds a table by name or alias, sums them', () => {
    const reported = [
      { table: 'date_dim', alias: 'd', metrics: dates, filters: ['d.month = 3'] },
      { table: 'fact', alias: 'f', metrics: fact, filters: [] },
    ];
    const scans = sqlScans({ ...chain, scans: reported } as unknown as SqlResult);
    expect(scans).toBe(reported);
    expect(scanOf(scans, 'fact')!.metrics).toBe(fact);
    expect(scanOf(scans, 'd')!.metrics).toBe(dates);
    expect(scanOf(scans, 'product')).toBeUndefined();
    expect(sumScans(scans)).toMatchObject({ containersTotal: 101, containersPruned: 90, rowsDecoded: 11_336 });
  });
});
