/**
 * Issue 29's command-line basics, in-process and fast: `--version`, a mistyped option or command
 * on one line with commander's suggestion (it used to print a literal `\n`), a mistyped config
 * key with the closest key instead of every key, `joinlab config` listing them, and `strategies`
 * wrapped to the terminal's width (100 columns when stdout is not a terminal).
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './test-helpers.ts';

const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('joinlab --version', () => {
  it.each(['--version', '-V'])('%s prints package.json version', async (flag) => {
    const r = await runCli([flag]);
    expect(r).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

describe('mistyped options and commands', () => {
  it('an unknown option: one line, no literal \\n, a suggestion', async () => {
    const r = await runCli(['sql', 'SELECT 1', '--jsn']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("joinlab: unknown option '--jsn'; did you mean --json?\n");
  });

  it('an unknown command gets the suggestion too', async () => {
    const r = await runCli(['stratgies']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("joinlab: unknown command 'stratgies'; did you mean strategies?\n");
  });
});

describe('mistyped config keys', () => {
  it('names the closest key and points to joinlab config, instead of listing every key', async () => {
    const r = await runCli(['strategies', '--set', 'pushdown.keyRangeBitmapp=off']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("joinlab: unknown config key 'pushdown.keyRangeBitmapp'; did you mean 'pushdown.keyRangeBitmap'? (joinlab config lists every key)\n");
  });

  it('joinlab config lists every key with the value in force and the default', async () => {
    const r = await runCli(['config', '--set', 'batchSize=64', '--json']);
    expect(r.code).toBe(0);
    const { keys } = JSON.parse(r.stdout) as { keys: { key: string; value: unknown; default: unknown }[] };
    expect(keys.find((k) => k.key === 'batchSize')).toEqual({ key: 'batchSize', value: 64, default: 8192, owner: 'core', description: 'rows per output batch' });
    expect(keys.find((k) => k.key === 'memoryLimit')).toMatchObject({ key: 'memoryLimit', value: 'unlimited', default: 'unlimited', owner: 'core' });
    const text = await runCli(['config']);
    expect(text.stdout).toMatch(/^key\s+owner\s+value\s+default$/m);
    expect(text.stdout).toMatch(/^pushdown\.keyRangeBitmap\s+core\s+true\s+true$/m);
    expect((await runCli(['config', '--list'])).stdout).toBe(text.stdout);
  });

  it("joinlab config lists an extension's keys with the extension that declares them", async () => {
    const r = await runCli(['config', '--set', 'pushdown.trino.maxDistinctPerDriver=8', '--json']);
    expect(r.code).toBe(0);
    const { keys } = JSON.parse(r.stdout) as { keys: { key: string; value: unknown; default: unknown; owner: string; description?: string }[] };
    expect(keys.find((k) => k.key === 'pushdown.trino.maxDistinctPerDriver')).toEqual({
      key: 'pushdown.trino.maxDistinctPerDriver',
      value: 8,
      default: 1000,
      owner: 'joinlab.pushdown.engines',
      description: 'dynamic-filtering.small.max-distinct-values-per-driver',
    });
    // every key once, core's first
    expect(new Set(keys.map((k) => k.key)).size).toBe(keys.length);
    expect(keys[0]!.owner).toBe('core');
    const text = await runCli(['config']);
    expect(text.stdout).toMatch(/^pushdown\.spark\.creationSideThreshold\s+joinlab\.pushdown\.engines\s+10485760\s+10485760$/m);
  });
});

describe('joinlab strategies wraps to the terminal width', () => {
  const saved = { isTTY: Object.getOwnPropertyDescriptor(process.stdout, 'isTTY'), columns: Object.getOwnPropertyDescriptor(process.stdout, 'columns') };
  const restore = (key: 'isTTY' | 'columns') => {
    const d = saved[key];
    if (d) Object.defineProperty(process.stdout, key, d);
    else delete (process.stdout as { isTTY?: boolean; columns?: number })[key];
  };
  afterEach(() => {
    restore('isTTY');
    restore('columns');
  });
  const widest = (s: string) => Math.max(...s.split('\n').map((l) => l.length));

  it('100 columns when stdout is not a terminal, the descriptions kept whole', async () => {
    Object.defineProperty(process.stdout, 'isTTY', { value: false, configurable: true });
    const r = await runCli(['strategies']);
    expect(r.code).toBe(0);
    expect(widest(r.stdout)).toBeLessThanOrEqual(100);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('tests every (left, right) pair; the simple oracle all other algorithms are checked against');
  });

  it("the terminal's columns on a terminal", async () => {
    Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true });
    Object.defineProperty(process.stdout, 'columns', { value: 140, configurable: true });
    const r = await runCli(['strategies']);
    expect(widest(r.stdout)).toBeLessThanOrEqual(140);
    expect(widest(r.stdout)).toBeGreaterThan(100);
  });
});
