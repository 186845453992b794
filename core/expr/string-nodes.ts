/**
 * String-valued functions over UTF-8 bytes: `substring` / `substr` and `||` / `concat`. The result
 * bytes are written into one reused buffer with an offset per pair (no JS string per row).
 *
 * substring(s, start[, length]) is DuckDB's `SubstringUnicode` (src/function/scalar/string/
 * substring.cpp, 1.5), ported as it is, counting characters (code points): start 1 is the first
 * character, a negative start counts from the end (-1 is the last), start 0 begins one character
 * before the first; a negative length takes the characters before the start; a window reaching
 * outside the string keeps what lies inside it; no length means 2^32 - 1. A NULL argument gives
 * NULL; a start or length outside [-2^32, 2^32 - 1] raises DuckDB's Out of Range Error for a row
 * whose value matters.
 *   DuckDB takes another code path (`SubstringASCII`) when its statistics prove a column holds no
 *   non-ASCII string, and that path clamps the start before applying the length: for a window that
 *   reaches before the first character (`substring('hello', -6, 3)`) or starts past the end with a
 *   negative length (`substring('abc', 10, -3)`), DuckDB's answer depends on those statistics
 *   ('he' or 'hel'). joinlab always answers as `SubstringUnicode` does; the two agree on every other
 *   window (docs/sql-expressions.md).
 * With a constant start and length and no more distinct entries than pairs (a dictionary column),
 * each entry is cut once and the pairs keep their entry index.
 *
 * `a || b` is NULL when either is; `concat(a, …)` skips NULL arguments (all NULL: ''). Arguments
 * that are not VARCHAR were cast to VARCHAR by the compiler (casts.ts, DuckDB's text forms).
 */
import { ExpressionError } from '../errors.ts';
import { type Ctx, f64, f64Filled, i32, matters, Node, type StrVec, u8, type VClass } from './node-base.ts';
import { ByteWriter, identity } from './string-format.ts';

const LIMIT_HI = 4294967295;
const LIMIT_LO = -4294967296;
/** DuckDB's length when none is given (`NumericLimits<uint32_t>::Maximum()`). */
export const NO_LENGTH = LIMIT_HI;

function isChar(b: number): boolean {
  return (b & 0xc0) !== 0x80;
}

/** Byte range [RANGE[0], RANGE[1]) of the substring of bytes[s0, s1) (module scratch). */
const RANGE = new Int32Array(2);

/** `SubstringUnicode`'s window, as absolute byte positions in RANGE (empty: RANGE[0] === RANGE[1]). */
export function substringRange(b: Uint8Array, s0: number, s1: number, offset: number, length: number): void {
  const size = s1 - s0;
  RANGE[0] = s0;
  RANGE[1] = s0;
  if (length === 0) return;
  let startPos: number;
  let endPos: number;
  if (offset < 0) {
    startPos = 0;
    endPos = -1; // not found
    const o = offset - 1;
    const start = length < 0 ? -o - length : -o;
    const end = length < 0 ? -o : -o - length;
    if (end <= 0) endPos = size;
    let cur = 0;
    for (let i = size; i > 0; i--) {
      if (isChar(b[s0 + i - 1]!)) {
        cur++;
        if (cur === start) {
          startPos = i;
          break;
        } else if (cur === end) endPos = i;
      }
    }
    while (startPos < size && !isChar(b[s0 + startPos]!)) startPos++;
    if (endPos < 0) return;
    while (endPos < size && !isChar(b[s0 + endPos]!)) endPos++;
  } else {
    startPos = -1;
    endPos = size;
    const o = offset - 1;
    const start = length < 0 ? Math.max(0, o + length) : Math.max(0, o);
    const end = length < 0 ? o : o + length;
    let cur = 0;
    for (let i = 0; i < size; i++) {
      if (isChar(b[s0 + i]!)) {
        if (cur === start) startPos = i;
        else if (cur === end) {
          endPos = i;
          break;
        }
        cur++;
      }
    }
    if (startPos < 0 || end === 0 || end <= start) return;
  }
  RANGE[0] = s0 + startPos;
  RANGE[1] = s0 + endPos;
}

function checkRange(v: number, what: string, label: string): void {
  if (v > LIMIT_HI) throw new ExpressionError(`Out of Range Error: Substring ${what} outside of supported range (> ${LIMIT_HI}) in ${label}`);
  if (v < LIMIT_LO) throw new ExpressionError(`Out of Range Error: Substring ${what} outside of supported range (< ${LIMIT_LO}) in ${label}`);
}

/** An integer argument's values (a column, or a constant given as `constant`). */
export interface IntArg {
  readonly node: Node;
  /** Its value when it is a literal (null: not constant). */
  readonly constant: number | null;
}

export class SubstringNode extends Node {
  private readonly out = new ByteWriter();
  private offsets?: Int32Array;
  private nullBuf?: Uint8Array;
  private idxBuf?: Int32Array;
  private oneBuf?: Float64Array;

  constructor(
    private readonly arg: Node,
    private readonly start: IntArg,
    /** null: no length (to the end). */
    private readonly length: IntArg | null,
    cls: VClass,
    label: string,
  ) {
    super(cls, label);
  }

  override get mayRaise(): boolean {
    const outside = (a: IntArg | null) => a !== null && (a.constant === null || a.constant > LIMIT_HI || a.constant < LIMIT_LO);
    return this.arg.mayRaise || this.start.node.mayRaise || (this.length?.node.mayRaise ?? false) || outside(this.start) || outside(this.length);
  }

  override str(ctx: Ctx): StrVec {
    const n = ctx.n;
    const x = this.arg.str(ctx);
    const s = this.start.node.exact(ctx);
    const l = this.length === null ? null : this.length.node.exact(ctx);
    const lengths = l === null ? (this.oneBuf = this.constantLengths(n)) : l.f;
    // NULL when any argument is
    let nulls = x.nulls;
    for (const extra of [s.nulls, l?.nulls ?? null]) {
      if (extra === null) continue;
      const buf = (this.nullBuf = u8(this.nullBuf, n));
      for (let k = 0; k < n; k++) buf[k] = (nulls !== null ? nulls[k]! : 0) | extra[k]!;
      nulls = buf;
    }
    const w = this.out;
    w.pos = 0;
    const constant = this.start.constant !== null && (this.length === null || this.length.constant !== null);
    if (constant && x.entries <= n) {
      // each entry once; pairs keep their entry index
      const offset = this.start.constant!;
      const length = this.length === null ? NO_LENGTH : this.length.constant!;
      const entries = x.entries;
      const offsets = (this.offsets = i32(this.offsets, entries + 1));
      this.checkRow(offset, length, nulls, ctx, n);
      for (let e = 0; e < entries; e++) {
        offsets[e] = w.pos;
        substringRange(x.bytes, x.offsets[e]!, x.offsets[e + 1]!, offset, length);
        w.range(x.bytes, RANGE[0]!, RANGE[1]!);
      }
      offsets[entries] = w.pos;
      return { offsets, bytes: w.buf, idx: x.idx, nulls, entries };
    }
    const offsets = (this.offsets = i32(this.offsets, n + 1));
    const sf = s.f;
    for (let k = 0; k < n; k++) {
      offsets[k] = w.pos;
      if (nulls !== null && nulls[k]) continue;
      const offset = sf[k]!;
      const length = lengths[k]!;
      if (matters(nulls, ctx.live, k)) {
        checkRange(offset, 'offset', this.label);
        checkRange(length, 'length', this.label);
      } else if (offset > LIMIT_HI || offset < LIMIT_LO || length > LIMIT_HI || length < LIMIT_LO) continue;
      const e = x.idx[k]!;
      substringRange(x.bytes, x.offsets[e]!, x.offsets[e + 1]!, offset, length);
      w.range(x.bytes, RANGE[0]!, RANGE[1]!);
    }
    offsets[n] = w.pos;
    return { offsets, bytes: w.buf, idx: (this.idxBuf = identity(this.idxBuf, n)), nulls, entries: n };
  }

  /** Raises for a constant start / length out of range, if some row's value matters. */
  private checkRow(offset: number, length: number, nulls: Uint8Array | null, ctx: Ctx, n: number): void {
    if (offset <= LIMIT_HI && offset >= LIMIT_LO && length <= LIMIT_HI && length >= LIMIT_LO) return;
    for (let k = 0; k < n; k++) {
      if (matters(nulls, ctx.live, k)) {
        checkRange(offset, 'offset', this.label);
        checkRange(length, 'length', this.label);
      }
    }
  }

  private constantLengths(n: number): Float64Array {
    if (this.oneBuf !== undefined && this.oneBuf.length >= n) return this.oneBuf;
    return f64Filled(this.oneBuf, n, NO_LENGTH);
  }
}

/** `a || b || …` (NULL when any argument is) or `concat(a, …)` (NULL arguments skipped). */
export class ConcatNode extends Node {
  private readonly out = new ByteWriter();
  private offsets?: Int32Array;
  private nullBuf?: Uint8Array;
  private idxBuf?: Int32Array;

  constructor(
    private readonly args: readonly Node[],
    private readonly nullIfAnyNull: boolean,
    cls: VClass,
    label: string,
  ) {
    super(cls, label);
  }

  override get mayRaise(): boolean {
    return this.args.some((a) => a.mayRaise);
  }

  override str(ctx: Ctx): StrVec {
    const n = ctx.n;
    const vecs = this.args.map((a) => a.str(ctx));
    let nulls: Uint8Array | null = null;
    if (this.nullIfAnyNull) {
      for (const v of vecs) {
        if (v.nulls === null) continue;
        if (nulls === null) {
          nulls = this.nullBuf = u8(this.nullBuf, n);
          nulls.fill(0, 0, n);
        }
        for (let k = 0; k < n; k++) nulls[k] |= v.nulls[k]!;
      }
    }
    const w = this.out;
    w.pos = 0;
    const offsets = (this.offsets = i32(this.offsets, n + 1));
    for (let k = 0; k < n; k++) {
      offsets[k] = w.pos;
      if (nulls !== null && nulls[k]) continue;
      for (let a = 0; a < vecs.length; a++) {
        const v = vecs[a]!;
        if (v.nulls !== null && v.nulls[k]) continue;
        const e = v.idx[k]!;
        w.range(v.bytes, v.offsets[e]!, v.offsets[e + 1]!);
      }
    }
    offsets[n] = w.pos;
    return { offsets, bytes: w.buf, idx: (this.idxBuf = identity(this.idxBuf, n)), nulls, entries: n };
  }
}
