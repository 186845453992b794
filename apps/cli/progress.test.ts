import type { RecordBatch } from 'apache-arrow';
import { makeVector, Table } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { countProgress, withRowProgress } from './progress.ts';

const batch = (n: number): RecordBatch => new Table({ k: makeVector(new Int32Array(n)) }).batches[0]!;

async function* slow(count: number, ms: number): AsyncGenerator<RecordBatch> {
  for (let i = 0; i < count; i++) {
    await new Promise((r) => setTimeout(r, ms));
    yield batch(1000);
  }
}

describe('withRowProgress', () => {
  it('draws a row count on a terminal after a second, and erases it at the end', async () => {
    let text = '';
    const tty = { isTTY: true, write: (s: string) => (text += s) };
    let rows = 0;
    for await (const b of withRowProgress(slow(14, 100), tty)) rows += b.numRows;
    expect(rows).toBe(14_000);
    expect(text).toMatch(/\r\x1b\[2K\d{1,2},000 rows, 1\.\d s/);
    expect(text.endsWith('\r\x1b[2K')).toBe(true);
  });

  it('writes nothing when the target is not a terminal, or the run is short', async () => {
    let text = '';
    for await (const _ of withRowProgress(slow(3, 1), { isTTY: false, write: (s: string) => (text += s) }));
    for await (const _ of withRowProgress(slow(3, 1), { isTTY: true, write: (s: string) => (text += s) }));
    expect(text).toBe('');
  });

  it('erases the line when the source fails', async () => {
    let text = '';
    async function* failing(): AsyncGenerator<RecordBatch> {
      yield* slow(12, 100);
      throw new Error('boom');
    }
    const it = withRowProgress(failing(), { isTTY: true, write: (s: string) => (text += s) });
    await expect((async () => { for await (const _ of it); })()).rejects.toThrow('boom');
    expect(text.endsWith('\r\x1b[2K')).toBe(true);
  });
});

describe('countProgress', () => {
  it('draws a bar of done/total with the failures on a terminal, and erases it when stopped', () => {
    let text = '';
    const p = countProgress(10, 'records', { isTTY: true, write: (s: string) => (text += s) });
    for (let i = 0; i < 4; i++) p.tick(i === 2);
    p.stop();
    p.stop();
    expect(text).toMatch(/ 0\/10 records \| 0 failed/); // drawn when it starts
    expect(text).toMatch(/ 4\/10 records \| 1 failed/); // and its last state when it stops
    expect(text.endsWith('\x1b[2K')).toBe(true); // the line cleared
  });

  it('writes nothing when the target is not a terminal', () => {
    let text = '';
    const p = countProgress(10, 'records', { isTTY: false, write: (s: string) => (text += s) });
    p.tick();
    p.tick(true);
    p.stop();
    expect(text).toBe('');
  });
});
