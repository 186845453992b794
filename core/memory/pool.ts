/**
 * Memory accounting: a byte budget shared by the operators of one run.
 *
 * Why: JS gives no control over allocation, so operators *declare* what they hold (hash tables,
 * buffered batches) through a Reservation before holding it. `grow` fails loudly with a
 * MemoryLimitError naming the consumer; `tryGrow` lets an operator that can spill (sort-merge
 * buffering, external sort) fall back to disk instead. Accounting only: nothing is allocated here.
 *
 * Invariants: `pool.reserved` is the sum of all reservation sizes and never exceeds `limit`;
 * `peak` only grows; a failed grow changes nothing. `shrink` past a reservation's size and
 * negative/NaN byte counts are caller bugs (RangeError). `free()` returns a reservation to 0 and it
 * stays usable. A `limit` of Infinity never refuses.
 *
 * What counts: everything an operator holds for longer than one batch (builds, buffered sides,
 * scratch arrays, bitsets), every output batch while it is in flight between an operator and its
 * consumer, and whatever a consumer keeps (the table `Engine.join` returns, a writer's pending row
 * group). `ensure` covers allocations whose size is only known just before they happen (a gather
 * of variable-width values into one output batch): it refuses without reserving, so a batch that
 * could never fit fails before it is allocated.
 *
 * No limit is not "unbounded": with `memoryLimit` unset the engine gives its pool the system
 * budget (`systemMemoryBudget`, a share of physical or cgroup memory), so a result that cannot fit
 * is a MemoryLimitError naming the budget, not the kernel's OOM killer. Objects on the V8 heap are
 * not ArrayBuffers and escape byte accounting; `checkHeap` is the guard for them (called per output
 * batch by the engine): past 75% of V8's heap limit the run stops with the same typed error rather
 * than letting V8 abort the process.
 */
import * as os from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { ConfigError, MemoryLimitError } from '../errors.ts';

/** Share of the machine's (or the cgroup's) memory a run may reserve when no limit is configured. */
export const SYSTEM_BUDGET_SHARE = 0.7;

let systemMemory: number | null = null;

/**
 * Memory the process may use: physical memory, or less when a cgroup constrains the process. Read
 * once per process (the cgroup read costs ~30 µs, paid by every run otherwise).
 */
export function systemMemoryBytes(): number {
  if (systemMemory === null) {
    const total = os.totalmem();
    const constrained = typeof process.constrainedMemory === 'function' ? process.constrainedMemory() : 0;
    systemMemory = constrained !== undefined && constrained > 0 && constrained < total ? constrained : total;
  }
  return systemMemory;
}

/** The limit a pool gets when no `memoryLimit` is configured. */
export function systemMemoryBudget(): number {
  return Math.floor(SYSTEM_BUDGET_SHARE * systemMemoryBytes());
}

/** `bytes` for people: `512 MiB`, `1.5 GiB`, `800 B`. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v >= 100 ? Math.round(v) : Math.round(v * 10) / 10} ${units[u]}`;
}

export interface MemoryPoolOptions {
  /** Where the limit comes from, for error messages (default `memoryLimit=<limit>`). */
  readonly limitSource?: string;
}

/** Fraction of V8's heap limit past which `checkHeap` stops the run: the limit includes the young generation, and mark-compact gives up before old space is full (measured: 190 MB used of a 240 MB limit). */
const HEAP_SHARE = 0.75;

function checkBytes(bytes: number, what: string): void {
  if (!(bytes >= 0) || !Number.isFinite(bytes)) throw new RangeError(`${what}: byte count must be a finite number >= 0, got ${bytes}`);
}

/**
 * A pool's counters in shared memory, for worker threads to reserve against the same limit
 * (`MemoryPool.share` / `MemoryPool.attach`): slot 0 the bytes reserved, slot 1 the peak.
 */
export interface SharedPoolHandle {
  readonly counters: SharedArrayBuffer;
  readonly limit: number;
  readonly limitSource?: string;
}

export class MemoryPool {
  readonly limit: number;
  readonly limitSource: string | undefined;
  private reservedBytes = 0;
  private peakBytes = 0;
  /**
   * Set once the pool is shared with worker threads: every reservation of every thread then goes
   * through these atomic counters (a compare-exchange per grow — per batch, never per row), so
   * the limit holds for the query as a whole, not per thread.
   */
  #shared: BigInt64Array | null = null;
  #handle: SharedPoolHandle | null = null;

  /** `limit` in bytes (Infinity for no limit) or a size string such as '512MB' / '2GiB'. */
  constructor(limit: number | string = Infinity, options: MemoryPoolOptions = {}) {
    this.limit = parseByteSize(limit, 'memoryLimit');
    this.limitSource = options.limitSource;
  }

  /**
   * A pool for a run configured with `memoryLimit` (bytes, Infinity when unset): the configured
   * limit, or the system budget when there is none or the configured one exceeds it.
   */
  static forRun(configured: number): MemoryPool {
    const budget = systemMemoryBudget();
    if (configured <= budget) return new MemoryPool(configured);
    const what = Number.isFinite(configured) ? `memoryLimit=${configured} exceeds` : 'no memoryLimit set: the limit is';
    return new MemoryPool(budget, { limitSource: `${what} the system budget, ${SYSTEM_BUDGET_SHARE * 100}% of ${formatBytes(systemMemoryBytes())}` });
  }

  /**
   * This pool's counters moved into shared memory (idempotent): from now on its reservations and
   * those of every pool `attach`ed to the handle count against one limit.
   */
  share(): SharedPoolHandle {
    if (this.#handle === null) {
      const counters = new SharedArrayBuffer(16);
      const c = new BigInt64Array(counters);
      c[0] = BigInt(this.reservedBytes);
      c[1] = BigInt(this.peakBytes);
      this.#shared = c;
      this.#handle = { counters, limit: this.limit, ...(this.limitSource === undefined ? {} : { limitSource: this.limitSource }) };
    }
    return this.#handle;
  }

  /** A pool over a shared pool's counters (in a worker thread): same limit, same reserved bytes. */
  static attach(handle: SharedPoolHandle): MemoryPool {
    const pool = new MemoryPool(handle.limit, handle.limitSource === undefined ? {} : { limitSource: handle.limitSource });
    pool.#shared = new BigInt64Array(handle.counters);
    pool.#handle = handle;
    return pool;
  }

  /** The error a refused request of `bytes` by `consumer` raises. */
  limitError(consumer: string, bytes: number): MemoryLimitError {
    return new MemoryLimitError(consumer, bytes, this.reserved, this.limit, this.limitSource);
  }

  /**
   * Throws MemoryLimitError unless `bytes` more could be reserved now; reserves nothing. For an
   * allocation about to happen whose bytes are accounted once it exists (an output batch).
   */
  ensure(bytes: number, consumer: string): void {
    checkBytes(bytes, `${consumer}: ensure`);
    if (bytes > this.limit - this.reserved) throw this.limitError(consumer, bytes);
  }

  /**
   * Throws MemoryLimitError when the V8 heap (JS objects, not ArrayBuffers) is past 75% of its
   * limit: the run would otherwise end in V8's fatal out-of-memory abort.
   */
  checkHeap(consumer: string): void {
    const h = getHeapStatistics();
    if (h.used_heap_size > HEAP_SHARE * h.heap_size_limit) {
      throw new MemoryLimitError(consumer, 0, h.used_heap_size, h.heap_size_limit, `the V8 heap is past ${HEAP_SHARE * 100}% of its ${formatBytes(h.heap_size_limit)} limit (node --max-old-space-size)`);
    }
  }

  /** Bytes currently reserved by all reservations (of every thread, once shared). */
  get reserved(): number {
    return this.#shared === null ? this.reservedBytes : Number(Atomics.load(this.#shared, 0));
  }

  /** Highest `reserved` seen. */
  get peak(): number {
    return this.#shared === null ? this.peakBytes : Number(Atomics.load(this.#shared, 1));
  }

  /** Bytes still available (Infinity without a limit). */
  get available(): number {
    return this.limit - this.reserved;
  }

  /** A new, empty reservation; `consumer` names the operator in errors (e.g. `hash-join[2] build`). */
  reservation(consumer: string): Reservation {
    return new Reservation(this, consumer);
  }

  /** @internal used by Reservation */
  acquire(bytes: number): boolean {
    const c = this.#shared;
    if (c === null) {
      if (bytes > this.limit - this.reservedBytes) return false;
      this.reservedBytes += bytes;
      if (this.reservedBytes > this.peakBytes) this.peakBytes = this.reservedBytes;
      return true;
    }
    const add = BigInt(Math.round(bytes));
    const limit = Number.isFinite(this.limit) ? BigInt(this.limit) : null;
    let now: bigint;
    for (let cur = Atomics.load(c, 0); ; ) {
      if (limit !== null && add > limit - cur) return false;
      const seen = Atomics.compareExchange(c, 0, cur, cur + add);
      if (seen === cur) {
        now = cur + add;
        break;
      }
      cur = seen;
    }
    for (let peak = Atomics.load(c, 1); now > peak; ) {
      const seen = Atomics.compareExchange(c, 1, peak, now);
      if (seen === peak) break;
      peak = seen;
    }
    return true;
  }

  /** @internal used by Reservation */
  release(bytes: number): void {
    if (this.#shared === null) this.reservedBytes -= bytes;
    else Atomics.sub(this.#shared, 0, BigInt(Math.round(bytes)));
  }
}

export class Reservation {
  private bytes = 0;
  private peakBytes = 0;

  constructor(
    readonly pool: MemoryPool,
    readonly consumer: string,
  ) {}

  /** Bytes this reservation holds. */
  get size(): number {
    return this.bytes;
  }

  /** Highest `size` this reservation reached (for OperatorMetrics.peakReservedBytes). */
  get peak(): number {
    return this.peakBytes;
  }

  /** Reserve `bytes` more, or throw MemoryLimitError (nothing changes on failure). */
  grow(bytes: number): void {
    if (!this.tryGrow(bytes)) throw this.pool.limitError(this.consumer, bytes);
  }

  /** Reserve `bytes` more if the pool allows; false (nothing changes) otherwise. */
  tryGrow(bytes: number): boolean {
    checkBytes(bytes, `${this.consumer}: grow`);
    if (!this.pool.acquire(bytes)) return false;
    this.bytes += bytes;
    if (this.bytes > this.peakBytes) this.peakBytes = this.bytes;
    return true;
  }

  /** Give back `bytes` (at most `size`). */
  shrink(bytes: number): void {
    checkBytes(bytes, `${this.consumer}: shrink`);
    if (bytes > this.bytes) throw new RangeError(`${this.consumer}: cannot shrink by ${bytes} bytes, only ${this.bytes} reserved`);
    this.bytes -= bytes;
    this.pool.release(bytes);
  }

  /** Set the size to exactly `bytes` (grows may throw MemoryLimitError). */
  resize(bytes: number): void {
    checkBytes(bytes, `${this.consumer}: resize`);
    if (bytes > this.bytes) this.grow(bytes - this.bytes);
    else this.shrink(this.bytes - bytes);
  }

  /** Release everything; returns the bytes released. The reservation can be grown again. */
  free(): number {
    const released = this.bytes;
    this.bytes = 0;
    this.pool.release(released);
    return released;
  }
}

const UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/**
 * A byte count from configuration: a number of bytes (`1024`, Infinity), or a string with an
 * optional unit like DuckDB's memory_limit: `'1000'`, `'512MB'` (KB/MB/GB/TB are powers of 1000),
 * `'2GiB'` (KiB/MiB/GiB/TiB powers of 1024), `'1.5 GB'`; `'unlimited'`/`'infinity'` mean no limit.
 * Units are case-insensitive; fractional results round down. Throws ConfigError naming the value
 * (and `key`, the setting, when given).
 */
export function parseByteSize(value: number | string, key?: string): number {
  const bad = (): never => {
    throw new ConfigError(
      `invalid byte size ${typeof value === 'string' ? `'${value}'` : String(value)}${key ? ` for ${key}` : ''}: expected a number of bytes or a size like 512MB, 2GiB, unlimited`,
      key,
    );
  };
  if (typeof value === 'number') {
    if (value === Infinity) return value;
    if (!Number.isFinite(value) || value < 0) bad();
    return Math.floor(value);
  }
  if (typeof value !== 'string') return bad();
  const text = value.trim().toLowerCase();
  if (text === 'unlimited' || text === 'infinity' || text === 'inf') return Infinity;
  const m = /^(\d+(?:\.\d+)?|\.\d+)\s*([a-z]*)$/.exec(text);
  if (m === null) return bad();
  const unit = m[2] === '' ? 1 : UNITS[m[2]!];
  if (unit === undefined) return bad();
  const bytes = Math.floor(Number(m[1]) * unit);
  if (!Number.isFinite(bytes)) bad();
  return bytes;
}
