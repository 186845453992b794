/**
 * core/cleanup.ts: the leftover names `joinlab clean` looks for are exactly the names the writers
 * make (the spill manager's directory here; atomic.ts `tempPathFor` in atomic.test.ts), and
 * nothing else.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Table, vectorFromArray } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { parseLeftoverName } from './cleanup.ts';
import { SpillManager } from './memory/spill.ts';

const parent = mkdtempSync(join(tmpdir(), 'joinlab-cleanup-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe('parseLeftoverName', () => {
  it('recognises the temp file of an atomic write, with its pid', () => {
    expect(parseLeftoverName('.out.parquet.tmp-4242-0123456789ab')).toEqual({ kind: 'temp-file', pid: 4242 });
  });

  it('recognises a spill directory, with its pid', async () => {
    const m = new SpillManager({ parentDir: parent });
    const t = new Table({ x: vectorFromArray([1, 2, 3]) });
    await m.spill(t.batches, t.schema);
    expect(parseLeftoverName(basename(m.directory!))).toEqual({ kind: 'spill-dir', pid: process.pid });
    await m.close();
  });

  it('ignores every other name', () => {
    for (const name of ['out.parquet', '.out.parquet', 'out.parquet.tmp-12-ab', '.out.parquet.tmp-x-ab', '.out.parquet.tmp-12-', 'joinlab-spill-', 'joinlab-spill-12', 'joinlab-spill-ab-cd', 'my-joinlab-spill-1-abc']) {
      expect(parseLeftoverName(name), name).toBeNull();
    }
  });
});
