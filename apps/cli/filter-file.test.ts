/**
 * `joinlab join --filter @FILE` (issue 31): the filter's text read from a file — a filter of
 * 9,000 ORed equalities does not belong in an argument list — and a missing file is a typed
 * error naming it (exit 2, one line). The 9,000-term OR runs as one set lookup
 * (core/expr/in-set-node.ts), so the join answers what the same OR says, quickly.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Int64, Table, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeParquetFile } from '../../adapters/io/parquet.ts';
import { runCli } from './test-helpers.ts';

const work = mkdtempSync(join(tmpdir(), 'joinlab-filter-file-'));
const p = (name: string) => join(work, name);
const ROWS = 20_000;

beforeAll(async () => {
  const a = vectorFromArray(Array.from({ length: ROWS }, (_, i) => BigInt(i)), new Int64());
  const k = vectorFromArray(Array.from({ length: ROWS }, (_, i) => BigInt(i % 100)), new Int64());
  await writeParquetFile(p('left.parquet'), new Table({ a, k }));
  await writeParquetFile(p('right.parquet'), new Table({ k: vectorFromArray(Array.from({ length: 100 }, (_, i) => BigInt(i)), new Int64()) }));
  // 9,000 terms: l.a = 0 OR l.a = 2 OR … l.a = 17998 (9,000 of the 20,000 left rows, each with one match)
  writeFileSync(p('or.txt'), `${Array.from({ length: 9000 }, (_, i) => `l.a = ${i * 2}`).join(' OR ')}\n`);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const join9000 = (filter: string) => runCli(['join', '--left', p('left.parquet'), '--right', p('right.parquet'), '--on', 'k=k', '--type', 'inner', '--filter', filter, '--json']);

describe('joinlab join --filter @FILE', () => {
  it('reads the filter from the file: 9,000 ORed equalities', async () => {
    const r = await join9000(`@${p('or.txt')}`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { rows: number }).rows).toBe(9000);
    // the same filter inline gives the same answer
    const inline = await join9000('l.a = 0 OR l.a = 2 OR l.a = 17998 OR l.a = 17999');
    expect((JSON.parse(inline.stdout) as { rows: number }).rows).toBe(4);
  });

  it('a missing file is a typed error naming it', async () => {
    const r = await join9000(`@${p('nope.txt')}`);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^joinlab: file not found: .*nope\.txt.*--filter file.*\n$/);
    const empty = await join9000('@');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/--filter @FILE needs a file name/);
  });
});
