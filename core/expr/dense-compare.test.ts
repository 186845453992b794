/**
 * The comparison of a column with a constant read in place (`CompareExact` over `denseExact`, the
 * row-filter path: rows 0 .. n - 1) against the general path (the same filter through
 * `compileFilter` with a row list that is not marked dense): every integer width, Date32, Decimal64
 * and Decimal128 (values small, at 2^53 and far beyond, where the in-place kernel must hand over),
 * NULLs, every operator, the constant on either side.
 */
import { Date_, DateUnit, Decimal, Field, Int16, Int32, Int8, makeData, RecordBatch, Schema, Struct, Uint32, Uint8, type DataType } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Rng } from '../random.ts';
import { compileFilter } from './evaluate.ts';
import { parseExpr } from './parse.ts';
import { compileRowFilter } from './project.ts';

const N = 3001;
const rng = new Rng(11);

function column(type: DataType, values: ArrayBufferView): { type: DataType; data: ReturnType<typeof makeData> } {
  const bitmap = new Uint8Array(Math.ceil(N / 8)).fill(0xff);
  let nulls = 0;
  for (let i = 0; i < N; i += 7) {
    bitmap[i >> 3]! &= ~(1 << (i & 7));
    nulls++;
  }
  return { type, data: makeData({ type, length: N, nullCount: nulls, nullBitmap: bitmap, data: values } as never) };
}

function decimalWords(stride: number, wide: boolean): Uint32Array {
  const w = new Uint32Array(N * stride);
  for (let i = 0; i < N; i++) {
    const v = BigInt(rng.int(-5000, 5000)) * (wide && i % 97 === 5 ? 10n ** 20n : 1n) + (wide && i % 89 === 3 ? 2n ** 53n : 0n);
    for (let j = 0; j < stride; j++) w[i * stride + j] = Number(BigInt.asUintN(32, v >> BigInt(32 * j)));
  }
  return w;
}

const COLUMNS = {
  i8: column(new Int8(), new Int8Array(N).map(() => rng.int(-128, 127))),
  u8: column(new Uint8(), new Uint8Array(N).map(() => rng.int(0, 255))),
  i16: column(new Int16(), new Int16Array(N).map(() => rng.int(-300, 300))),
  i32: column(new Int32(), new Int32Array(N).map(() => rng.int(-2147483648, 2147483647))),
  u32: column(new Uint32(), new Uint32Array(N).map(() => rng.int(0, 4294967295))),
  day: column(new Date_(DateUnit.DAY), new Int32Array(N).map(() => rng.int(-1000, 30000))),
  d64: column(new Decimal(2, 18, 64), decimalWords(2, false)),
  d128: column(new Decimal(2, 30, 128), decimalWords(4, false)),
  d128wide: column(new Decimal(2, 38, 128), decimalWords(4, true)),
};

const fields = Object.entries(COLUMNS).map(([name, c]) => new Field(name, c.type, true));
const schema = new Schema(fields);
const batch = new RecordBatch(schema, makeData({ type: new Struct(fields), length: N, nullCount: 0, children: Object.values(COLUMNS).map((c) => c.data) }));

const CONSTANTS: Record<string, string[]> = {
  i8: ['0', '-128', '127', '5'],
  u8: ['0', '200', '255'],
  i16: ['-300', '17', '301'],
  i32: ['0', '-2147483648', '2147483647', '123456789'],
  u32: ['0', '4294967295', '2147483648'],
  day: ["'1970-01-01'", "'2020-02-29'"],
  d64: ['0', '12.34', '-49.99', '50.00'],
  d128: ['0', '12.34', '-49.99'],
  d128wide: ['0', '12.34', '90071992547409.93', '1000000000000000000000.00'],
};

describe('column vs constant, read in place = gathered', () => {
  for (const [name, constants] of Object.entries(CONSTANTS)) {
    it(name, () => {
      const plain = new Int32Array(N).map((_, i) => i); // same rows, not marked dense: the general path
      for (const c of constants) {
        for (const op of ['=', '<>', '<', '<=', '>', '>=']) {
          for (const text of [`l.${name} ${op} ${c}`, `${c} ${op} l.${name}`]) {
            const expr = parseExpr(text);
            const dense = compileRowFilter(expr, schema).select(batch);
            const general = compileFilter(expr, schema, new Schema([])).evaluate(batch, plain, batch, plain, N);
            const expected = plain.filter((i) => general[i] === 1);
            expect([...dense], text).toEqual([...expected]);
          }
        }
      }
    });
  }
});
