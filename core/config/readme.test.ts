/**
 * The README's configuration tables stay true (issue 30): the first table lists core's keys, the
 * second the keys extensions declare, each under the extension that declares it — every key of
 * the built-ins and of the example plug-in listed once (by name, or by its `prefix.*` family), and
 * each default written as a code span equal to the schema's.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../composition.ts';
import type { KeyInfo } from './schema.ts';

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
const EXAMPLE = fileURLToPath(new URL('../../strategies/examples/bloom-pushdown.ts', import.meta.url));

/** The rows of the markdown table that follows `header` in the Configuration section. */
function tableRows(header: string): string[][] {
  const section = README.slice(README.indexOf('## Configuration'), README.indexOf('## Parallel execution'));
  const at = section.indexOf(`${header}\n`);
  expect(at, `a table headed ${header}`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of section.slice(at).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split(' | ').map((c) => c.replace(/^\| ?| ?\|$/g, '').trim()));
  }
  return rows;
}

const code = (cell: string) => /^`([^`]+)`/.exec(cell)?.[1];

describe("README's configuration tables", async () => {
  const { schema } = await resolveConfig({ set: [`extensions=${EXAMPLE}`] });
  const keys = new Map<string, KeyInfo>(schema.describe().map((k) => [k.key, k]));
  /** Keys a row names: itself, or every key under `prefix.` for `prefix.*`. */
  const named = (cell: string) => {
    const k = code(cell)!;
    return k.endsWith('.*') ? [...keys.keys()].filter((x) => x.startsWith(k.slice(0, -1))) : [k];
  };
  const checkDefault = (key: string, cell: string) => {
    const written = code(cell);
    const d = keys.get(key)!.default;
    if (written !== undefined && (typeof d === 'number' || typeof d === 'boolean' || typeof d === 'string')) expect(written, `${key}'s default`).toBe(String(d));
  };

  it('lists every core key in the first table, with its default', () => {
    const rows = tableRows('| key | default | meaning |');
    const listed = rows.map((r) => code(r[0]!)!);
    for (const [i, k] of listed.entries()) {
      expect(keys.get(k)?.owner, `README lists '${k}' as core's`).toBe('core');
      checkDefault(k, rows[i]![1]!);
    }
    const core = [...keys.values()].filter((k) => k.owner === 'core').map((k) => k.key);
    expect(core.filter((k) => !listed.includes(k)), "core keys the README's table leaves out").toEqual([]);
  });

  it('lists every key an extension declares in the second table, under that extension', () => {
    const rows = tableRows('| key | extension | default | meaning |');
    const listed = new Set<string>();
    for (const r of rows) {
      const owner = code(r[1]!);
      const ks = named(r[0]!);
      expect(ks.length, `${r[0]} names no key`).toBeGreaterThan(0);
      for (const k of ks) {
        expect(keys.get(k)?.owner, `README says '${k}' belongs to ${owner}`).toBe(owner);
        listed.add(k);
      }
      if (ks.length === 1) checkDefault(ks[0]!, r[2]!);
    }
    const declared = [...keys.values()].filter((k) => k.owner !== 'core').map((k) => k.key);
    expect(declared.filter((k) => !listed.has(k)), 'extension keys the README leaves out').toEqual([]);
  });
});
