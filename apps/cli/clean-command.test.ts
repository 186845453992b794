/**
 * `joinlab clean`: removes exactly the leftovers of processes that are not running, nothing that
 * merely looks like one (a link, a directory named like a temp file), nothing of a live process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isRunning, runCleanCommand } from './clean-command.ts';

const root = mkdtempSync(join(tmpdir(), 'joinlab-clean-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  expect(isRunning(r.pid!)).toBe(false);
  return r.pid!;
}

describe('joinlab clean', () => {
  it('removes dead processes’ temp files and spill directories, keeps everything else', () => {
    const dir = join(root, 'out');
    const spill = join(root, 'spill');
    mkdirSync(dir);
    mkdirSync(spill);
    const dead = deadPid();
    const deadTemp = `.r.parquet.tmp-${dead}-0123456789ab`;
    const liveTemp = `.r.parquet.tmp-${process.pid}-0123456789ab`;
    writeFileSync(join(dir, deadTemp), 'partial');
    writeFileSync(join(dir, liveTemp), 'being written');
    writeFileSync(join(dir, 'r.parquet'), 'a result');
    mkdirSync(join(dir, `.d.parquet.tmp-${dead}-aa`)); // a directory is no temp file
    symlinkSync(join(dir, 'r.parquet'), join(dir, `.l.parquet.tmp-${dead}-bb`)); // nor is a link
    mkdirSync(join(spill, `joinlab-spill-${dead}-Xy12Zw`));
    writeFileSync(join(spill, `joinlab-spill-${dead}-Xy12Zw`, 'spill-000001.arrows'), 'x');
    mkdirSync(join(spill, `joinlab-spill-${process.pid}-Ab34Cd`));

    const lines: string[] = [];
    const dry = runCleanCommand({ dirs: [dir], spillParent: spill, dryRun: true, write: (l) => void lines.push(l) });
    expect(dry.map((l) => l.path).sort()).toEqual([join(dir, deadTemp), join(spill, `joinlab-spill-${dead}-Xy12Zw`)].sort());
    expect(lines.at(-1)).toMatch(/^2 leftovers would be removed/);
    expect(existsSync(join(dir, deadTemp))).toBe(true);

    runCleanCommand({ dirs: [dir], spillParent: spill, write: () => {} });
    expect(readdirSync(dir).sort()).toEqual([`.d.parquet.tmp-${dead}-aa`, `.l.parquet.tmp-${dead}-bb`, liveTemp, 'r.parquet'].sort());
    expect(readdirSync(spill)).toEqual([`joinlab-spill-${process.pid}-Ab34Cd`]);

    const again: string[] = [];
    expect(runCleanCommand({ dirs: [dir], spillParent: spill, write: (l) => void again.push(l) })).toEqual([]);
    expect(again).toEqual([`no leftovers of stopped joinlab runs in ${dir}, ${spill}\n`]);
  });

  it('checks every directory before removing anything', () => {
    const dir = join(root, 'first');
    mkdirSync(dir);
    const leftover = join(dir, `.x.csv.tmp-${deadPid()}-ab`);
    writeFileSync(leftover, 'x');
    expect(() => runCleanCommand({ dirs: [dir, join(root, 'missing')], spillParent: root, write: () => {} })).toThrow(/not found: .*missing/);
    expect(existsSync(leftover)).toBe(true);
  });
});
