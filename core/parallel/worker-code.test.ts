import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findOrBuildWorkerCode, workerCode } from './worker-code.ts';

const SLOTS = fileURLToPath(new URL('../registry/slots.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'joinlab-worker-code-test-'));
const cache = join(dir, 'cache');

/** A user's TypeScript extension that imports joinlab's sources, answering `version`. */
function writeExtension(version: number): string {
  const file = join(dir, 'ext.ts');
  writeFileSync(
    file,
    `import { WORKER_TASK } from ${JSON.stringify(SLOTS)};\n` +
      `const version: number = ${version};\n` +
      `export const here: string = import.meta.url;\n` +
      `export default { name: 'test.version', load(r: any) { r.register(WORKER_TASK, { name: 'test.version', description: 'v', open: () => ({ run: () => ({ value: 'version-' + version }), close: () => ({ value: null }) }) }); } };\n`,
  );
  return file;
}

const bundleText = (url: string) => readFileSync(fileURLToPath(url), 'utf8');

describe('worker code compiled ahead', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is built once, found in the cache by a later process, and rebuilt when a source it was compiled from changes', async () => {
    const ext = writeExtension(1);
    const first = await findOrBuildWorkerCode([ext], dir, cache);
    expect(first).toMatchObject({ kind: 'bundle', built: true });
    if (first.kind !== 'bundle') return;
    expect(bundleText(first.url)).toContain('version-');
    expect(bundleText(first.url)).toMatch(/version = 1/);
    // the module keeps its own URL in the bundle
    expect(bundleText(first.url)).toContain(`here = ${JSON.stringify(pathToFileURL(ext).href)}`);

    const again = await findOrBuildWorkerCode([ext], dir, cache);
    expect(again).toEqual({ ...first, built: false, ms: expect.any(Number) });

    writeExtension(2); // an edit: the manifest's hash of ext.ts no longer matches
    const edited = await findOrBuildWorkerCode([ext], dir, cache);
    expect(edited).toMatchObject({ kind: 'bundle', built: true });
    if (edited.kind !== 'bundle') return;
    expect(edited.url).not.toBe(first.url);
    expect(bundleText(edited.url)).toMatch(/version = 2/);
  });

  it('a bundle whose text no longer matches its name is rebuilt, never run', async () => {
    const ext = writeExtension(3);
    const built = await findOrBuildWorkerCode([ext], dir, cache);
    if (built.kind !== 'bundle') throw new Error(`expected a bundle, got ${built.reason}`);
    writeFileSync(fileURLToPath(built.url), 'truncated');
    const rebuilt = await findOrBuildWorkerCode([ext], dir, cache);
    expect(rebuilt).toMatchObject({ kind: 'bundle', built: true });
    expect(bundleText(built.url)).toMatch(/version = 3/);
  });

  it('falls back to the TypeScript sources, saying why: a package-name extension, a source that does not compile, the config asking', async () => {
    expect(await findOrBuildWorkerCode(['some-joinlab-extension'], dir, cache)).toEqual({ kind: 'source', reason: expect.stringMatching(/'some-joinlab-extension' is a package name/) });
    const broken = join(dir, 'broken.ts');
    writeFileSync(broken, 'export default {{{');
    expect(await findOrBuildWorkerCode([broken], dir, cache)).toEqual({ kind: 'source', reason: expect.stringMatching(/could not be built/) });
    expect(await workerCode([broken], dir, { mode: 'source', cacheDir: cache })).toEqual({ kind: 'source', reason: 'parallel.workerCode=source' });
  });
});
