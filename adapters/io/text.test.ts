import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { Field, FixedSizeBinary, Float64, IntervalMonthDayNano, makeData, makeVector, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runJoinCommand } from '../cli/join-command.ts';
import { EXTENSION_NAME, UUID_EXTENSION } from './parquet-types.ts';
import { dateText, floatText, intervalText, previewValue, timestampText } from './text.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-text-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('DuckDB-style text', () => {
  it('intervals, floats, dates and timestamps read like DuckDB prints them', () => {
    expect(intervalText(14, 3, 4n * 3600n * 10n ** 9n)).toBe('1 year 2 months 3 days 04:00:00');
    expect(intervalText(1, 2, 1_500_000_000n)).toBe('1 month 2 days 00:00:01.5');
    expect(intervalText(0, 0, 0n)).toBe('00:00:00');
    expect(intervalText(-1, -2, -3_000_000_000n)).toBe('-1 month -2 days -00:00:03');
    expect(intervalText(0, 0, 100n * 3600n * 10n ** 9n + 1_000_000n)).toBe('100:00:00.001');
    expect([1.5, 1, 1e20, 0.1, NaN, Infinity, -0, 1e-7, 123456789012345678, 1e16, 1e15, 1e-5, 0.0001].map((v) => floatText(v, false))).toEqual([
      '1.5', '1.0', '1e+20', '0.1', 'nan', 'inf', '-0.0', '1e-07', '1.2345678901234568e+17', '1e+16', '1000000000000000.0', '1e-05', '0.0001',
    ]);
    expect(floatText(Math.fround(0.1), true)).toBe('0.1');
    expect(dateText(2147483647)).toBe('infinity');
    expect(dateText(Date.UTC(-44, 2, 15) / 86_400_000)).toBe('0045-03-15 (BC)'); // ISO year -44
    expect(dateText(0)).toBe('1970-01-01');
    expect(timestampText(1_704_164_645_500_000n, 2, true)).toBe('2024-01-02 03:04:05.5+00');
  });

  it('the CLI preview shows intervals and UUIDs as DuckDB does, numbers as numbers', async () => {
    const iv = makeVector(makeData({ type: new IntervalMonthDayNano(), length: 1, data: Int32Array.from([1, 2, 1_500_000_000, 0]) }));
    const u = makeVector(makeData({ type: new FixedSizeBinary(16), length: 1, data: Uint8Array.from({ length: 16 }, (_, i) => i * 17) }));
    const uf = new Field('u', u.type, true, new Map([[EXTENSION_NAME, UUID_EXTENSION]]));
    expect(previewValue(iv, 0)).toBe('1 month 2 days 00:00:01.5');
    expect(previewValue(u, 0, uf)).toBe('00112233-4455-6677-8899-aabbccddeeff');
    expect(previewValue(vectorFromArray([2.5], new Float64()), 0)).toBe(2.5);

    // end to end: a DuckDB file through `joinlab join` without --out
    const p = join(dir, 'typed.parquet');
    const duck = await DuckDBInstance.create(':memory:');
    const con = await duck.connect();
    await con.run(
      `COPY (SELECT 1 AS k, INTERVAL '1 month 2 days 1.5 seconds' AS iv, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::UUID AS u, '12:34:56+02'::TIMETZ AS t, [1, NULL] AS l, 1.50::DECIMAL(9,2) AS d, TIMESTAMP '2024-01-02 03:04:05.678901' AS ts) TO '${p}'`,
    );
    con.closeSync();
    duck.closeSync();
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    try {
      await runJoinCommand({ left: p, right: p, on: 'k=k', type: 'inner', select: 'iv,u,t,l,d,ts', nullEqualsNull: false, nullAware: false, set: [], json: false });
    } finally {
      spy.mockRestore();
    }
    const text = out.join('');
    expect(text).toContain('1 month 2 days 00:00:01.5');
    expect(text).toContain('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    expect(text).toContain('10:34:56+00');
    expect(text).toContain('[1, NULL]');
    expect(text).toContain('1.50');
    expect(text).toContain('2024-01-02 03:04:05.678901');
  });
});
