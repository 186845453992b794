// A worker thread for watermark.test.ts (test support, not part of the operator): one streamed
// partition lowering a shared `MinMarkedWatermark` (the real watermark.ts, loaded through tsx's
// loader as bin/run-ts.mjs does, so the same file works under vitest and under plain `node`).
//
// Each message is a round: `{ round, buffer, gate, written, values }` or `{ round, buffer, gate,
// written, chase, seed }`. The worker attaches to the watermark over `buffer`, counts itself in
// at `gate[0]`, waits until the test opens `gate[1]` (so every worker starts at once), then lowers
// the watermark in a tight loop — through `values`, or (`chase`) `chase` times to 1 or 2 below
// the value it just read, so that every attempt races the other workers' — and finishes its
// partition. Every value a `lower` call returned true for is flagged in the shared `written`
// bytes (one per value): a flag already set means two lowerings wrote the same value, which a
// watermark that is only ever lowered never does. The answer: `{ round, lowered, twice, rose,
// tried, lastLowered, last }` — how many lowerings succeeded, how many wrote a value already
// written, how many of this worker's own were not below its previous one, the lowest value it
// tried, the last value it wrote (-1: none), and whether its `finishPartition` was the last.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { MinMarkedWatermark } = await import('./watermark.ts');

parentPort.on('message', ({ round, buffer, gate, written, values, chase, seed }) => {
  const w = MinMarkedWatermark.attach(buffer);
  const flags = new Uint8Array(written);
  const g = new Int32Array(gate);
  Atomics.add(g, 0, 1);
  Atomics.notify(g, 0);
  Atomics.wait(g, 1, 0);
  let lowered = 0;
  let twice = 0;
  let rose = 0;
  let tried = 0x7fffffff;
  let lastLowered = -1;
  const attempt = (k) => {
    if (k < tried) tried = k;
    if (!w.lower(k)) return;
    lowered++;
    if (Atomics.exchange(flags, k, 1) === 1) twice++;
    if (lastLowered >= 0 && k >= lastLowered) rose++;
    lastLowered = k;
  };
  if (values !== undefined) {
    for (let i = 0; i < values.length; i++) attempt(values[i]);
  } else {
    let s = seed | 1; // xorshift32
    for (let i = 0; i < chase; i++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      attempt(Math.max(0, w.value - 1 - (s & 1)));
    }
  }
  const last = w.finishPartition();
  parentPort.postMessage({ round, lowered, twice, rose, tried, lastLowered, last });
});
parentPort.postMessage({ ready: true });
