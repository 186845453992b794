/**
 * `joinlab parity`: a clean run ends with `N passed, 0 failed`; a join algorithm that drops a row
 * is caught, shrunk and reported with a reproduction, and the run counts it as failed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runParity } from './parity-command.ts';

const dir = mkdtempSync(join(tmpdir(), 'joinlab-parity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const lines: string[] = [];
  return { lines, write: (s: string) => void lines.push(s) };
}

describe('joinlab parity', () => {
  it('passes on the registered algorithms and ends with the summary line', async () => {
    const out = capture();
    const r = await runParity({ cases: 40, seed: 5, stdout: out.write, stderr: () => {} });
    expect(r.failed).toBe(0);
    expect(r.passed).toBe(40 - r.skipped);
    const last = out.lines.join('').trimEnd().split('\n').at(-1)!;
    expect(last).toMatch(/^\d+ passed, 0 failed(, \d+ skipped)?$/);
  });

  it('catches an algorithm that drops a row, with a shrunk reproduction', async () => {
    const ext = join(dir, 'broken.mjs');
    const nl = new URL('../../operators/nested-loop-join/nested-loop-join.ts', import.meta.url).href;
    writeFileSync(
      ext,
      `import { NestedLoopJoin } from '${nl}';
       const inner = new NestedLoopJoin();
       export default { name: 'broken', load(registry) {
         registry.register({ id: Symbol.for('joinlab.slot.join'), name: 'join', description: '' }, {
           name: 'drops-one', description: 'nested loop minus its first output row',
           unsupportedReason: (j) => inner.unsupportedReason(j),
           async *execute(j, inputs, ctx) {
             let first = true;
             for await (const b of inner.execute(j, inputs, ctx)) {
               if (first && b.numRows > 0) { first = false; if (b.numRows > 1) yield b.slice(1); continue; }
               yield b;
             }
           },
         });
       } };`,
    );
    const out = capture();
    const r = await runParity({ cases: 30, seed: 3, algorithms: ['drops-one'], extensions: [ext], stdout: out.write, stderr: () => {} });
    expect(r.failed).toBeGreaterThan(0);
    const text = out.lines.join('');
    expect(text).toMatch(/SELECT/); // the DuckDB SQL of the reproduction
    expect(text.trimEnd().split('\n').at(-1)).toBe(`${r.passed} passed, ${r.failed} failed${r.skipped ? `, ${r.skipped} skipped` : ''}`);
  });
});
