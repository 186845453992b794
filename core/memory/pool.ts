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
 */
import { ConfigError, MemoryLimitError } from '../errors.ts';

function checkBytes(bytes: number, what: string): void {
  if (!(bytes >= 0) || !Number.isFinite(bytes)) throw new RangeError(`${what}: byte count must be a finite number >= 0, got ${bytes}`);
}

export class MemoryPool {
  readonly limit: number;
  private reservedBytes = 0;
  private peakBytes = 0;

  /** `limit` in bytes (Infinity for no limit) or a size string such as '512MB' / '2GiB'. */
  constructor(limit: number | string = Infinity) {
    this.limit = parseByteSize(limit, 'memoryLimit');
  }

  /** Bytes currently reserved by all reservations. */
  get reserved(): number {
    return this.reservedBytes;
  }

  /** Highest `reserved` seen. */
  get peak(): number {
    return this.peakBytes;
  }

  /** Bytes still available (Infinity without a limit). */
  get available(): number {
    return this.limit - this.reservedBytes;
  }

  /** A new, empty reservation; `consumer` names the operator in errors (e.g. `hash-join[2] build`). */
  reservation(consumer: string): Reservation {
    return new Reservation(this, consumer);
  }

  /** @internal used by Reservation */
  acquire(bytes: number): boolean {
    if (bytes > this.limit - this.reservedBytes) return false;
    this.reservedBytes += bytes;
    if (this.reservedBytes > this.peakBytes) this.peakBytes = this.reservedBytes;
    return true;
  }

  /** @internal used by Reservation */
  release(bytes: number): void {
    this.reservedBytes -= bytes;
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
    if (!this.tryGrow(bytes)) {
      throw new MemoryLimitError(this.consumer, bytes, this.pool.reserved, this.pool.limit);
    }
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
