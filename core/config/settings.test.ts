/**
 * Issue 30: extensions declare their config keys. The configuration validates against the union
 * of core's keys and every loaded extension's; defaults apply when unset; unknown keys, keys
 * declared twice and wrong types are ConfigErrors naming the key (and the owners / extension).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Engine } from '../../composition.ts';
import { CoreEngine, EMPTY_RUNTIME } from '../engine.ts';
import { ConfigError } from '../errors.ts';
import { loadExtension } from '../registry/extensions.ts';
import { Registry } from '../registry/registry.ts';
import { loadConfig, resolveConfig } from './load.ts';
import { applyOverrides, CORE_SCHEMA, parseConfig } from './schema.ts';
import { defineSettings, settingReader, type OwnedSettings } from './settings.ts';

const LAB = defineSettings({
  'pushdown.lab.maxDistinct': { schema: z.number().int().positive(), default: 10_000, description: 'largest IN list of the lab policy' },
  'pushdown.lab.exact': { schema: z.boolean(), default: false, description: 'exact sets only' },
});
const lab: OwnedSettings = { owner: 'my-lab', settings: LAB };
const schema = CORE_SCHEMA.with([lab]);

/** The ConfigError `fn` throws. */
function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const dir = mkdtempSync(join(tmpdir(), 'joinlab-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An extension module (CommonJS, no imports) declaring `settings` source text, written to `dir`. */
function extensionFile(file: string, name: string, settings: string): string {
  const path = join(dir, file);
  writeFileSync(path, `module.exports = { name: ${JSON.stringify(name)}, settings: ${settings}, load() {} };\n`);
  return path;
}

describe('the union of core keys and extension settings', () => {
  it("accepts an extension's key and applies its default when unset", () => {
    expect(schema.parse({ 'pushdown.lab.maxDistinct': 5 })['pushdown.lab.maxDistinct']).toBe(5);
    const defaults = schema.parse({});
    expect(defaults['pushdown.lab.maxDistinct']).toBe(10_000);
    expect(defaults['pushdown.lab.exact']).toBe(false);
    expect(defaults.batchSize).toBe(8192); // core's keys as before
    // nested like any key
    expect(schema.parse({ 'pushdown.lab': { exact: true } })['pushdown.lab.exact']).toBe(true);
  });

  it("core's keys alone do not know it: parseConfig without a union is core's schema", () => {
    expect(errorOf(() => parseConfig({ 'pushdown.lab.maxDistinct': 5 })).message).toMatch(/^unknown config key 'pushdown\.lab\.maxDistinct'/);
    expect(parseConfig({}).batchSize).toBe(8192);
  });

  it('an unknown key is an error naming it, with the closest key of the union', () => {
    const e = errorOf(() => schema.parse({ 'pushdown.lab.maxDistinc': 5 }));
    expect(e.message).toBe("unknown config key 'pushdown.lab.maxDistinc'; did you mean 'pushdown.lab.maxDistinct'? (joinlab config lists every key)");
    expect(e.key).toBe('pushdown.lab.maxDistinc');
    expect(errorOf(() => schema.parse({ 'pushdown.lab.other': 5 })).message).toMatch(/^unknown config key 'pushdown\.lab\.other'/);
  });

  it('a wrong type is an error naming the key and the extension', () => {
    const e = errorOf(() => schema.parse({ 'pushdown.lab.maxDistinct': 'many' }));
    expect(e.message).toMatch(/^invalid config value for 'pushdown\.lab\.maxDistinct' \(got "many"\) \(a setting of extension 'my-lab'\): /);
    expect(e.key).toBe('pushdown.lab.maxDistinct');
    expect(errorOf(() => schema.parse({ 'pushdown.lab.maxDistinct': -1 })).message).toMatch(/'pushdown\.lab\.maxDistinct' \(got -1\) \(a setting of extension 'my-lab'\)/);
    // core's keys keep their message
    expect(errorOf(() => schema.parse({ batchSize: 0 })).message).toMatch(/^invalid config value for 'batchSize' \(got 0\): /);
  });

  it('a key declared twice is an error naming both owners', () => {
    const again: OwnedSettings = { owner: 'other-lab', settings: { 'pushdown.lab.exact': { schema: z.boolean(), default: true, description: '' } } };
    const e = errorOf(() => CORE_SCHEMA.with([lab, again]));
    expect(e.message).toBe("config key 'pushdown.lab.exact' is declared twice: by extension 'my-lab' and by extension 'other-lab'");
    const core: OwnedSettings = { owner: 'greedy', settings: { batchSize: { schema: z.number(), default: 1, description: '' } } };
    expect(errorOf(() => CORE_SCHEMA.with([core])).message).toBe("config key 'batchSize' is declared twice: by core and by extension 'greedy'");
    expect(errorOf(() => CORE_SCHEMA.with([lab, lab])).message).toBe("config key 'pushdown.lab.maxDistinct' is declared twice by extension 'my-lab' (is it loaded twice?)");
  });

  it('a malformed declaration is refused naming the setting and its extension', () => {
    const bad = (spec: unknown) => errorOf(() => CORE_SCHEMA.with([{ owner: 'x', settings: { 'a.b': spec as never } }])).message;
    expect(bad({ schema: z.number(), default: 'one', description: '' })).toMatch(/^setting 'a\.b' of extension 'x': its default "one" does not pass its schema/);
    expect(bad({ schema: 3, default: 3, description: '' })).toMatch(/'schema' must be a zod schema/);
    expect(bad({ schema: z.number(), description: '' })).toMatch(/'default' is missing/);
    expect(errorOf(() => CORE_SCHEMA.with([{ owner: 'x', settings: { 'a b': { schema: z.number(), default: 1, description: '' } } }])).message).toMatch(/a key is dotted words/);
  });

  it('--set text is converted by the type the extension declared', () => {
    const flat = applyOverrides({}, ['pushdown.lab.maxDistinct=64', 'pushdown.lab.exact=on'], schema);
    expect(schema.parse(flat)).toMatchObject({ 'pushdown.lab.maxDistinct': 64, 'pushdown.lab.exact': true });
    expect(errorOf(() => schema.parse(applyOverrides({}, ['pushdown.lab.exact=maybe'], schema))).message).toMatch(/'pushdown\.lab\.exact' \(got "maybe"\) \(a setting of extension 'my-lab'\)/);
  });

  it('describe lists every key with its owner, default and description', () => {
    const keys = schema.describe();
    expect(keys.find((k) => k.key === 'batchSize')).toMatchObject({ owner: 'core', default: 8192 });
    expect(keys.find((k) => k.key === 'pushdown.lab.maxDistinct')).toEqual({ key: 'pushdown.lab.maxDistinct', owner: 'my-lab', default: 10_000, description: 'largest IN list of the lab policy' });
    expect(schema.owner('pushdown.lab.exact')).toBe('my-lab');
    expect(schema.owner('nope')).toBeUndefined();
  });

  it('settingReader reads a key typed, and its default from a configuration parsed without it', () => {
    const setting = settingReader(LAB);
    const n: number = setting(schema.parse({ 'pushdown.lab.maxDistinct': 7 }), 'pushdown.lab.maxDistinct');
    expect(n).toBe(7);
    expect(setting(parseConfig({}), 'pushdown.lab.maxDistinct')).toBe(10_000);
  });
});

describe('configurations are validated where the extensions are known', () => {
  it('the registry records what a loaded extension declares', async () => {
    const registry = new Registry();
    await loadExtension(registry, { name: 'my-lab', settings: LAB, load() {} });
    expect(registry.settings()).toEqual([{ owner: 'my-lab', settings: LAB }]);
  });

  it('Engine.create loads the extensions first, then validates against the union', async () => {
    const ext = extensionFile('engine-ext.js', 'engine-lab', `{ 'lab.threshold': { schema: { safeParse: () => ({ success: true }) }, default: 1, description: '' } }`);
    // a schema that is not zod's is refused when the extension loads
    await expect(CoreEngine.create({ extensions: [ext] }, { runtime: EMPTY_RUNTIME })).rejects.toThrow(/setting 'lab\.threshold' of extension 'engine-lab': 'schema' must be a zod schema/);
  });

  it("loadConfig knows the runtime's and the configured extensions' keys, with --set typed by them", async () => {
    const zodUrl = import.meta.resolve('zod');
    const ext = join(dir, 'lab.mjs');
    writeFileSync(
      ext,
      `import { z } from ${JSON.stringify(zodUrl)};\nexport default { name: 'file-lab', settings: { 'lab.threshold': { schema: z.number().min(0).max(1), default: 0.5, description: 'a fraction' } }, load() {} };\n`,
    );
    const cfg = join(dir, 'c.yaml');
    writeFileSync(cfg, 'extensions: ["./lab.mjs"]\nlab:\n  threshold: 0.25\n');
    expect((await loadConfig({ file: cfg }))['lab.threshold']).toBe(0.25);
    expect((await loadConfig({ file: cfg, set: ['lab.threshold=0.75'] }))['lab.threshold']).toBe(0.75);
    expect((await loadConfig({ set: [`extensions=${ext}`] }))['lab.threshold']).toBe(0.5);
    await expect(loadConfig({ file: cfg, set: ['lab.treshold=1'] })).rejects.toThrow("unknown config key 'lab.treshold'; did you mean 'lab.threshold'?");
    await expect(loadConfig({ file: cfg, set: ['lab.threshold=2'] })).rejects.toThrow(/invalid config value for 'lab\.threshold' \(got 2\) \(a setting of extension 'file-lab'\)/);
    // unknown without the extension
    await expect(loadConfig({ set: ['lab.threshold=0.1'] })).rejects.toThrow(/unknown config key 'lab\.threshold'/);
    // a runtime extension's keys are known without being configured; the union is returned
    const { config, schema: union } = await resolveConfig({ extensions: [ext] });
    expect(config['lab.threshold']).toBe(0.5);
    expect(union.owner('lab.threshold')).toBe('file-lab');
    // the engine (with the built-ins) validates the same way
    const engine = await Engine.create({ extensions: [ext], 'lab.threshold': 0.1 });
    expect(engine.config['lab.threshold']).toBe(0.1);
    expect(engine.configSchema.owner('lab.threshold')).toBe('file-lab');
    await expect(Engine.create({ extensions: [ext], 'lab.threshold': 'x' })).rejects.toThrow(/'lab\.threshold' \(got "x"\) \(a setting of extension 'file-lab'\)/);
    await expect(Engine.create({ 'lab.threshold': 0.1 })).rejects.toThrow(/unknown config key 'lab\.threshold'/);
    // the same extension's key declared by a second one
    const twin = join(dir, 'twin.mjs');
    writeFileSync(twin, `import { z } from ${JSON.stringify(zodUrl)};\nexport default { name: 'twin-lab', settings: { 'lab.threshold': { schema: z.number(), default: 1, description: '' } }, load() {} };\n`);
    await expect(Engine.create({ extensions: [ext, twin] })).rejects.toThrow("config key 'lab.threshold' is declared twice: by extension 'file-lab' and by extension 'twin-lab'");
    await expect(loadConfig({ set: [`extensions=${ext},${twin}`] })).rejects.toThrow(/declared twice: by extension 'file-lab' and by extension 'twin-lab'/);
  });
});
