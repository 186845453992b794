#!/usr/bin/env node
// `node bin/tuned.mjs <script> [args…]`: runs `node <script> [args…]` with glibc's malloc told to
// keep the memory it frees (`npm start` and `npm run bench` go through this).
//
// Why: V8 allocates ArrayBuffers with malloc. By default glibc hands blocks of a few MB back to the
// kernel as they are freed (its dynamic mmap threshold, and heap trimming in the arenas of other
// threads), so the next buffer of that size is fresh memory, zeroed and mapped page by page by the
// kernel. On the VM this project is measured on, a first touch costs ~2 µs a 4 KiB page, and two
// threads doing it at once collapse: two worker threads allocating and writing 4 MiB buffers wrote
// 2 x 1.3 GB/s where one alone wrote 10 GB/s; with a fixed threshold and no trimming, 2 x 10.5 GB/s
// (docs/parallel.md). A join's output is fresh memory row after row, so without this a
// second thread gains little. DuckDB and Polars allocate through jemalloc, which keeps freed pages
// (with decay) by design; these two settings give glibc the same habit:
//   MALLOC_MMAP_THRESHOLD_=32 MiB  blocks below it come from the heap (and go back to it, not the kernel)
//   MALLOC_TRIM_THRESHOLD_=16 GiB  the heap is never trimmed
// They are read when the process starts, hence a child process. Settings already in the environment
// are kept; elsewhere than glibc they are ignored.
//
// Signals: SIGINT, SIGTERM and SIGHUP sent to this process are passed on to the child, and this
// process waits for it and exits as it did. With a blocking spawnSync a `kill <pid>` (or `npm`
// passing a SIGTERM on) ended this wrapper at once and left the child running, a whole experiment
// or benchmark orphaned. A Ctrl-C in a terminal reaches both (one process group): the child then
// sees it twice, which joinlab reads as "stop now" (apps/cli/interrupt.ts).
import { spawn } from 'node:child_process';

const TUNING = { MALLOC_MMAP_THRESHOLD_: String(32 << 20), MALLOC_TRIM_THRESHOLD_: String(16 * 2 ** 30) };
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'];

const [script, ...args] = process.argv.slice(2);
if (script === undefined) {
  process.stderr.write('usage: node bin/tuned.mjs <script> [args…]\n');
  process.exit(2);
}
const child = spawn(process.execPath, [...process.execArgv, script, ...args], { stdio: 'inherit', env: { ...TUNING, ...process.env } });
const forward = (signal) => child.kill(signal);
for (const s of FORWARDED) process.on(s, forward);
child.on('error', (e) => {
  process.stderr.write(`bin/tuned.mjs: ${e.message}\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  for (const s of FORWARDED) process.off(s, forward);
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
