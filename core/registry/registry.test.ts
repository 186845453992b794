import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { ConfigError, UnknownStrategyError } from '../errors.ts';
import { loadExtension, loadExtensions } from './extensions.ts';
import { defineSlot, Registry, type Strategy } from './registry.ts';
import { ALL_SLOTS, INTERNAL_SLOTS, JOIN, PUSHDOWN } from './slots.ts';

const dir = mkdtempSync(join(tmpdir(), 'joinlab-ext-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const COLOR = defineSlot<Strategy & { paint(): string }>('color', 'test slot');

describe('registry', () => {
  it('resolves registered strategies by name through the container', () => {
    const r = new Registry();
    r.register(COLOR, { name: 'red', description: 'r', paint: () => 'RED' });
    r.register(COLOR, { name: 'blue', description: 'b', paint: () => 'BLUE' });
    expect(r.resolve(COLOR, 'blue').paint()).toBe('BLUE');
    expect(r.names(COLOR)).toEqual(['red', 'blue']);
    expect(r.has(COLOR, 'green')).toBe(false);
  });

  it('an unknown name fails with the list of registered names', () => {
    const r = new Registry();
    r.register(COLOR, { name: 'red', description: 'r', paint: () => 'RED' });
    const e = (() => {
      try {
        r.resolve(COLOR, 'green');
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(UnknownStrategyError);
    expect((e as Error).message).toBe("unknown color strategy 'green'; registered: red");
  });

  it('rejects a duplicate name in one slot', () => {
    const r = new Registry();
    r.register(COLOR, { name: 'red', description: 'r', paint: () => '' });
    expect(() => r.register(COLOR, { name: 'red', description: 'again', paint: () => '' })).toThrow(/already registered/);
  });

  it('loads built-ins through the extension path and lists every slot', async () => {
    const engine = await Engine.create();
    const slots = engine.registry.slots();
    // the configurable slots first, in their declared order; the built-ins' internal slots after them
    expect(slots.map((s) => s.name)).toEqual([...ALL_SLOTS, ...INTERNAL_SLOTS].map((s) => s.name));
    expect(engine.registry.names(JOIN)).toContain('nested-loop');
    expect(engine.registry.names(PUSHDOWN)).toContain('none');
    const nl = slots.find((s) => s.name === 'join')!.strategies.find((s) => s.name === 'nested-loop')!;
    expect(nl.extension).toBe('joinlab.joins');
  });

  it('an async load that registers after an await is attributed to its extension, and the attribution ends with it', async () => {
    const r = new Registry();
    await loadExtension(r, {
      name: 'slow-ext',
      async load(registry) {
        await new Promise((res) => setTimeout(res, 1));
        registry.register(COLOR, { name: 'late', description: 'registered after an await', paint: () => '' });
      },
    });
    r.register(COLOR, { name: 'direct', description: 'registered by hand', paint: () => '' });
    const listed = r.slots().find((s) => s.name === 'color')!.strategies;
    expect(listed.map((s) => [s.name, s.extension])).toEqual([
      ['late', 'slow-ext'],
      ['direct', '(direct)'],
    ]);
    // a load that fails after its await ends the attribution too
    await expect(
      loadExtension(r, {
        name: 'failing-ext',
        async load() {
          await Promise.resolve();
          throw new Error('boom');
        },
      }),
    ).rejects.toThrow('boom');
    r.register(COLOR, { name: 'after', description: '', paint: () => '' });
    expect(r.slots().find((s) => s.name === 'color')!.strategies.at(-1)!.extension).toBe('(direct)');
  });

  it('a user extension from a file adds a strategy without touching core', async () => {
    const file = join(dir, 'my-policy.mjs');
    writeFileSync(
      file,
      `export default { name: 'my-ext', load(registry) {
         registry.register({ id: Symbol.for('joinlab.slot.pushdown'), name: 'pushdown', description: '' },
           { name: 'everything', description: 'keeps every row', planPartition: () => null });
       } };`,
    );
    const engine = await Engine.create({ extensions: [file], pushdown: 'everything' });
    expect(engine.registry.names(PUSHDOWN).at(-1)).toBe('everything');
    expect(engine.registry.slots().find((s) => s.name === 'pushdown')!.strategies.at(-1)!.extension).toBe('my-ext');
  });

  it('unknown join algorithm in config fails at engine creation', async () => {
    await expect(Engine.create({ join: 'quantum' })).rejects.toThrow("unknown join strategy 'quantum'; registered: hash, nested-loop");
  });

  it('a module without the extension shape, or that cannot load, is a ConfigError', async () => {
    const bad = join(dir, 'bad.mjs');
    writeFileSync(bad, 'export const x = 1;');
    await expect(loadExtensions(new Registry(), [bad])).rejects.toThrow(ConfigError);
    await expect(loadExtensions(new Registry(), [join(dir, 'missing.mjs')])).rejects.toThrow(/cannot load extension/);
  });

  it('a .js extension outside a "type": "module" package loads whether it is ESM or CommonJS; top-level await gets a clear message', async () => {
    const plain = mkdtempSync(join(tmpdir(), 'joinlab-ext-js-')); // no package.json above it
    try {
      const body = (name: string) => `{ name: '${name}', load(registry) { registry.register({ id: Symbol.for('joinlab.slot.pushdown'), name: 'pushdown', description: '' }, { name: '${name}', description: '', planPartition: () => null }); } }`;
      writeFileSync(join(plain, 'esm.js'), `export default ${body('esm-js')};\n`);
      writeFileSync(join(plain, 'cjs.js'), `module.exports = ${body('cjs-js')};\n`);
      writeFileSync(join(plain, 'tla.js'), `await Promise.resolve();\nexport default ${body('tla-js')};\n`);
      const engine = await Engine.create({ extensions: [join(plain, 'esm.js'), join(plain, 'cjs.js')] });
      expect(engine.registry.names(PUSHDOWN)).toEqual(expect.arrayContaining(['esm-js', 'cjs-js']));
      await expect(loadExtensions(new Registry(), [join(plain, 'tla.js')])).rejects.toThrow(/name it \.mjs or add "type": "module" to its package\.json/);
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });

  it('an extension path that is a directory or a FIFO is refused before the import (a FIFO used to hang it)', async () => {
    const fifo = join(dir, 'ext-fifo.mjs');
    execFileSync('mkfifo', [fifo]);
    await expect(loadExtensions(new Registry(), [fifo])).rejects.toThrow(/cannot load extension .*: cannot read .*ext-fifo\.mjs: the extension is a FIFO/);
    await expect(loadExtensions(new Registry(), [dir])).rejects.toThrow(/the extension is a directory, not a regular file/);
  });
});
