/**
 * The leaves of a compiled expression: a column (read through its layout at the pair batch's
 * rows, re-resolved by name when a batch's schema differs from the compiled one, and refused when
 * its type changed), a constant (buffers filled once, on (re)allocation) and SQL NULL (NULL for
 * every pair, its other operands never evaluated).
 */
import { type Data, type Decimal, type Dictionary } from 'apache-arrow';
import { ExpressionError, MissingColumnError } from '../errors.ts';
import type { Side } from '../types.ts';
import { type ByteSource, byteSource, dictionarySource } from './byte-sources.ts';
import { gatherBools, gatherExact, gatherFloats, gatherNulls, int32View } from './column-readers.ts';
import { type ColumnType, columnType } from './column-types.ts';
import { type ExactVec, toDouble, TWO53, wordsOf } from './exact.ts';
import { type Ctx, DENSE_ROWS, type DenseExact, f64, f64Filled, i32, Node, type NumVec, type StrVec, u32, u8, u8Filled, type VClass } from './node-base.ts';

const EMPTY_OFFSETS = Int32Array.of(0, 0);
const EMPTY_BYTES = new Uint8Array(0);

export class ColumnNode extends Node {
  private nullBuf?: Uint8Array;
  private numBuf?: Float64Array;
  private wordBuf?: Uint32Array;
  private boolBuf?: Uint8Array;
  private idxBuf?: Int32Array;
  private n = 0;
  private readonly words = (): Uint32Array => (this.wordBuf = u32(this.wordBuf, 4 * this.n));

  constructor(
    private readonly side: Side,
    private readonly name: string,
    private readonly index: number,
    private readonly type: ColumnType,
    label: string,
  ) {
    super(type.cls, label);
  }

  /** This column's Data in the current batch; re-resolved by name if the batch's schema differs. */
  private column(ctx: Ctx): Data {
    const batch = this.side === 'left' ? ctx.left : ctx.right;
    const fields = batch.schema.fields;
    let idx = this.index;
    if (fields[idx]?.name !== this.name) {
      idx = fields.findIndex((f) => f.name === this.name);
      if (idx < 0) throw new MissingColumnError(this.name, `${this.side} input`, fields.map((f) => f.name));
    }
    const data = batch.data.children[idx]!;
    const now = columnType(data.type);
    if (now === null || now.layout !== this.type.layout || now.cls.sql !== this.type.cls.sql) {
      throw new ExpressionError(
        `column ${this.label} has type ${String(data.type)} in this batch, but the filter was compiled for ${this.type.cls.sql}`,
      );
    }
    return data;
  }

  private rows(ctx: Ctx): Int32Array {
    return this.side === 'left' ? ctx.leftRows : ctx.rightRows;
  }

  override num(ctx: Ctx): NumVec {
    const data = this.column(ctx);
    const rows = this.rows(ctx);
    const values = (this.numBuf = f64(this.numBuf, ctx.n));
    gatherFloats(data, this.type.layout, rows, ctx.n, values);
    return { values, nulls: gatherNulls(data, rows, ctx.n, (this.nullBuf = u8(this.nullBuf, ctx.n))) };
  }

  override denseExact(ctx: Ctx): DenseExact | null {
    const rows = this.rows(ctx);
    if (!DENSE_ROWS.has(rows)) return null;
    const layout = this.type.layout;
    if (layout !== 'small-int' && layout !== 'decimal') return null;
    const data = this.column(ctx);
    const nulls = gatherNulls(data, rows, ctx.n, (this.nullBuf = u8(this.nullBuf, ctx.n)));
    if (layout === 'small-int') return { kind: 'ints', values: data.values as Int32Array, nulls };
    const stride = (data.type as Decimal).bitWidth >> 5;
    if (stride !== 2 && stride !== 4) return null;
    const v = data.values as ArrayBufferView;
    return { kind: 'words', words: new Uint32Array(v.buffer, v.byteOffset, data.length * stride), stride, nulls };
  }

  override exact(ctx: Ctx): ExactVec {
    const data = this.column(ctx);
    const rows = this.rows(ctx);
    const f = (this.numBuf = f64(this.numBuf, ctx.n));
    this.n = ctx.n;
    const words = gatherExact(data, this.type.layout, rows, ctx.n, f, this.words);
    const nulls = gatherNulls(data, rows, ctx.n, (this.nullBuf = u8(this.nullBuf, ctx.n)));
    if (words === null || words instanceof Uint32Array) return { f, w: words, src: null, nulls };
    return { f, w: null, src: words, nulls };
  }

  override bool(ctx: Ctx): Uint8Array {
    const data = this.column(ctx);
    const rows = this.rows(ctx);
    const out = (this.boolBuf = u8(this.boolBuf, ctx.n));
    gatherBools(data, rows, ctx.n, out, gatherNulls(data, rows, ctx.n, (this.nullBuf = u8(this.nullBuf, ctx.n))));
    return out;
  }

  override str(ctx: Ctx): StrVec {
    const data = this.column(ctx);
    const rows = this.rows(ctx);
    const n = ctx.n;
    const rowNulls = gatherNulls(data, rows, n, (this.nullBuf = u8(this.nullBuf, n)));
    if (this.type.layout === 'bytes') {
      const src = byteSource(data);
      return { offsets: src.offsets, bytes: src.bytes, idx: rows, nulls: rowNulls, entries: src.offsets.length - 1 };
    }
    // dictionary: entry = code; NULL if the row or its dictionary entry is NULL
    const src = dictionarySource(data.dictionary!);
    const idx = (this.idxBuf = i32(this.idxBuf, n));
    const codes = data.values as ArrayLike<number> & ArrayBufferView;
    if (((data.type as Dictionary).indices.bitWidth as number) === 64) {
      const w = int32View(codes);
      for (let k = 0; k < n; k++) idx[k] = w[rows[k]! << 1]!;
    } else {
      for (let k = 0; k < n; k++) idx[k] = codes[rows[k]!]!;
    }
    let nulls = rowNulls;
    if (rowNulls !== null) for (let k = 0; k < n; k++) if (rowNulls[k]) idx[k] = 0;
    const en = src.entryNulls;
    if (en !== null) {
      const buf = (this.nullBuf = u8(this.nullBuf, n));
      for (let k = 0; k < n; k++) buf[k] = (rowNulls !== null ? rowNulls[k]! : 0) | en[idx[k]!]!;
      nulls = buf;
    }
    return { offsets: src.offsets, bytes: src.bytes, idx, nulls, entries: src.offsets.length - 1 };
  }
}

/**
 * A constant. Buffers are filled when (re)allocated only: their content never changes. An exact
 * value (integer, decimal unscaled, temporal) is a bigint; a DOUBLE a number.
 */
export class LiteralNode extends Node {
  override readonly intLiteral: bigint | null;
  private numBuf?: Float64Array;
  private wordBuf?: Uint32Array;
  private boolBuf?: Uint8Array;
  private idxBuf?: Int32Array;
  private readonly words: Uint32Array | null;
  private readonly approx: number;
  private readonly utf8: ByteSource | null;

  constructor(
    cls: VClass,
    label: string,
    private readonly value: number | boolean | string | bigint,
    intLiteral: bigint | null = null,
  ) {
    super(cls, label);
    this.intLiteral = intLiteral;
    if (typeof value === 'bigint') {
      const words = wordsOf(value);
      this.approx = toDouble(words);
      this.words = this.approx > -TWO53 && this.approx < TWO53 ? null : words;
    } else {
      this.approx = typeof value === 'number' ? value : 0;
      this.words = null;
    }
    if (typeof value === 'string') {
      const bytes = new TextEncoder().encode(value);
      this.utf8 = { offsets: Int32Array.of(0, bytes.length), bytes, entryNulls: null };
    } else {
      this.utf8 = null;
    }
  }

  override get exactScalar(): number | null {
    return typeof this.value === 'bigint' && this.words === null ? this.approx : null;
  }

  /** The constant (an exact value as a bigint). */
  get constant(): number | boolean | string | bigint {
    return this.value;
  }

  override num(ctx: Ctx): NumVec {
    return { values: (this.numBuf = f64Filled(this.numBuf, ctx.n, this.approx)), nulls: null };
  }

  override exact(ctx: Ctx): ExactVec {
    const words = this.words;
    this.numBuf = f64Filled(this.numBuf, ctx.n, this.approx);
    if (words !== null && (this.wordBuf === undefined || this.wordBuf.length < 4 * ctx.n)) {
      // every row's words, written once when the buffer grows (reused buffers are filled whole)
      const w = (this.wordBuf = u32(this.wordBuf, 4 * ctx.n));
      for (let k = 0; k < ctx.n; k++) w.set(words, 4 * k);
    }
    return { f: this.numBuf, w: words === null ? null : this.wordBuf!, src: null, nulls: null };
  }

  override bool(ctx: Ctx): Uint8Array {
    return (this.boolBuf = u8Filled(this.boolBuf, ctx.n, this.value ? 1 : 0));
  }

  override str(ctx: Ctx): StrVec {
    const src = this.utf8!;
    this.idxBuf = i32(this.idxBuf, ctx.n); // all zeros: entry 0
    return { offsets: src.offsets, bytes: src.bytes, idx: this.idxBuf, nulls: null, entries: 1 };
  }
}

/**
 * SQL NULL (also the result of a comparison or arithmetic with a NULL literal): NULL for every
 * pair, in whichever form its class is read (parents usually skip it altogether).
 */
export class NullNode extends Node {
  private nullBuf?: Uint8Array;
  private boolBuf?: Uint8Array;
  private numBuf?: Float64Array;
  private idxBuf?: Int32Array;

  override exact(ctx: Ctx): ExactVec {
    this.numBuf = f64(this.numBuf, ctx.n);
    return { f: this.numBuf, w: null, src: null, nulls: this.nulls(ctx) };
  }

  override num(ctx: Ctx): NumVec {
    this.numBuf = f64(this.numBuf, ctx.n);
    return { values: this.numBuf, nulls: this.nulls(ctx) };
  }

  override str(ctx: Ctx): StrVec {
    this.idxBuf = i32(this.idxBuf, ctx.n);
    return { offsets: EMPTY_OFFSETS, bytes: EMPTY_BYTES, idx: this.idxBuf, nulls: this.nulls(ctx), entries: 1 };
  }

  override bool(ctx: Ctx): Uint8Array {
    return (this.boolBuf = u8Filled(this.boolBuf, ctx.n, 2));
  }

  override nulls(ctx: Ctx): Uint8Array {
    return (this.nullBuf = u8Filled(this.nullBuf, ctx.n, 1));
  }
}
