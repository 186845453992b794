/**
 * CASE and COALESCE: each row takes its value from one branch, and a branch is evaluated only
 * for the rows it decides — as DuckDB's `ExpressionExecutor` runs a WHEN over the rows no earlier
 * WHEN took, a THEN (with its cast) over the rows its WHEN picked, and a COALESCE argument over
 * the rows still NULL, each through a selection vector. So an overflow or a failed cast in a
 * branch no row takes never raises (`CASE WHEN x = 1 THEN 0 ELSE x + 2147483647 END` is 0 for
 * x = 1), and a branch costs only its rows.
 *
 * joinlab's form of a selection: a branch is evaluated over a compacted pair batch — the pair
 * context with `leftRows` / `rightRows` gathered at the chosen rows and `n` their count (every
 * node reads rows only through those index arrays) — and its vector is scattered back into the
 * result at those rows right away. Only rows that matter enter (the parent's live rows), so a
 * compacted batch has no live mask: all its rows matter. Rows that do not matter come out NULL.
 *   CASE: WHEN i runs on the rows no earlier WHEN was TRUE for (NULL and FALSE both pass on);
 *   its TRUE rows take THEN i; the rest take ELSE (NULL when there is none).
 *   COALESCE: argument i runs on the rows every earlier argument was NULL for; its non-NULL rows
 *   take its value; rows NULL everywhere are NULL. Both stop once no row is left undecided.
 * Branches are converted to the common type first (casts.ts), so all share the result's class.
 * Strings are appended to new bytes as entries in the order they are decided; each row points at
 * its entry (entry 0 is the empty string NULL rows point at).
 */
import { copyByteRange } from './byte-sources.ts';
import { type ExactVec, loadRow, TWO53 } from './exact.ts';
import { NullNode } from './leaf-nodes.ts';
import { type Ctx, f64, i32, Node, type NumVec, scratchGrewBy, type StrVec, u32, u8, type VClass } from './node-base.ts';

export type Form = 'exact' | 'num' | 'bool' | 'str';
type Vec = ExactVec | NumVec | Uint8Array | StrVec;

/** How values of class `cls` are read from a node (null: the NULL type, no values). */
export function formOf(cls: VClass): Form | null {
  switch (cls.c) {
    case 'num':
      return cls.t.k === 'int' || cls.t.k === 'dec' ? 'exact' : 'num';
    case 'time':
      return 'exact';
    case 'bool':
      return 'bool';
    case 'str':
    case 'bin':
      return 'str';
    default:
      return null;
  }
}

function evaluate(node: Node, form: Form, ctx: Ctx): Vec {
  switch (form) {
    case 'exact':
      return node.exact(ctx);
    case 'num':
      return node.num(ctx);
    case 'bool':
      return node.bool(ctx);
    case 'str':
      return node.str(ctx);
  }
}

const ROW = new Uint32Array(4);

/** The selection and scatter machinery shared by CASE and COALESCE. */
abstract class PickNode extends Node {
  protected readonly form: Form;
  // the result
  private fBuf?: Float64Array;
  private wBuf?: Uint32Array;
  private w: Uint32Array | null = null;
  private nullBuf?: Uint8Array;
  private boolBuf?: Uint8Array;
  private idxBuf?: Int32Array;
  private offsets = new Int32Array(16);
  private bytes = new Uint8Array(256);
  private entries = 0;
  // selections: rows still open (two buffers, swapped), rows taken, and the compacted index arrays
  private openA?: Int32Array;
  private openB?: Int32Array;
  private takenBuf?: Int32Array;
  private fromBuf?: Int32Array;
  private subLeft?: Int32Array;
  private subRight?: Int32Array;

  constructor(
    protected readonly branches: readonly Node[],
    cls: VClass,
    label: string,
  ) {
    super(cls, label);
    this.form = formOf(cls)!;
  }

  override get mayRaise(): boolean {
    return this.branches.some((b) => b.mayRaise);
  }

  /** Start a result of n rows, all NULL; returns the open rows that matter (and their count). */
  protected begin(ctx: Ctx): { open: Int32Array; count: number; other: Int32Array } {
    const n = ctx.n;
    switch (this.form) {
      case 'exact':
      case 'num':
        this.fBuf = f64(this.fBuf, n);
        this.fBuf.fill(0, 0, n);
        this.w = null;
        this.nullBuf = u8(this.nullBuf, n);
        this.nullBuf.fill(1, 0, n);
        break;
      case 'bool':
        this.boolBuf = u8(this.boolBuf, n);
        this.boolBuf.fill(2, 0, n);
        break;
      case 'str':
        this.nullBuf = u8(this.nullBuf, n);
        this.nullBuf.fill(1, 0, n);
        this.idxBuf = i32(this.idxBuf, n);
        this.idxBuf.fill(0, 0, n);
        this.offsets[0] = 0;
        this.offsets[1] = 0;
        this.entries = 1; // entry 0: the empty string NULL rows point at
        break;
    }
    const open = (this.openA = i32(this.openA, n));
    const other = (this.openB = i32(this.openB, n));
    let count = 0;
    const live = ctx.live;
    for (let k = 0; k < n; k++) if (live === null || live[k] === 1) open[count++] = k;
    return { open, count, other };
  }

  /** The pair batch of `rows` (count c) — or `ctx` itself when they are all of its rows. */
  protected select(ctx: Ctx, rows: Int32Array, c: number): Ctx {
    if (c === ctx.n) return ctx; // rows are 0..n-1 (a selection is ascending)
    const left = (this.subLeft = i32(this.subLeft, c));
    const right = (this.subRight = i32(this.subRight, c));
    const lr = ctx.leftRows;
    const rr = ctx.rightRows;
    for (let j = 0; j < c; j++) {
      const k = rows[j]!;
      left[j] = lr[k]!;
      right[j] = rr[k]!;
    }
    return { left: ctx.left, right: ctx.right, leftRows: left, rightRows: right, n: c, live: null };
  }

  protected taken(n: number): Int32Array {
    return (this.takenBuf = i32(this.takenBuf, n));
  }

  protected from(n: number): Int32Array {
    return (this.fromBuf = i32(this.fromBuf, n));
  }

  /**
   * Copy value `src[j]` (j itself when `src` is null) of `v` — a vector over a selected batch —
   * into result row `dst[j]`, for j < c.
   */
  protected scatter(v: Vec, src: Int32Array | null, dst: Int32Array, c: number, n: number): void {
    switch (this.form) {
      case 'exact': {
        const x = v as ExactVec;
        const f = this.fBuf!;
        const nulls = this.nullBuf!;
        const xf = x.f;
        const xn = x.nulls;
        for (let j = 0; j < c; j++) {
          const s = src === null ? j : src[j]!;
          const k = dst[j]!;
          const value = xf[s]!;
          if (xn !== null && xn[s]) continue; // stays NULL
          nulls[k] = 0;
          f[k] = value;
          if (value > -TWO53 && value < TWO53) continue;
          if (this.w === null) this.w = this.wBuf = u32(this.wBuf, 4 * n);
          loadRow(x, s, ROW);
          this.w.set(ROW, 4 * k);
        }
        return;
      }
      case 'num': {
        const x = v as NumVec;
        const f = this.fBuf!;
        const nulls = this.nullBuf!;
        const xv = x.values;
        const xn = x.nulls;
        for (let j = 0; j < c; j++) {
          const s = src === null ? j : src[j]!;
          if (xn !== null && xn[s]) continue;
          const k = dst[j]!;
          nulls[k] = 0;
          f[k] = xv[s]!;
        }
        return;
      }
      case 'bool': {
        const x = v as Uint8Array;
        const out = this.boolBuf!;
        for (let j = 0; j < c; j++) out[dst[j]!] = x[src === null ? j : src[j]!]!;
        return;
      }
      case 'str': {
        const x = v as StrVec;
        const { offsets: xo, bytes: xb, idx: xi, nulls: xn } = x;
        const nulls = this.nullBuf!;
        const idx = this.idxBuf!;
        let e = this.entries;
        if (this.offsets.length < e + c + 1) {
          const size = Math.max(2 * this.offsets.length, e + c + 1);
          scratchGrewBy(4 * size - this.offsets.byteLength);
          const grown = new Int32Array(size);
          grown.set(this.offsets.subarray(0, e + 1));
          this.offsets = grown;
        }
        const offsets = this.offsets;
        let pos = offsets[e]!;
        for (let j = 0; j < c; j++) {
          const s = src === null ? j : src[j]!;
          if (xn !== null && xn[s]) continue;
          const entry = xi[s]!;
          const start = xo[entry]!;
          const end = xo[entry + 1]!;
          if (this.bytes.length < pos + end - start) {
            const size = Math.max(2 * this.bytes.length, pos + end - start);
            scratchGrewBy(size - this.bytes.byteLength);
            const grown = new Uint8Array(size);
            grown.set(this.bytes.subarray(0, pos));
            this.bytes = grown;
          }
          copyByteRange(xb, start, end, this.bytes, pos);
          pos += end - start;
          const k = dst[j]!;
          nulls[k] = 0;
          idx[k] = e;
          offsets[++e] = pos;
        }
        this.entries = e;
        return;
      }
    }
  }

  /** The result of the rows scattered so far (the others NULL). */
  protected result(n: number): Vec {
    switch (this.form) {
      case 'exact':
        return { f: this.fBuf!, w: this.w, src: null, nulls: this.nullBuf! };
      case 'num':
        return { values: this.fBuf!, nulls: this.nullBuf! };
      case 'bool':
        return this.boolBuf!;
      case 'str':
        return { offsets: this.offsets, bytes: this.bytes, idx: this.idxBuf!, nulls: this.nullBuf!, entries: this.entries };
    }
    throw new Error(`bug: no result form for ${n} rows`);
  }

  protected abstract value(ctx: Ctx): Vec;

  override exact(ctx: Ctx): ExactVec {
    return this.value(ctx) as ExactVec;
  }
  override num(ctx: Ctx): NumVec {
    return this.value(ctx) as NumVec;
  }
  override bool(ctx: Ctx): Uint8Array {
    return this.value(ctx) as Uint8Array;
  }
  override str(ctx: Ctx): StrVec {
    return this.value(ctx) as StrVec;
  }
}

/** Searched CASE: `branches` = the THENs in order, then the ELSE (a NullNode when absent). */
export class CaseNode extends PickNode {
  constructor(
    private readonly whens: readonly Node[],
    branches: readonly Node[],
    cls: VClass,
    label: string,
  ) {
    super(branches, cls, label);
  }

  override get mayRaise(): boolean {
    return super.mayRaise || this.whens.some((w) => w.mayRaise);
  }

  protected value(ctx: Ctx): Vec {
    const n = ctx.n;
    let { open, count, other: rest } = this.begin(ctx);
    const taken = this.taken(n);
    for (let i = 0; i < this.whens.length && count > 0; i++) {
      const v = this.whens[i]!.bool(this.select(ctx, open, count));
      let t = 0;
      let r = 0;
      for (let j = 0; j < count; j++) {
        // branch-free partition (a WHEN's outcome is data-dependent)
        const k = open[j]!;
        const yes = v[j] === 1 ? 1 : 0;
        taken[t] = k;
        rest[r] = k;
        t += yes;
        r += 1 - yes;
      }
      this.branch(ctx, i, taken, t, n);
      [open, rest] = [rest, open];
      count = r;
    }
    if (count > 0) this.branch(ctx, this.whens.length, open, count, n);
    return this.result(n);
  }

  /** Branch b for the rows `rows` (count c): evaluated over them, scattered to them. */
  private branch(ctx: Ctx, b: number, rows: Int32Array, c: number, n: number): void {
    const node = this.branches[b]!;
    if (c === 0 || node instanceof NullNode) return;
    this.scatter(evaluate(node, this.form, this.select(ctx, rows, c)), null, rows, c, n);
  }
}

/** COALESCE: the first non-NULL argument per row. */
export class CoalesceNode extends PickNode {
  protected value(ctx: Ctx): Vec {
    const n = ctx.n;
    let { open, count, other: rest } = this.begin(ctx);
    const taken = this.taken(n);
    const from = this.from(n);
    for (let i = 0; i < this.branches.length && count > 0; i++) {
      const arg = this.branches[i]!;
      if (arg instanceof NullNode) continue;
      const v = evaluate(arg, this.form, this.select(ctx, open, count));
      const nulls = this.form === 'bool' ? null : (v as ExactVec | NumVec | StrVec).nulls;
      const bools = this.form === 'bool' ? (v as Uint8Array) : null;
      let t = 0;
      let r = 0;
      for (let j = 0; j < count; j++) {
        const k = open[j]!;
        const isNull = bools !== null ? (bools[j] === 2 ? 1 : 0) : nulls !== null ? nulls[j]! : 0;
        from[t] = j;
        taken[t] = k;
        rest[r] = k;
        t += 1 - isNull;
        r += isNull;
      }
      this.scatter(v, from, taken, t, n);
      [open, rest] = [rest, open];
      count = r;
    }
    return this.result(n);
  }
}
