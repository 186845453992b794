/**
 * `npm run bench:machine [-- --json] [-- --seconds S]`: how much two threads can gain on THIS machine,
 * before any join is involved — the ceiling the hash-join suite's 2-thread ratios should be read
 * against.
 *
 * Each kernel runs in one worker thread alone, then in two worker threads at once (plain JavaScript
 * workers: no TypeScript loader, nothing of joinlab's to start). `speedup` is the two workers'
 * combined rate over one worker's rate: 2.0 on two independent cores. A virtual machine's two vCPUs
 * are often the two hyperthreads of ONE physical core: then a kernel that keeps the core's ports
 * busy (`alu-throughput`, independent multiply-adds, as a hash probe's arithmetic is) gains far less
 * than 2x, while one that mostly waits (`alu-latency`, one dependent chain; `random-read`, cache
 * misses over 64 MiB) still gains nearly 2x — which is how to tell SMT siblings from real cores.
 *
 * `fresh-write` allocates a new 4 MiB buffer per step and writes a byte per cache line: the cost of
 * memory the kernel has to map (and the allocator has to get from it), which a join's output is.
 * glibc's malloc returns such blocks to the kernel as they are freed unless told otherwise
 * (bin/tuned.mjs); run it both ways to see what that costs two threads:
 *   npm run bench:machine
 *   MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=17179869184 npm run bench:machine
 *
 * What it showed on the 2-vCPU VM this project is developed on is in docs/benchmarks.md: there the
 * first three kernels gain ~2x (the cores are independent), and `fresh-write` collapses at two
 * threads under glibc's defaults.
 */
import { Worker } from 'node:worker_threads';
import { Command } from 'commander';
import { formatTable } from '../apps/cli/format.ts';

/** The kernels, as source evaluated in each worker (`workerData`: { kind, ms }); each posts its rate in Mops/s. */
const KERNEL_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { kind, ms } = workerData;
const table = kind === 'random-read' ? new Int32Array(1 << 24) : null;
function chunk() {
  let s = 0;
  if (kind === 'alu-throughput') {
    let a = 1, b = 2, c = 3, d = 4;
    for (let i = 0; i < 1e6; i++) {
      a = (Math.imul(a, 1103515245) + 12345) | 0; b = (Math.imul(b, 1103515245) + 12345) | 0;
      c = (Math.imul(c, 1103515245) + 12345) | 0; d = (Math.imul(d, 1103515245) + 12345) | 0;
    }
    s = a ^ b ^ c ^ d; return [4e6, s];
  }
  if (kind === 'alu-latency') {
    let a = 1;
    for (let i = 0; i < 4e6; i++) a = (Math.imul(a, 1103515245) + 12345) | 0;
    return [4e6, a];
  }
  if (kind === 'fresh-write') {
    // a new 4 MiB buffer, one write per 64-byte line: what a join's output allocation costs
    const a = new Uint8Array(1 << 22);
    for (let i = 0; i < a.length; i += 64) a[i] = i;
    return [(1 << 22) / 64, a[64]];
  }
  let x = 1;
  for (let i = 0; i < 1e6; i++) { x = (Math.imul(x, 1103515245) + 12345) | 0; s += table[x >>> 8]; }
  return [1e6, s];
}
for (let i = 0; i < 3; i++) chunk(); // warm up (optimised code before the clock starts)
const t0 = performance.now();
let ops = 0, check = 0;
while (performance.now() - t0 < ms) { const [n, s] = chunk(); ops += n; check ^= s; }
parentPort.postMessage({ mops: ops / (performance.now() - t0) / 1e3, check });
`;

export const KERNELS = ['alu-throughput', 'alu-latency', 'random-read', 'fresh-write'] as const;

function runWorker(kind: string, ms: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const w = new Worker(KERNEL_SOURCE, { eval: true, workerData: { kind, ms } });
    w.once('message', (m: { mops: number }) => resolve(m.mops));
    w.once('error', reject);
    w.once('exit', (code) => code !== 0 && reject(new Error(`kernel worker exited with code ${code}`)));
  });
}

export interface KernelScaling {
  readonly kernel: string;
  readonly oneMops: number;
  readonly twoMops: number;
  readonly speedup: number;
}

/** One kernel alone, then two at once, `ms` each. */
export async function measureScaling(kind: string, ms: number): Promise<KernelScaling> {
  if (!(KERNELS as readonly string[]).includes(kind)) throw new Error(`unknown kernel '${kind}' (one of ${KERNELS.join(', ')})`);
  const oneMops = await runWorker(kind, ms);
  const two = await Promise.all([runWorker(kind, ms), runWorker(kind, ms)]);
  const twoMops = two[0]! + two[1]!;
  return { kernel: kind, oneMops, twoMops, speedup: twoMops / oneMops };
}

async function main(): Promise<void> {
  const opts = new Command()
    .name('bench:machine')
    .option('--json', 'print JSON', false)
    .option('--seconds <s>', 'seconds per kernel and mode', '2')
    .parse()
    .opts<{ json: boolean; seconds: string }>();
  const seconds = Number(opts.seconds);
  if (!(seconds > 0)) throw new Error(`--seconds expects a positive number, got '${opts.seconds}'`);
  const results: KernelScaling[] = [];
  for (const k of KERNELS) {
    if (!opts.json) process.stderr.write(`  ${k}: 1 worker, then 2 workers…\n`);
    results.push(await measureScaling(k, seconds * 1000));
  }
  if (opts.json) {
    console.log(JSON.stringify({ suite: 'machine', cases: results }, null, 2));
    return;
  }
  console.log('\nmachine: two worker threads against one (Mops/s; speedup = two / one; 2.0 = two independent cores)');
  console.log(formatTable(['kernel', '1 worker', '2 workers', 'speedup'], results.map((r) => [r.kernel, Math.round(r.oneMops), Math.round(r.twoMops), Number(r.speedup.toFixed(2))])));
}

// run as a script (`npm run bench:machine`); imported (the test), it only exports
if (process.argv[1]?.endsWith('machine.ts')) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 1;
  });
}
