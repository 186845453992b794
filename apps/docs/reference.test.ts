/**
 * The generated reference pages are up to date (issue 30): each is generated in memory, as
 * `npm run docs` would write it, and compared with the committed file. A key, a default, a
 * description or a strategy changed without regenerating fails here, naming the file and the
 * command that fixes it, with the first line that differs.
 *
 * Also: the hand-written notes in docs/configuration.md name every core key and every key family
 * an extension declares (`pushdown.duckdb.*`), and no key that does not exist — what the README's
 * configuration tables were checked for before they moved (core/config/readme.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../composition.ts';
import { CORE_OWNER } from '../../core/config/settings.ts';
import { configurationReference, EXAMPLE_EXTENSION, REFERENCE_PAGES, REPO_ROOT, strategiesReference } from './generate-reference.ts';

/** '' when equal, else where `committed` first differs from `generated`. */
function firstDifference(committed: string, generated: string): string {
  if (committed === generated) return '';
  const a = committed.split('\n');
  const b = generated.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return `line ${i + 1}:\n  committed: ${a[i] ?? '(end of file)'}\n  generated: ${b[i] ?? '(end of file)'}`;
  }
  return 'they differ';
}

/** The check itself: undefined when `committed` is `generated`, else the message the test fails with. */
function stalenessMessage(path: string, committed: string | undefined, generated: string): string | undefined {
  if (committed === generated) return undefined;
  const why = committed === undefined ? 'it does not exist' : firstDifference(committed, generated);
  return `${path} is stale: run npm run docs (${why})`;
}

function readCommitted(path: string): string | undefined {
  try {
    return readFileSync(join(REPO_ROOT, path), 'utf8');
  } catch {
    return undefined;
  }
}

describe('generated reference pages', () => {
  for (const page of REFERENCE_PAGES) {
    it(`${page.path} is what npm run docs generates`, async () => {
      const message = stalenessMessage(page.path, readCommitted(page.path), await page.generate());
      expect(message, message).toBeUndefined();
    });
  }

  it('the generation is deterministic and holds no machine path or date', async () => {
    for (const generate of [configurationReference, strategiesReference]) {
      const [a, b] = await Promise.all([generate(), generate()]);
      expect(a).toBe(b);
      expect(a).not.toContain(REPO_ROOT);
      expect(a).not.toMatch(/\b20\d\d-\d\d-\d\d\b/);
    }
  });

  it('the check fails on a changed description, naming the file and the command', async () => {
    const generated = await configurationReference();
    const edited = generated.replace('rows per output batch', 'rows per output chunk');
    expect(edited).not.toBe(generated);
    const message = stalenessMessage('docs/reference/configuration.md', edited, generated);
    expect(message).toMatch(/^docs\/reference\/configuration\.md is stale: run npm run docs \(line \d+:/);
    expect(message).toContain('rows per output chunk');
    expect(stalenessMessage('docs/reference/strategies.md', undefined, 'x')).toBe('docs/reference/strategies.md is stale: run npm run docs (it does not exist)');
  });

  it('lists every key of the schema with the example plug-in loaded, and every configurable slot', async () => {
    const { schema } = await resolveConfig({ set: [`extensions=${join(REPO_ROOT, EXAMPLE_EXTENSION)}`] });
    const config = await configurationReference();
    for (const k of schema.describe()) expect(config, k.key).toContain(`| \`${k.key}\` |`);
    const strategies = await strategiesReference();
    for (const slot of ['join', 'pushdown', 'hashmap', 'smj.existence', 'pwmj.search', 'sip']) expect(strategies).toContain(`## ${slot}\n`);
    expect(strategies).toContain('| `bloom` |  | `example.bloom` (example plug-in) |');
  });
});

describe("docs/configuration.md's notes on the keys", async () => {
  const text = readFileSync(join(REPO_ROOT, 'docs/configuration.md'), 'utf8');
  const { schema } = await resolveConfig({ set: [`extensions=${join(REPO_ROOT, EXAMPLE_EXTENSION)}`] });
  const infos = schema.describe();
  /** The first code span of each row of the tables headed `| key | … what it does |`. */
  const rows = (() => {
    const out: string[] = [];
    let inTable = false;
    for (const line of text.split('\n')) {
      if (/^\| key \|(.*\|)? what it does \|$/.test(line)) inTable = true;
      else if (!line.startsWith('|')) inTable = false;
      else if (inTable) {
        const m = /^\| `([^`]+)`/.exec(line);
        if (m !== null) out.push(m[1]!);
      }
    }
    expect(out.length, 'docs/configuration.md has tables headed | key | … | what it does |').toBeGreaterThan(0);
    return out;
  })();
  const named = (row: string) => (row.endsWith('.*') ? infos.filter((k) => k.key.startsWith(row.slice(0, -1))).map((k) => k.key) : infos.some((k) => k.key === row) ? [row] : []);

  it('names only keys that exist', () => {
    expect(rows.filter((r) => named(r).length === 0), 'rows naming no config key').toEqual([]);
  });

  it('names every core key and every key an extension declares', () => {
    const listed = new Set(rows.flatMap(named));
    const core = infos.filter((k) => k.owner === CORE_OWNER).map((k) => k.key);
    expect(core.filter((k) => !listed.has(k)), 'core keys without a note').toEqual([]);
    expect(infos.filter((k) => k.owner !== CORE_OWNER && !listed.has(k.key)).map((k) => k.key), 'extension keys without a note').toEqual([]);
  });
});
