// A worker thread's entry: the sources are TypeScript, so the thread registers tsx's loader (as
// bin/joinlab.mjs does for the main thread) before it imports its main loop.
import { register } from 'tsx/esm/api';

register();
await import('./worker-main.ts');
