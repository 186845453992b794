import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, CorruptFileError, FileNotFoundError } from '../errors.ts';
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

  it('names an unknown key and suggests the closest known one, not the whole list', () => {
    expect(() => parseConfig({ 'hash.partitons': 4 })).toThrow(ConfigError);
    expect(() => parseConfig({ 'hash.partitons': 4 })).toThrow("unknown config key 'hash.partitons'; did you mean 'hash.partitions'? (joinlab config lists every key)");
    expect(() => parseConfig({ 'pushdown.keyrangebitmap': true })).toThrow(/did you mean 'pushdown.keyRangeBitmap'\?/);
    // nothing close: no guess, and still no list of every key
    let message = '';
    try {
      parseConfig({ 'no.such.thing': 1 });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toBe("unknown config key 'no.such.thing' (joinlab config lists every key)");
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

  it('a number past the double range is named as written, not "got null"', () => {
    expect(() => parseConfig(applyOverrides({}, ['batchSize=1e400']))).toThrow("invalid config value for 'batchSize': 1e400 is not a finite number");
    expect(() => parseConfig({ batchSize: Infinity })).toThrow(/\(got Infinity\)/);
  });

  it('a boolean, a string or a list is not a number, and a number is not a boolean (no silent coercion)', () => {
    for (const [input, key, got] of [
      [{ hash: { partitions: true } }, 'hash.partitions', 'true'],
      [{ hash: { partitions: [4] } }, 'hash.partitions', '\\[4\\]'],
      [{ batchSize: '12' }, 'batchSize', '"12"'],
      [{ 'pushdown.inlistMaxDistinct': false }, 'pushdown.inlistMaxDistinct', 'false'],
      [{ 'pushdown.inlistMaxBytes': null }, 'pushdown.inlistMaxBytes', 'null'],
      [{ 'pushdown.keyRangeBitmap': 1 }, 'pushdown.keyRangeBitmap', '1'],
      [{ 'pwmj.prefilter': 'yes' }, 'pwmj.prefilter', '"yes"'],
      [{ memoryLimit: true }, 'memoryLimit', 'true'],
      [{ join: 5 }, 'join', '5'],
    ] as const) {
      expect(() => parseConfig(input), JSON.stringify(input)).toThrow(new RegExp(`invalid config value for '${key.replace('.', '\\.')}' \\(got ${got}\\)`));
    }
  });

  it('--set text still converts by the key’s type, and text that does not convert is refused naming the key', () => {
    const c = parseConfig(applyOverrides({}, ['hash.partitions=8', 'batchSize=1e3', 'pwmj.prefilter=off', 'pushdown.keyRangeBitmap=YES', 'memoryLimit=1024']));
    expect(c['hash.partitions']).toBe(8);
    expect(c.batchSize).toBe(1000);
    expect(c['pwmj.prefilter']).toBe(false);
    expect(c['pushdown.keyRangeBitmap']).toBe(true);
    expect(c.memoryLimit).toBe(1024);
    for (const bad of ['batchSize=true', 'batchSize=0x10', 'batchSize=', 'hash.partitions=4 partitions', 'pwmj.prefilter=2']) {
      expect(() => parseConfig(applyOverrides({}, [bad])), bad).toThrow(new RegExp(`invalid config value for '${bad.split('=')[0]!.replace('.', '\\.')}'`));
    }
  });

  it('sql.joinOrder takes cost, written, random and random:SEED; anything else is a ConfigError naming the key', () => {
    expect(parseConfig({})['sql.joinOrder']).toBe('cost');
    for (const v of ['cost', 'written', 'random', 'random:0', 'random:3', 'random:4294967296']) expect(parseConfig({ 'sql.joinOrder': v })['sql.joinOrder']).toBe(v);
    expect(parseConfig({ sql: { joinOrder: 'random:12', joinOrderSeed: 5 } })).toMatchObject({ 'sql.joinOrder': 'random:12', 'sql.joinOrderSeed': 5 });
    expect(parseConfig(applyOverrides({}, ['sql.joinOrder=random:7']))['sql.joinOrder']).toBe('random:7');
    for (const bad of ['random:x', 'random:-1', 'random:', 'random:1.5', 'random:01', 'random: 3', 'Random:3', 'greedy', 'random:99999999999999999999', 3, null]) {
      let err: unknown;
      try {
        parseConfig({ 'sql.joinOrder': bad });
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(bad)).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).key).toBe('sql.joinOrder');
      expect((err as Error).message).toMatch(/invalid config value for 'sql\.joinOrder' .*expected cost, written, random or random:SEED \(SEED a non-negative integer/);
    }
  });

  it('an object that contains itself is a ConfigError naming the key, not a stack overflow', () => {
    const hash: Record<string, unknown> = { mode: 'partitioned' };
    hash.again = hash;
    expect(() => parseConfig({ hash })).toThrow(/configuration refers to itself at 'hash\.again'/);
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
    // loadConfig imports the configured extensions (their settings are keys of the configuration)
    writeFileSync(join(dir, 'ext.js'), 'module.exports = { name: "empty", load() {} };\n');
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

  it('a YAML alias to an enclosing mapping, or an alias bomb, is a ConfigError', async () => {
    const self = join(dir, 'self.yaml');
    writeFileSync(self, 'hash: &h\n  mode: partitioned\n  x: *h\n');
    await expect(loadConfig({ file: self })).rejects.toThrow(/configuration refers to itself at 'hash\.x'/);
    const bomb = join(dir, 'bomb.yaml');
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefg'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefg'[i]}`).join(', ')}]`)];
    writeFileSync(bomb, `${levels.join('\n')}\n`);
    await expect(loadConfig({ file: bomb })).rejects.toThrow(/cannot parse config file .*bomb\.yaml: Excessive alias count/);
  });

  it('a directory or a FIFO as the config file is refused before it is read (it used to crash or hang)', async () => {
    const d = join(dir, 'dir.yaml');
    mkdirSync(d);
    await expect(loadConfig({ file: d })).rejects.toThrow(CorruptFileError);
    await expect(loadConfig({ file: d })).rejects.toThrow(/the config file is a directory, not a regular file/);
    const fifo = join(dir, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    await expect(loadConfig({ file: fifo })).rejects.toThrow(/the config file is a FIFO \(named pipe\), not a regular file/);
  });
});
