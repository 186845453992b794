import { describe, expect, it } from 'vitest';
import { ConfigError, MemoryLimitError } from '../errors.ts';
import { MemoryPool, parseByteSize } from './pool.ts';

describe('MemoryPool', () => {
  it('tracks grow / shrink / free across reservations, with peak', () => {
    const pool = new MemoryPool(1000);
    const a = pool.reservation('hash-join build');
    const b = pool.reservation('sort');
    a.grow(300);
    b.grow(500);
    expect(pool.reserved).toBe(800);
    expect(pool.available).toBe(200);
    a.shrink(100);
    expect(a.size).toBe(200);
    expect(pool.reserved).toBe(700);
    expect(pool.peak).toBe(800);
    expect(b.free()).toBe(500);
    expect(b.size).toBe(0);
    expect(pool.reserved).toBe(200);
    b.grow(800); // a freed reservation is usable again
    expect(pool.reserved).toBe(1000);
    expect(pool.peak).toBe(1000);
    expect(b.peak).toBe(800);
    a.resize(50);
    expect(pool.reserved).toBe(850);
    expect(a.peak).toBe(300);
  });

  it('grow past the limit throws MemoryLimitError naming consumer, request, reserved and limit; nothing changes', () => {
    const pool = new MemoryPool(1000);
    const a = pool.reservation('hash-join[0] build');
    a.grow(600);
    let err: unknown;
    try {
      a.grow(500);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MemoryLimitError);
    const e = err as MemoryLimitError;
    expect([e.consumer, e.requested, e.reserved, e.limit]).toEqual(['hash-join[0] build', 500, 600, 1000]);
    expect(e.message).toBe('memory limit exceeded: hash-join[0] build asked for 500 bytes with 600 of 1000 reserved (memoryLimit=1000)');
    expect(a.size).toBe(600);
    expect(pool.reserved).toBe(600);
    a.grow(400); // exactly up to the limit is fine
    expect(pool.reserved).toBe(1000);
  });

  it('tryGrow returns false instead of throwing (for operators that can spill)', () => {
    const pool = new MemoryPool('1KB');
    const r = pool.reservation('smj buffer');
    expect(r.tryGrow(900)).toBe(true);
    expect(r.tryGrow(101)).toBe(false);
    expect(r.size).toBe(900);
    expect(r.tryGrow(100)).toBe(true);
    expect(pool.peak).toBe(1000);
  });

  it('Infinity never refuses; zero-byte grows are fine; bad byte counts are bugs', () => {
    const pool = new MemoryPool();
    expect(pool.limit).toBe(Infinity);
    const r = pool.reservation('x');
    r.grow(2 ** 50);
    r.grow(0);
    expect(pool.reserved).toBe(2 ** 50);
    expect(() => r.grow(-1)).toThrow(RangeError);
    expect(() => r.grow(NaN)).toThrow(RangeError);
    expect(() => r.shrink(2 ** 51)).toThrow(/cannot shrink by/);
    const zero = new MemoryPool(0).reservation('z');
    zero.grow(0);
    expect(() => zero.grow(1)).toThrow(MemoryLimitError);
  });
});

describe('parseByteSize', () => {
  it('accepts numbers, plain digits and DuckDB-style units', () => {
    expect(parseByteSize(1024)).toBe(1024);
    expect(parseByteSize(Infinity)).toBe(Infinity);
    expect(parseByteSize('1000')).toBe(1000);
    expect(parseByteSize('512MB')).toBe(512_000_000);
    expect(parseByteSize('2GiB')).toBe(2 * 2 ** 30);
    expect(parseByteSize('1.5 gb')).toBe(1_500_000_000);
    expect(parseByteSize('64kib')).toBe(65536);
    expect(parseByteSize('10 B')).toBe(10);
    expect(parseByteSize(' 3TB ')).toBe(3e12);
    expect(parseByteSize('unlimited')).toBe(Infinity);
    expect(parseByteSize('0')).toBe(0);
  });

  it('rejects bad values with a ConfigError naming the value (and the key)', () => {
    for (const bad of ['12XB', '', 'MB', '-5MB', '1e3', 'ten', '5 M B']) {
      expect(() => parseByteSize(bad), bad).toThrow(ConfigError);
    }
    expect(() => parseByteSize(-1)).toThrow(ConfigError);
    expect(() => parseByteSize(NaN)).toThrow(ConfigError);
    expect(() => parseByteSize('12XB', 'memoryLimit')).toThrow("invalid byte size '12XB' for memoryLimit");
    expect(() => new MemoryPool('lots')).toThrow(/invalid byte size 'lots'/);
  });
});

describe('a pool shared with worker threads', () => {
  it('attached pools reserve against one limit and one peak; the pool keeps what it held before sharing', () => {
    const main = new MemoryPool(1000);
    const a = main.reservation('before');
    a.grow(100);
    const handle = main.share();
    expect(main.share()).toBe(handle);
    const w1 = MemoryPool.attach(handle);
    const w2 = MemoryPool.attach(structuredClone(handle)); // as a worker receives it
    expect(w1.reserved).toBe(100);
    const r1 = w1.reservation('worker 1');
    const r2 = w2.reservation('worker 2');
    r1.grow(500);
    expect(main.reserved).toBe(600);
    expect(() => r2.grow(401)).toThrow(MemoryLimitError);
    r2.grow(400);
    expect(main.available).toBe(0);
    expect(() => a.grow(1)).toThrow(/memoryLimit=1000/);
    r1.free();
    r2.shrink(150);
    expect(w2.reserved).toBe(350);
    expect(main.peak).toBe(1000);
    a.free();
    r2.free();
    expect(main.reserved).toBe(0);
  });

  it('an unlimited pool shares too', () => {
    const main = new MemoryPool(Infinity);
    const w = MemoryPool.attach(main.share());
    w.reservation('x').grow(2 ** 40);
    expect(main.reserved).toBe(2 ** 40);
  });
});
