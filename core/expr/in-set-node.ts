/**
 * `x = c1 OR x = c2 OR …` over one integer (or string: `StrInSetNode`) column and constants of its kind, as one set lookup per
 * row (`x IN (c1, c2, …)`): the n-ary OR would evaluate n comparisons, each gathering the column
 * again — 9,000 terms over 20,000 rows was 20 s and 1 GB; the set is one pass.
 *
 * Three-valued logic as the OR's: a NULL x is NULL; a match is TRUE; no match is NULL when a
 * constant is NULL (`x = NULL` is NULL), else FALSE. The constants are safe integers (|c| < 2^53)
 * or bigints: an integer column compares with them exactly either way (a value at or past 2^53
 * can equal only a bigint constant, which `wide` holds), so the set is exact for every width.
 */
import { exactValue, isWide, TWO53 } from './exact.ts';
import { BOOLEAN, type Ctx, Node, u8 } from './node-base.ts';

export class InSetNode extends Node {
  private buf?: Uint8Array;
  /** The constants below 2^53 in magnitude, as doubles (what an exact vector's `f` holds). */
  private readonly small = new Set<number>();
  /** Every constant, as a bigint (for the rare row at or past 2^53). */
  private readonly wide = new Set<bigint>();
  /** The value of a row that matches no constant: 2 (NULL) when a constant is NULL, else 0. */
  private readonly miss: number;

  constructor(
    private readonly arg: Node,
    values: readonly (number | bigint | null)[],
    label: string,
  ) {
    super(BOOLEAN, label);
    let hasNull = false;
    for (const v of values) {
      if (v === null) {
        hasNull = true;
        continue;
      }
      const big = BigInt(v);
      this.wide.add(big);
      if (big > -BigInt(TWO53) && big < BigInt(TWO53)) this.small.add(Number(big));
    }
    this.miss = hasNull ? 2 : 0;
  }

  /** How many distinct constants (for tests and plans). */
  get size(): number {
    return this.wide.size;
  }

  override get mayRaise(): boolean {
    return this.arg.mayRaise;
  }

  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const v = this.arg.exact(ctx);
    const out = (this.buf = u8(this.buf, n));
    const nulls = v.nulls;
    const f = v.f;
    const small = this.small;
    const miss = this.miss;
    if (!isWide(v)) {
      for (let k = 0; k < n; k++) out[k] = nulls !== null && nulls[k] === 1 ? 2 : small.has(f[k]!) ? 1 : miss;
      return out;
    }
    for (let k = 0; k < n; k++) {
      if (nulls !== null && nulls[k] === 1) out[k] = 2;
      else {
        const x = f[k]!;
        out[k] = x > -TWO53 && x < TWO53 ? (small.has(x) ? 1 : miss) : this.wide.has(exactValue(v, k)) ? 1 : miss;
      }
    }
    return out;
  }
}

/** FNV-1a over bytes[from, to). */
function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/**
 * The same for a string column against string constants: a row's UTF-8 bytes are hashed and
 * compared byte for byte with the constants of that hash (DuckDB's VARCHAR equality is byte
 * equality). No per-row string is made; a dictionary column is looked up once per entry.
 */
export class StrInSetNode extends Node {
  private buf?: Uint8Array;
  private entryBuf?: Uint8Array;
  /** Hash -> the constants (UTF-8) with that hash. */
  private readonly byHash = new Map<number, Uint8Array[]>();
  private readonly miss: number;
  readonly size: number;

  constructor(
    private readonly arg: Node,
    values: readonly (string | null)[],
    label: string,
  ) {
    super(BOOLEAN, label);
    const encoder = new TextEncoder();
    let hasNull = false;
    const seen = new Set<string>();
    for (const v of values) {
      if (v === null) {
        hasNull = true;
        continue;
      }
      if (seen.has(v)) continue;
      seen.add(v);
      const b = encoder.encode(v);
      const h = hashBytes(b, 0, b.length);
      const list = this.byHash.get(h);
      if (list === undefined) this.byHash.set(h, [b]);
      else list.push(b);
    }
    this.size = seen.size;
    this.miss = hasNull ? 2 : 0;
  }

  override get mayRaise(): boolean {
    return this.arg.mayRaise;
  }

  /** 1 when entry e of `bytes` / `offsets` is a constant, else `miss`. */
  private lookup(bytes: Uint8Array, from: number, to: number): number {
    const list = this.byHash.get(hashBytes(bytes, from, to));
    if (list !== undefined) {
      const len = to - from;
      for (const c of list) {
        if (c.length !== len) continue;
        let i = 0;
        while (i < len && c[i] === bytes[from + i]) i++;
        if (i === len) return 1;
      }
    }
    return this.miss;
  }

  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const v = this.arg.str(ctx);
    const out = (this.buf = u8(this.buf, n));
    const { offsets, bytes, idx, nulls } = v;
    if (v.entries < n) {
      // fewer entries than rows (a dictionary): each entry once
      const per = (this.entryBuf = u8(this.entryBuf, v.entries));
      for (let e = 0; e < v.entries; e++) per[e] = this.lookup(bytes, offsets[e]!, offsets[e + 1]!);
      for (let k = 0; k < n; k++) out[k] = nulls !== null && nulls[k] === 1 ? 2 : per[idx[k]!]!;
      return out;
    }
    for (let k = 0; k < n; k++) {
      if (nulls !== null && nulls[k] === 1) out[k] = 2;
      else {
        const e = idx[k]!;
        out[k] = this.lookup(bytes, offsets[e]!, offsets[e + 1]!);
      }
    }
    return out;
  }
}
