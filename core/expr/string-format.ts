/**
 * Casts to VARCHAR: values written as DuckDB's text, byte by byte into one buffer (offsets per
 * row), without a JS string per row except where noted. DuckDB's formats (checked against 1.5.6):
 * - integers: decimal digits; DECIMAL(p, s): the unscaled digits with a point before the last s,
 *   at least one digit before it (`-0.05`, `1.00`, `0.00`);
 * - BOOLEAN: `true` / `false`;
 * - DOUBLE / FLOAT: the shortest text that reads back as the same DOUBLE / FLOAT (fmt's `{}`, as
 *   Python's repr): positional when the decimal exponent is in [-4, 16), with `.0` on integers
 *   (`1.0`, `1000000000000000.0`, `0.0001`), else scientific with a signed exponent of at least
 *   two digits (`1e+16`, `1.2345678901234568e+17`, `1e-05`); `-0.0`, `nan`, `inf`, `-inf`. The
 *   digits come from `Number.prototype.toExponential` (ECMAScript's shortest round trip): one JS
 *   string per row, the one place this module allocates per row;
 * - DATE: `YYYY-MM-DD` (the year padded to 4 digits, more when larger), years <= 0 as BC
 *   (`0045-03-15 (BC)` for astronomical year -44), `infinity` / `-infinity` for ±(2^31 - 1);
 * - TIMESTAMP_S/MS/(US)/NS: the date, a space, `HH:MM:SS`, and the fraction of a second with its
 *   trailing zeros removed (`.5`, `.000001`, `.123456789`), `infinity` / `-infinity` for
 *   ±(2^63 - 1). Rows of a 64-bit value at or beyond 2^53 (nanosecond timestamps more than 104
 *   days from 1970, wide integers and decimals) are split through a BigInt.
 */
import { copyByteRange } from './byte-sources.ts';
import { civilFromDays } from './calendar.ts';
import { exactValue, type ExactVec, TWO53 } from './exact.ts';
import { type Ctx, DENSE_ROWS, i32, Node, SCRATCH_HOLDER, u8, type StrVec, type TemporalUnit, type VClass } from './node-base.ts';
import { decimalText } from './numeric-nodes.ts';
import type { NumType } from './numeric-types.ts';

/** A double's shortest digits and decimal exponent (`d.ddd × 10^e`), from toExponential's text. */
function splitExponential(text: string): { digits: string; exp: number } {
  const e = text.indexOf('e');
  const mantissa = text.slice(0, e);
  const digits = mantissa.length > 1 ? mantissa[0]! + mantissa.slice(2) : mantissa;
  return { digits, exp: Number(text.slice(e + 1)) };
}

/** The shortest toExponential text of a float32 value that reads back as that float. */
function shortestFloat(v: number): string {
  for (let p = 1; p < 9; p++) {
    const s = v.toExponential(p - 1);
    if (Math.fround(Number(s)) === v) return s;
  }
  return v.toExponential(8);
}

/** A DOUBLE (or, `single`, a FLOAT) as DuckDB's VARCHAR cast prints it (see the module comment). */
export function formatDouble(d: number, single: boolean): string {
  if (d !== d) return 'nan';
  if (d === Infinity) return 'inf';
  if (d === -Infinity) return '-inf';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const neg = d < 0;
  const a = Math.abs(d);
  const { digits, exp } = splitExponential(single ? shortestFloat(a) : a.toExponential());
  let body: string;
  if (exp < -4 || exp >= 16) {
    const e = Math.abs(exp);
    body = `${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  } else if (exp >= 0) {
    const int = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
    const frac = digits.slice(exp + 1);
    body = `${int}.${frac === '' ? '0' : frac}`;
  } else {
    body = `0.${'0'.repeat(-exp - 1)}${digits}`;
  }
  return neg ? `-${body}` : body;
}

const UNIT_DIGITS: Record<TemporalUnit, number> = { day: 0, 'date-ms': 3, s: 0, ms: 3, us: 6, ns: 9 };
const INFINITY = 'infinity';
const NEG_INFINITY = '-infinity';
const INT32_INFINITY = 2147483647;
const INT64_INFINITY = 2n ** 63n - 1n;

/** Growable output bytes (reused across calls; evaluation is synchronous). */
export class ByteWriter {
  /** `buf` is scratch: counted as it grows, dropped under memory pressure (node-base.ts). */
  readonly [SCRATCH_HOLDER] = true;
  buf: Uint8Array = new Uint8Array(256);
  pos = 0;
  private readonly scratch = new Uint8Array(24);

  ensure(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    const next = u8(this.buf, Math.max(2 * this.buf.length, this.pos + extra));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  ascii(s: string): void {
    this.ensure(s.length);
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < s.length; i++) b[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** A non-negative integer below 2^53, at least `width` digits (zero-padded). */
  digits(v: number, width = 1): void {
    const s = this.scratch;
    let c = 0;
    do {
      const d = v % 10;
      s[c++] = 48 + d;
      v = (v - d) / 10;
    } while (v > 0);
    while (c < width) s[c++] = 48;
    this.ensure(c);
    const b = this.buf;
    let p = this.pos;
    while (c > 0) b[p++] = s[--c]!;
    this.pos = p;
  }

  byte(c: number): void {
    this.ensure(1);
    this.buf[this.pos++] = c;
  }

  /** Bytes [start, end) of `src`. */
  range(src: Uint8Array, start: number, end: number): void {
    this.ensure(end - start);
    copyByteRange(src, start, end, this.buf, this.pos);
    this.pos += end - start;
  }
}

/** How a ToStringNode reads and writes its argument. */
type Source =
  | { readonly k: 'int' }
  | { readonly k: 'dec'; readonly s: number }
  | { readonly k: 'float'; readonly single: boolean }
  | { readonly k: 'bool' }
  | { readonly k: 'time'; readonly unit: TemporalUnit };

export function stringSource(cls: VClass): Source | null {
  switch (cls.c) {
    case 'num': {
      const t: NumType = cls.t;
      if (t.k === 'int') return { k: 'int' };
      if (t.k === 'dec') return { k: 'dec', s: t.s };
      return { k: 'float', single: t.k === 'f32' };
    }
    case 'bool':
      return { k: 'bool' };
    case 'time':
      return { k: 'time', unit: cls.unit };
    default:
      return null;
  }
}

/** A number, BOOLEAN, DATE or TIMESTAMP as VARCHAR text (see the module comment). */
export class ToStringNode extends Node {
  private readonly out = new ByteWriter();
  private offsets?: Int32Array;
  private idxBuf?: Int32Array;
  private nullBuf?: Uint8Array;

  constructor(
    private readonly a: Node,
    private readonly source: Source,
    cls: VClass,
    label: string,
  ) {
    super(cls, label);
  }

  override get mayRaise(): boolean {
    return this.a.mayRaise;
  }

  override str(ctx: Ctx): StrVec {
    const n = ctx.n;
    const w = this.out;
    w.pos = 0;
    const offsets = (this.offsets = i32(this.offsets, n + 1));
    const src = this.source;
    let nulls: Uint8Array | null;
    switch (src.k) {
      case 'bool': {
        const v = this.a.bool(ctx);
        let any = 0;
        const nb = (this.nullBuf = u8(this.nullBuf, n));
        for (let k = 0; k < n; k++) {
          offsets[k] = w.pos;
          const b = v[k]!;
          nb[k] = b === 2 ? 1 : 0;
          any |= nb[k]!;
          if (b === 1) w.ascii('true');
          else if (b === 0) w.ascii('false');
        }
        nulls = any ? nb : null;
        break;
      }
      case 'float': {
        const x = this.a.num(ctx);
        nulls = x.nulls;
        for (let k = 0; k < n; k++) {
          offsets[k] = w.pos;
          if (nulls === null || !nulls[k]) w.ascii(formatDouble(x.values[k]!, src.single));
        }
        break;
      }
      default: {
        const x = this.a.exact(ctx);
        nulls = x.nulls;
        for (let k = 0; k < n; k++) {
          offsets[k] = w.pos;
          if (nulls !== null && nulls[k]) continue;
          if (src.k === 'int') this.integer(x, k);
          else if (src.k === 'dec') this.decimal(x, k, src.s);
          else this.temporal(x, k, src.unit);
        }
      }
    }
    offsets[n] = w.pos;
    const idx = (this.idxBuf = identity(this.idxBuf, n));
    return { offsets, bytes: w.buf, idx, nulls, entries: n };
  }

  private integer(x: ExactVec, k: number): void {
    const v = x.f[k]!;
    if (v > -TWO53 && v < TWO53) {
      if (v < 0) this.out.byte(45);
      this.out.digits(Math.abs(v));
    } else {
      this.out.ascii(exactValue(x, k).toString());
    }
  }

  private decimal(x: ExactVec, k: number, s: number): void {
    const v = x.f[k]!;
    if (!(v > -TWO53 && v < TWO53) || s > 15) {
      this.out.ascii(decimalText(exactValue(x, k), s));
      return;
    }
    const w = this.out;
    if (v < 0) w.byte(45);
    const m = Math.abs(v);
    const p = 10 ** s;
    const frac = m % p;
    w.digits((m - frac) / p);
    if (s > 0) {
      w.byte(46);
      w.digits(frac, s);
    }
  }

  private temporal(x: ExactVec, k: number, unit: TemporalUnit): void {
    const v = x.f[k]!;
    const w = this.out;
    if (unit === 'day') {
      if (v === INT32_INFINITY || v === -INT32_INFINITY) w.ascii(v > 0 ? INFINITY : NEG_INFINITY);
      else this.date(v);
      return;
    }
    const digits = UNIT_DIGITS[unit];
    const perDay = 86400 * 10 ** digits;
    let days: number;
    let rest: number; // units into the day, 0 <= rest < perDay
    if (v > -TWO53 && v < TWO53) {
      rest = v % perDay;
      days = (v - rest) / perDay;
      if (rest < 0) {
        rest += perDay;
        days -= 1;
      }
    } else {
      const big = exactValue(x, k);
      if (big === INT64_INFINITY || big === -INT64_INFINITY) {
        w.ascii(big > 0n ? INFINITY : NEG_INFINITY);
        return;
      }
      const pd = BigInt(perDay);
      let r = big % pd;
      let d = (big - r) / pd;
      if (r < 0n) {
        r += pd;
        d -= 1n;
      }
      days = Number(d);
      rest = Number(r);
    }
    this.date(days);
    if (unit === 'date-ms') return;
    const scale = 10 ** digits;
    const frac = rest % scale;
    const secs = (rest - frac) / scale;
    w.byte(32);
    w.digits(Math.floor(secs / 3600), 2);
    w.byte(58);
    w.digits(Math.floor(secs / 60) % 60, 2);
    w.byte(58);
    w.digits(secs % 60, 2);
    if (frac !== 0) {
      let f = frac;
      let width = digits;
      while (f % 10 === 0) {
        f /= 10;
        width--;
      }
      w.byte(46);
      w.digits(f, width);
    }
  }

  private date(days: number): void {
    const w = this.out;
    const [y, m, d] = civilFromDays(days);
    const bc = y <= 0;
    w.digits(bc ? 1 - y : y, 4);
    w.byte(45);
    w.digits(m, 2);
    w.byte(45);
    w.digits(d, 2);
    if (bc) w.ascii(' (BC)');
  }
}

/** 0, 1, …, n - 1 in a reused buffer (grown to at least n). */
export function identity(buf: Int32Array | undefined, n: number): Int32Array {
  if (buf !== undefined && buf.length >= n) return buf; // always filled whole
  const out = i32(buf, Math.max(n, buf === undefined ? 0 : 2 * buf.length));
  for (let k = 0; k < out.length; k++) out[k] = k;
  DENSE_ROWS.add(out);
  return out;
}
