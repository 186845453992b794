/**
 * Every relative link in the Markdown of the repository root and of docs/ (its reference/ pages
 * included) points to a file that exists (issue 30): the manual is split over many pages, and a
 * page renamed or moved must not leave links to nothing. Anchors (`page.md#section`) are not
 * checked, only the file; links with a scheme (`https:`, `mailto:`) and same-page anchors (`#x`)
 * are skipped; links inside code blocks and code spans are not links.
 *
 * And every source path a page names in a code span (`core/config/schema.ts`, `bench/suites/*.ts`:
 * a path from the repository root into one of the source folders) exists, so a file moved or
 * renamed in the code shows up here instead of as a stale pointer in the prose.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './generate-reference.ts';

/** The *.md files of the root and (recursively) of docs/. */
function markdownFiles(): string[] {
  const files = readdirSync(REPO_ROOT).filter((f) => f.endsWith('.md')).map((f) => join(REPO_ROOT, f));
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.md')) files.push(join(dir, e.name));
    }
  };
  walk(join(REPO_ROOT, 'docs'));
  return files.sort();
}

/** The relative link targets of one Markdown text, with their line numbers. */
function relativeLinks(text: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  let fence = false;
  for (const [i, raw] of text.split('\n').entries()) {
    if (/^\s*(```|~~~)/.test(raw)) {
      fence = !fence;
      continue;
    }
    if (fence) continue;
    const line = raw.replace(/`[^`]*`/g, '');
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (target.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      out.push({ line: i + 1, target });
    }
  }
  return out;
}

/** Source paths named in code spans: from the repository root into a source folder. */
function sourcePaths(text: string): string[] {
  return [...text.matchAll(/`((?:core|operators|strategies|adapters|apps|bench|bin)\/[A-Za-z0-9_./*-]+)`/g)].map((m) => m[1]!.replace(/\.$/, ''));
}

/** Whether `path` (from the root; a `*` only in its last segment) names an existing file or folder. */
function exists(path: string): boolean {
  if (!path.includes('*')) return existsSync(join(REPO_ROOT, path));
  const dir = join(REPO_ROOT, dirname(path));
  const name = new RegExp(`^${basename(path).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
  return existsSync(dir) && readdirSync(dir).some((f) => name.test(f));
}

describe('relative links in README.md and docs/', () => {
  const files = markdownFiles();

  it('finds the pages and their links', () => {
    expect(files.map((f) => relative(REPO_ROOT, f))).toContain('README.md');
    expect(files.map((f) => relative(REPO_ROOT, f))).toContain(join('docs', 'reference', 'configuration.md'));
    expect(relativeLinks('see [a](docs/a.md#x), [b](https://x.y), [c](#here), `[d](no.md)`\n```\n[e](no.md)\n```\n[f](../g.md "t")')).toEqual([
      { line: 1, target: 'docs/a.md#x' },
      { line: 5, target: '../g.md' },
    ]);
  });

  for (const file of files) {
    it(`every relative link in ${relative(REPO_ROOT, file)} resolves`, () => {
      const broken = relativeLinks(readFileSync(file, 'utf8'))
        .filter(({ target }) => !existsSync(join(dirname(file), decodeURIComponent(target.split('#')[0]!))))
        .map(({ line, target }) => `${relative(REPO_ROOT, file)}:${line}: ${target}`);
      expect(broken, 'links to files that do not exist').toEqual([]);
    });
  }

  for (const file of files) {
    it(`every source path ${relative(REPO_ROOT, file)} names exists`, () => {
      const missing = sourcePaths(readFileSync(file, 'utf8')).filter((p) => !exists(p));
      expect(missing, `paths ${relative(REPO_ROOT, file)} names that do not exist`).toEqual([]);
    });
  }
});
