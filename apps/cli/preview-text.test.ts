/**
 * The CLI's preview text (`joinlab join` without --out) for DuckDB's types: adapters/io/text.ts's
 * values, end to end through the join command. The text functions' own cases are in
 * adapters/io/text.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { Field, FixedSizeBinary, Float64, IntervalMonthDayNano, makeData, makeVector, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXTENSION_NAME, UUID_EXTENSION } from '../../adapters/io/parquet-types.ts';
import { previewValue } from '../../adapters/io/text.ts';
import { runJoinCommand } from './join-command.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-text-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('DuckDB-style text', () => {
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
