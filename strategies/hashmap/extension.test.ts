import { describe, expect, it } from 'vitest';
import { loadExtension } from '../../core/registry/extensions.ts';
import { Registry } from '../../core/registry/registry.ts';
import { HASHMAP } from '../../core/registry/slots.ts';
import extension from './extension.ts';

describe('joinlab.hashmaps extension', () => {
  it('registers chained, array, linear and auto in the hashmap slot', async () => {
    const registry = new Registry();
    await loadExtension(registry, extension);
    expect(registry.names(HASHMAP)).toEqual(['chained', 'array', 'rank', 'linear', 'swiss', 'auto']);
    expect(registry.resolve(HASHMAP, 'auto').name).toBe('auto');
    const info = registry.slots().find((s) => s.name === 'hashmap')!;
    expect(info.strategies.every((s) => s.extension === 'joinlab.hashmaps')).toBe(true);
  });
});
