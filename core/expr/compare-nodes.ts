/**
 * Comparisons of booleans (false < true) and of strings/binary (byte-wise: DuckDB's default
 * binary collation, UTF-8 byte order being code point order). A comparison with a NULL operand is
 * NULL. With a literal on one side and no more distinct entries than pairs (a dictionary column),
 * each entry is compared with the literal once and the pairs map through their entry index.
 * Numeric and temporal comparisons are in numeric-nodes.ts.
 */
import { compareByteRanges } from '../keys/byte-order.ts';
import type { CompareOp } from './ast.ts';
import { CompareNode, type Ctx, mergeNulls, type Node, u8 } from './node-base.ts';

export class CompareBools extends CompareNode {
  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const x = this.a.bool(ctx);
    const y = this.b.bool(ctx);
    const out = (this.buf = u8(this.buf, n));
    const lut = this.lut;
    for (let k = 0; k < n; k++) {
      const p = x[k]!;
      const q = y[k]!;
      out[k] = p === 2 || q === 2 ? 2 : lut[p - q + 1]!;
    }
    return out;
  }
}

/** Byte-wise comparison; with a literal on one side, compared once per entry when that is cheaper. */
export class CompareStrings extends CompareNode {
  private entryBuf?: Uint8Array;

  constructor(
    op: CompareOp,
    a: Node,
    b: Node,
    label: string,
    /** Which operand is a literal, if any. */
    private readonly constant: 'a' | 'b' | null,
  ) {
    super(op, a, b, label);
  }

  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const x = this.a.str(ctx);
    const y = this.b.str(ctx);
    const nulls = mergeNulls(x.nulls, y.nulls, n, (this.nullBuf = u8(this.nullBuf, n)));
    const out = (this.buf = u8(this.buf, n));
    const lut = this.lut;
    const column = this.constant === 'a' ? y : x;
    if (this.constant !== null && column.entries <= n) {
      // Decide each entry once against the literal, then map pairs through their entry index.
      const lit = this.constant === 'a' ? x : y;
      const ls = lit.offsets[0]!;
      const le = lit.offsets[1]!;
      const entries = column.entries;
      const res = (this.entryBuf = u8(this.entryBuf, entries));
      const { offsets, bytes } = column;
      const sign = this.constant === 'a' ? -1 : 1;
      for (let e = 0; e < entries; e++) {
        const c = sign * compareByteRanges(bytes, offsets[e]!, offsets[e + 1]!, lit.bytes, ls, le);
        res[e] = lut[c < 0 ? 0 : c === 0 ? 1 : 2]!;
      }
      const idx = column.idx;
      for (let k = 0; k < n; k++) out[k] = res[idx[k]!]!;
    } else {
      const { offsets: xo, bytes: xb, idx: xi } = x;
      const { offsets: yo, bytes: yb, idx: yi } = y;
      for (let k = 0; k < n; k++) {
        if (nulls !== null && nulls[k]) continue;
        const p = xi[k]!;
        const q = yi[k]!;
        const c = compareByteRanges(xb, xo[p]!, xo[p + 1]!, yb, yo[q]!, yo[q + 1]!);
        out[k] = lut[c < 0 ? 0 : c === 0 ? 1 : 2]!;
      }
    }
    if (nulls !== null) for (let k = 0; k < n; k++) if (nulls[k]) out[k] = 2;
    return out;
  }
}
