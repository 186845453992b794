/**
 * A process-wide cache of large typed-array buffers that finished hash tables give back, so the
 * next join of the same size reuses them instead of allocating fresh ones.
 *
 * Why: a fresh multi-megabyte ArrayBuffer is zero pages that the OS maps on first touch, and on this
 * class of VM first touches cost ~0.6 ms per MB — a 1M-key table (18 MB) pays ~10-15 ms of page
 * faults on every build, a fifth of the build. A repeated join (benchmarks, experiment variants,
 * the parity fuzzer, a long-running process) gets warm memory back, the way a database's buffer
 * manager keeps its pages (DuckDB's does) instead of returning them to the OS per query.
 *
 * Rules that keep it safe:
 *  - only buffers of at least MIN_BYTES are kept, at most MAX_BYTES in all (oldest dropped first,
 *    for the GC to reclaim); the cache never grows a process beyond what its last joins held;
 *  - `take(length, zeroed)` returns an exact-length array: zero-filled when asked (memset, ~20x
 *    cheaper than the faults), else with stale contents the caller promises never to read before
 *    writing;
 *  - whoever `release`s an array must never touch it again — hash tables enforce that by refusing
 *    to probe once released;
 *  - arrays in shared memory (a table built for worker threads, `BuildInput.shared`) are neither
 *    taken from nor given back to the cache: another thread may still read them.
 * It is memory the engine holds outside any MemoryPool reservation; `cachedBytes` says how much.
 */

/** Buffers smaller than this are cheap to allocate: not cached. */
export const MIN_BYTES = 1 << 20;
/** Most bytes the cache holds. */
export const MAX_BYTES = 256 * (1 << 20);

const free = new Map<number, Int32Array[]>();
/** Release order, for dropping the oldest first. */
const order: Int32Array[] = [];
let held = 0;

/**
 * An Int32Array of exactly `length` words: a cached one when available, else a new one; with
 * `shared`, always a new zeroed one in shared memory.
 */
export function takeInt32(length: number, zeroed: boolean, shared = false): Int32Array {
  if (shared) return allocInt32(length, true);
  if (4 * length >= MIN_BYTES) {
    const list = free.get(length);
    const a = list?.pop();
    if (a !== undefined) {
      order.splice(order.indexOf(a), 1);
      held -= a.byteLength;
      if (zeroed) a.fill(0);
      return a;
    }
  }
  return new Int32Array(length);
}

/** Gives arrays back (the caller must not use them afterwards). Small ones are simply dropped. */
export function releaseInt32(...arrays: (Int32Array | null)[]): void {
  for (const a of arrays) {
    if (a === null || a.byteLength < MIN_BYTES || a.byteOffset !== 0 || a.length * 4 !== a.buffer.byteLength || a.buffer instanceof SharedArrayBuffer) continue;
    let list = free.get(a.length);
    if (list === undefined) free.set(a.length, (list = []));
    if (list.includes(a)) continue; // released twice: keep one entry
    list.push(a);
    order.push(a);
    held += a.byteLength;
  }
  while (held > MAX_BYTES) {
    const old = order.shift()!;
    const list = free.get(old.length)!;
    list.splice(list.indexOf(old), 1);
    held -= old.byteLength;
  }
}

/** A new zeroed Int32Array of `length` words, in shared memory when `shared` (worker threads will read it). */
export function allocInt32(length: number, shared: boolean): Int32Array {
  return shared ? new Int32Array(new SharedArrayBuffer(4 * length)) : new Int32Array(length);
}

/** A new zeroed Uint8Array of `length` bytes, in shared memory when `shared`. */
export function allocUint8(length: number, shared: boolean): Uint8Array {
  return shared ? new Uint8Array(new SharedArrayBuffer(length)) : new Uint8Array(length);
}

/** Bytes currently cached. */
export function cachedBytes(): number {
  return held;
}

/** Drops every cached buffer (tests; a process about to do something else). */
export function clearBufferCache(): void {
  free.clear();
  order.length = 0;
  held = 0;
}
