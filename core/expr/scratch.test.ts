// A compiled expression's scratch counted against a pool (scratch.ts): the reservation follows the
// buffers, a refused growth makes the filter evaluate smaller chunks with the same answer and the
// pool's peak within the limit, and past MIN_CHUNK_ROWS it is a MemoryLimitError naming the filter.
import { Float64, Int32, type RecordBatch, Schema, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { MemoryLimitError } from '../errors.ts';
import { MemoryPool } from '../memory/pool.ts';
import type { Expr } from './ast.ts';
import { compileFilter } from './evaluate.ts';
import { parseExpr } from './parse.ts';
import { compileProjection, compileRowFilter } from './project.ts';
import { FLOOR_BYTES_PER_NODE_ROW, FLOOR_ROWS, MIN_CHUNK_ROWS, PROBE_ROWS } from './scratch.ts';

const ROWS = 512;

function batchOf(seed: number): RecordBatch {
  const a = Array.from({ length: ROWS }, (_, i) => (i % 7 === 0 ? null : (i * 31 + seed) % 97));
  const x = Array.from({ length: ROWS }, (_, i) => ((i * 17 + seed) % 89) / 4);
  const s = Array.from({ length: ROWS }, (_, i) => (i % 11 === 0 ? null : `s${(i * 13 + seed) % 23}`));
  return new Table({ a: vectorFromArray(a, new Int32()), x: vectorFromArray(x, new Float64()), s: vectorFromArray(s, new Utf8()) }).batches[0]!;
}

const L = batchOf(1);
const R = batchOf(5);
const SCHEMA: Schema = L.schema;

/** Every (i, j) pair of the first `k` rows each side. */
function pairs(k: number): [Int32Array, Int32Array] {
  const l = new Int32Array(k * k);
  const r = new Int32Array(k * k);
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) [l[i * k + j], r[i * k + j]] = [i, j];
  return [l, r];
}

/** A filter an IN set cannot absorb: OR of terms on different columns and arithmetic, `terms` of them. */
function wideFilter(terms: number): Expr {
  const parts: string[] = [];
  for (let t = 0; t < terms; t++) {
    if (t % 3 === 0) parts.push(`l.a + ${t} = r.a`);
    else if (t % 3 === 1) parts.push(`(l.x * ${t % 5}.5 > r.x AND l.s = 's${t % 23}')`);
    else parts.push(`r.s || l.s = 's${t % 7}s${t % 11}'`);
  }
  return parseExpr(parts.join(' OR '));
}

describe('compiled filter scratch (core/expr/scratch.ts)', () => {
  const expr = wideFilter(60);
  const [lr, rr] = pairs(96); // 9,216 pairs
  const n = lr.length;
  const free = compileFilter(expr, SCHEMA, SCHEMA);
  const want = free.evaluate(L, lr, R, rr, n).slice();
  const fullScratch = free.scratch.held;

  it('counts the node buffers as they grow, and frees them with the run', () => {
    const pool = new MemoryPool();
    const f = compileFilter(expr, SCHEMA, SCHEMA);
    f.scratch.attach(pool.reservation('test filter scratch'));
    const floor = pool.reserved; // FLOOR_ROWS rows' estimate, reserved at attach
    expect(floor).toBeGreaterThan(0);
    expect(floor).toBeLessThanOrEqual(500 * FLOOR_ROWS * FLOOR_BYTES_PER_NODE_ROW); // ~400 nodes
    expect(f.evaluate(L, lr, R, rr, n)).toEqual(want);
    // a probe of PROBE_ROWS pairs first, then the rest in one chunk: buffers for n - PROBE_ROWS
    const held = f.scratch.held;
    expect(held).toBeLessThanOrEqual(fullScratch);
    expect(held).toBeGreaterThan(60 * (n - PROBE_ROWS)); // at least a byte per pair per term
    expect(pool.reserved).toBe(held); // the floor was the first bytes the buffers used
    expect(f.scratch.chunks).toBe(2);
    f.evaluate(L, lr, R, rr, n - PROBE_ROWS); // buffers reused: nothing more, one chunk
    expect(pool.reserved).toBe(held);
    expect(f.scratch.chunks).toBe(3);
    f.scratch.detach();
    expect(pool.reserved).toBe(0);
  });

  it('under a limit the whole batch cannot fit, evaluates smaller chunks: same answer, peak within the limit', () => {
    const limit = Math.floor(fullScratch / 10);
    const pool = new MemoryPool(limit);
    const f = compileFilter(expr, SCHEMA, SCHEMA);
    f.scratch.attach(pool.reservation('test filter scratch'));
    expect(f.evaluate(L, lr, R, rr, n)).toEqual(want);
    expect(f.scratch.chunks).toBeGreaterThan(2); // the probe, then chunks that fit
    expect(f.scratch.chunkRows).toBeGreaterThanOrEqual(MIN_CHUNK_ROWS);
    expect(pool.peak).toBeLessThanOrEqual(limit);
    expect(f.scratch.held).toBe(0); // a call cut to fit drops its buffers: the pool keeps only the floor
    // the next batch starts at the chunk size that fitted
    const [lr2, rr2] = pairs(64);
    expect(f.evaluate(L, lr2, R, rr2, lr2.length)).toEqual(free.evaluate(L, lr2, R, rr2, lr2.length));
    expect(pool.peak).toBeLessThanOrEqual(limit);
  });

  it('past what MIN_CHUNK_ROWS pairs need: a MemoryLimitError naming the filter, nothing over the limit', () => {
    const pool = new MemoryPool(20_000);
    const f = compileFilter(expr, SCHEMA, SCHEMA);
    let error: unknown;
    try {
      f.scratch.attach(pool.reservation('join filter scratch')); // the floor does not fit
      f.evaluate(L, lr, R, rr, n);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MemoryLimitError);
    expect((error as Error).message).toMatch(/join filter scratch \(filter \(?l\.a \+ 0 = r\.a.*…\), evaluating 8 rows at a time/);
    expect((error as Error).message.length).toBeLessThan(400);
    expect(pool.peak).toBeLessThanOrEqual(20_000);
  });

  it('with only its floor left, evaluates a few pairs at a time (or names itself when 8 do not fit)', () => {
    const probe = new MemoryPool();
    compileFilter(expr, SCHEMA, SCHEMA).scratch.attach(probe.reservation('floor'));
    const floor = probe.reserved;
    for (const extra of [0, 4 * floor]) {
      const pool = new MemoryPool(floor + extra);
      const f = compileFilter(expr, SCHEMA, SCHEMA);
      f.scratch.attach(pool.reservation('join filter scratch'));
      const [l8, r8] = pairs(40); // 1,600 pairs
      let got: Uint8Array | Error;
      try {
        got = f.evaluate(L, l8, R, r8, l8.length);
      } catch (e) {
        got = e as Error;
      }
      if (extra === 0) {
        expect(got).toBeInstanceOf(MemoryLimitError);
        expect((got as Error).message).toMatch(/join filter scratch \(filter .*\), evaluating 8 rows at a time/);
      } else {
        expect(got).toEqual(free.evaluate(L, l8, R, r8, l8.length));
        expect(f.scratch.chunks).toBeGreaterThan(10);
      }
      expect(pool.peak).toBeLessThanOrEqual(pool.limit);
    }
  });

  it('an ExpressionError is the same in chunks', () => {
    const overflow = parseExpr('l.a = 3 OR (l.a * 2147483647) * 2 > r.a');
    const msg = (limit: number): string => {
      const f = compileFilter(overflow, SCHEMA, SCHEMA);
      f.scratch.attach(new MemoryPool(limit).reservation('s'));
      try {
        f.evaluate(L, lr, R, rr, n);
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(msg(Infinity)).toMatch(/Overflow/);
    expect(msg(2 ** 15)).toBe(msg(Infinity));
  });

  it('a row filter (WHERE) chunks too; its identity rows and mask count', () => {
    const where = parseExpr(wideFilter(60).kind === 'or' ? 'l.a + 1 = 5 OR l.s || l.s = \'s1s1\' OR l.x * 2 > 40' : 'true');
    const unlimited = compileRowFilter(where, SCHEMA);
    const wantRows = unlimited.select(L);
    const pool = new MemoryPool(Math.floor(unlimited.scratch.held / 3));
    const f = compileRowFilter(where, SCHEMA);
    f.scratch.attach(pool.reservation('where scratch'));
    expect(f.select(L)).toEqual(wantRows);
    expect(f.scratch.chunks).toBeGreaterThan(2);
    expect(pool.peak).toBeLessThanOrEqual(pool.limit);
  });

  it('a projection counts its scratch; refused, a MemoryLimitError naming the expression', () => {
    const e = parseExpr("CAST(l.a * 3 + 1 AS VARCHAR) || '-' || l.s");
    const ok = compileProjection(e, SCHEMA);
    const pool = new MemoryPool();
    ok.scratch.attach(pool.reservation('SELECT expression scratch'));
    const want = compileProjection(e, SCHEMA).evaluate(L);
    expect(ok.evaluate(L).values).toEqual(want.values);
    expect(pool.reserved).toBeGreaterThan(ROWS * 8);
    const tight = compileProjection(e, SCHEMA);
    tight.scratch.attach(new MemoryPool(4000).reservation('SELECT expression scratch'));
    expect(() => tight.evaluate(L)).toThrow(/SELECT expression scratch \(.*l\.s\), evaluating 512 rows at a time/);
  });
});
