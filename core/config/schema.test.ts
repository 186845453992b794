import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, FileNotFoundError } from '../errors.ts';
import { loadConfig } from './load.ts';
import { applyOverrides, CONFIG_KEYS, parseConfig } from './schema.ts';

const dir = mkdtempSync(join(tmpdir(), 'joinlab-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('config schema', () => {
  it('fills defaults, including DataFusion’s InList limits', () => {
    const c = parseConfig({});
    expect(c.batchSize).toBe(8192);
    expect(c['pushdown.inlistMaxDistinct']).toBe(150);
    expect(c['pushdown.inlistMaxBytes']).toBe(131072);
    expect(c['pushdown.keyRangeBitmap']).toBe(true);
    expect(c.memoryLimit).toBe(Infinity);
    expect(c.extensions).toEqual([]);
  });

  it('accepts nested and dotted keys alike', () => {
    const a = parseConfig({ hash: { mode: 'partitioned', partitions: 8 }, pushdown: 'map' });
    const b = parseConfig({ 'hash.mode': 'partitioned', 'hash.partitions': 8, pushdown: 'map' });
    expect(a).toEqual(b);
    expect(a['hash.partitions']).toBe(8);
  });

  it('names an unknown key and lists the known ones', () => {
    expect(() => parseConfig({ 'hash.partitons': 4 })).toThrow(ConfigError);
    expect(() => parseConfig({ 'hash.partitons': 4 })).toThrow(/unknown config key 'hash.partitons'; known keys: .*hash.partitions/);
  });

  it('names the key and value that fail validation', () => {
    expect(() => parseConfig({ batchSize: 0 })).toThrow(/invalid config value for 'batchSize' \(got 0\)/);
    expect(() => parseConfig({ 'hash.mode': 'broadcast' })).toThrow(/'hash.mode'/);
    expect(() => parseConfig({ memoryLimit: 'lots' })).toThrow(/'memoryLimit'/);
    expect(() => parseConfig({ join: 'two words' })).toThrow(/'join'/);
  });

  it('coerces --set strings by the key’s type', () => {
    const c = parseConfig(applyOverrides({}, ['batchSize=64', 'pushdown.keyRangeBitmap=false', 'memoryLimit=64MiB', 'hash.mode=partitioned']));
    expect(c.batchSize).toBe(64);
    expect(c['pushdown.keyRangeBitmap']).toBe(false);
    expect(c.memoryLimit).toBe(64 * 1024 * 1024);
    expect(c['hash.mode']).toBe('partitioned');
    expect(() => applyOverrides({}, ['batchSize'])).toThrow(/--set expects KEY=VALUE/);
    expect(() => parseConfig(applyOverrides({}, ['pushdown.keyRangeBitmap=maybe']))).toThrow(/pushdown.keyRangeBitmap/);
  });

  it('every documented key is in the schema', () => {
    for (const k of ['join', 'hash.mode', 'hash.partitions', 'hash.build', 'hashmap', 'pushdown', 'pushdown.keyRangeBitmap', 'pushdown.inlistMaxDistinct', 'pushdown.inlistMaxBytes', 'pushdown.rowFilter', 'smj.existence', 'pwmj.search', 'pwmj.prefilter', 'batchSize', 'memoryLimit', 'extensions']) {
      expect(CONFIG_KEYS).toContain(k);
    }
  });
});

describe('config files', () => {
  it('reads YAML and JSON, with --set applied on top and extension paths relative to the file', async () => {
    const y = join(dir, 'c.yaml');
    writeFileSync(y, 'join: nested-loop\nhash:\n  partitions: 3\nbatchSize: 100\nextensions: ["./ext.js"]\n');
    const c = await loadConfig({ file: y, set: ['batchSize=7'] });
    expect(c['hash.partitions']).toBe(3);
    expect(c.batchSize).toBe(7);
    expect(c.extensions).toEqual([join(dir, 'ext.js')]);
    const j = join(dir, 'c.json');
    writeFileSync(j, JSON.stringify({ pushdown: 'none', 'pwmj.prefilter': false }));
    expect((await loadConfig({ file: j }))['pwmj.prefilter']).toBe(false);
  });

  it('reports a missing file and a malformed one with typed errors', async () => {
    await expect(loadConfig({ file: join(dir, 'nope.yaml') })).rejects.toThrow(FileNotFoundError);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ "join": ');
    await expect(loadConfig({ file: bad })).rejects.toThrow(/cannot parse config file .*bad.json/);
    const list = join(dir, 'list.yaml');
    writeFileSync(list, '- a\n- b\n');
    await expect(loadConfig({ file: list })).rejects.toThrow(/must hold an object/);
  });
});
