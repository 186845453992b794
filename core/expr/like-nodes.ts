/**
 * `[NOT] LIKE` / `[NOT] ILIKE` (with or without ESCAPE) and `prefix` / `starts_with` / `suffix` /
 * `ends_with` / `contains` with a constant pattern: a BOOLEAN per pair, from the string's bytes in
 * place (like-match.ts compiles the pattern once). NULL in, NULL out.
 *
 * With no more distinct entries than pairs (a dictionary column, or a plain column read at every
 * row), each entry is matched once and the pairs map through their entry index — a dictionary of
 * 25 nations is matched 25 times however many rows point at it. ILIKE lowers each string into a
 * scratch buffer first (case-fold.ts, DuckDB's lowercase), the pattern having been lowered at
 * compile time. A pattern ending in an unpaired escape raises DuckDB's error for a row that reaches
 * it (like-match.ts), only where the value matters (not NULL, and live: see `Ctx.live`).
 */
import { ExpressionError } from '../errors.ts';
import { lowerCapacity, lowerUtf8 } from './case-fold.ts';
import type { LikeMatcher } from './like-match.ts';
import { BOOLEAN, type Ctx, matters, Node, type StrVec, u8 } from './node-base.ts';

export class LikeNode extends Node {
  private buf?: Uint8Array;
  private entryBuf?: Uint8Array;
  private lowerBuf: Uint8Array = new Uint8Array(64);

  constructor(
    private readonly arg: Node,
    private readonly matcher: LikeMatcher,
    private readonly negated: boolean,
    /** ILIKE: compare lowercased strings. */
    private readonly lower: boolean,
    /** For a pattern ending in an unpaired escape: a row it matches raises (like-match.ts). */
    private readonly errorProbe: LikeMatcher | null,
    label: string,
  ) {
    super(BOOLEAN, label);
  }

  override get mayRaise(): boolean {
    return this.arg.mayRaise || this.errorProbe !== null;
  }

  private test(m: LikeMatcher, x: StrVec, e: number): boolean {
    const start = x.offsets[e]!;
    const end = x.offsets[e + 1]!;
    if (!this.lower) return m.match(x.bytes, start, end);
    const need = lowerCapacity(end - start);
    if (this.lowerBuf.length < need) this.lowerBuf = u8(this.lowerBuf, Math.max(need, 2 * this.lowerBuf.length));
    const len = lowerUtf8(x.bytes, start, end, this.lowerBuf);
    return m.match(this.lowerBuf, 0, len);
  }

  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const x = this.arg.str(ctx);
    const nulls = x.nulls;
    const idx = x.idx;
    const out = (this.buf = u8(this.buf, n));
    const flip = this.negated ? 1 : 0;
    const probe = this.errorProbe;
    if (probe !== null) {
      for (let k = 0; k < n; k++) {
        if (matters(nulls, ctx.live, k) && this.test(probe, x, idx[k]!)) {
          throw new ExpressionError(`Syntax Error: Like pattern must not end with escape character! in ${this.label}`);
        }
      }
      // no row reaches the dangling escape: every row that does not raise is false
      for (let k = 0; k < n; k++) out[k] = nulls !== null && nulls[k] ? 2 : flip;
      return out;
    }
    const m = this.matcher;
    if (x.entries <= n) {
      const entries = x.entries;
      const res = (this.entryBuf = u8(this.entryBuf, entries));
      for (let e = 0; e < entries; e++) res[e] = (this.test(m, x, e) ? 1 : 0) ^ flip;
      for (let k = 0; k < n; k++) out[k] = nulls !== null && nulls[k] ? 2 : res[idx[k]!]!;
    } else {
      for (let k = 0; k < n; k++) out[k] = nulls !== null && nulls[k] ? 2 : (this.test(m, x, idx[k]!) ? 1 : 0) ^ flip;
    }
    return out;
  }
}
