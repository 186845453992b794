// A worker thread's entry. `workerData.code`: the URL of the worker's code compiled ahead
// (worker-code.ts), imported as is, with source maps on so a bug's stack names the TypeScript
// file. Without one (no bundler, a build error, parallel.workerCode=source) the sources are
// TypeScript: the thread registers tsx's loader (as bin/joinlab.mjs does for the main thread)
// before it imports its main loop.
import { workerData } from 'node:worker_threads';

const code = workerData?.code ?? null;
if (code !== null) {
  process.setSourceMapsEnabled(true);
  await import(code);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./worker-main.ts');
}
