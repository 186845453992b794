/**
 * SQL three-valued logic over boolean bytes (0 false, 1 true, 2 NULL): n-ary AND / OR, NOT and
 * IS [NOT] NULL. AND/OR go left to right and stop once every pair is decided; an argument that
 * may raise sees a live mask of the pairs still undecided, so it raises only for a pair whose
 * value matters (SQL short-circuit). 0-ary AND is TRUE, 0-ary OR is FALSE.
 */
import { BOOLEAN, type Ctx, Node, u8 } from './node-base.ts';

// Three-valued logic tables indexed by a * 3 + b (0 false, 1 true, 2 NULL).
const AND_LUT = Uint8Array.of(0, 0, 0, 0, 1, 2, 0, 2, 2);
const OR_LUT = Uint8Array.of(0, 1, 2, 1, 1, 1, 2, 1, 2);
const NOT_LUT = Uint8Array.of(1, 0, 2);

/** n-ary AND / OR; stops once every pair is decided (all false / all true). */
export class LogicNode extends Node {
  private buf?: Uint8Array;
  private liveBuf?: Uint8Array;
  /** Index of the last argument that can raise: live masks are needed only before it. */
  private readonly lastRaising: number;

  constructor(
    private readonly isAnd: boolean,
    private readonly args: readonly Node[],
    label: string,
  ) {
    super(BOOLEAN, label);
    let last = -1;
    args.forEach((a, i) => {
      if (a.mayRaise) last = i;
    });
    this.lastRaising = last;
  }

  override get mayRaise(): boolean {
    return this.lastRaising >= 0;
  }

  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const out = (this.buf = u8(this.buf, n));
    const lut = this.isAnd ? AND_LUT : OR_LUT;
    const decided = this.isAnd ? 0 : 1;
    const args = this.args;
    out.fill(this.isAnd ? 1 : 0, 0, n);
    let sub = ctx;
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!.bool(sub);
      let open = 0;
      if (i >= this.lastRaising) {
        for (let k = 0; k < n; k++) {
          const r = lut[out[k]! * 3 + v[k]!]!;
          out[k] = r;
          open |= r ^ decided; // non-zero once some pair is undecided (branch-free)
        }
      } else {
        // the next arguments matter only for the pairs still undecided (and live above)
        const live = (this.liveBuf = u8(this.liveBuf, n));
        const parent = ctx.live;
        for (let k = 0; k < n; k++) {
          const r = lut[out[k]! * 3 + v[k]!]!;
          out[k] = r;
          const undecided = -(r ^ decided) >>> 31; // 1 when r is not the deciding value (branch-free)
          open |= undecided;
          live[k] = parent === null ? undecided : undecided & parent[k]!;
        }
        if (i === 0) sub = { ...ctx, live };
      }
      if (open === 0) break;
    }
    return out;
  }
}

/** A boolean node of one argument: it may raise where its argument may. */
abstract class UnaryBoolNode extends Node {
  protected buf?: Uint8Array;

  constructor(
    protected readonly arg: Node,
    label: string,
  ) {
    super(BOOLEAN, label);
  }

  override get mayRaise(): boolean {
    return this.arg.mayRaise;
  }
}

export class NotNode extends UnaryBoolNode {
  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const v = this.arg.bool(ctx);
    const out = (this.buf = u8(this.buf, n));
    for (let k = 0; k < n; k++) out[k] = NOT_LUT[v[k]!]!;
    return out;
  }
}

export class IsNullNode extends UnaryBoolNode {
  constructor(
    arg: Node,
    private readonly negated: boolean,
    label: string,
  ) {
    super(arg, label);
  }

  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const out = (this.buf = u8(this.buf, n));
    const flip = this.negated ? 1 : 0;
    if (this.arg.cls.c === 'bool') {
      const v = this.arg.bool(ctx);
      for (let k = 0; k < n; k++) out[k] = (v[k] === 2 ? 1 : 0) ^ flip;
      return out;
    }
    const nulls = this.arg.nulls(ctx);
    if (nulls === null) out.fill(flip, 0, n);
    else for (let k = 0; k < n; k++) out[k] = nulls[k]! ^ flip;
    return out;
  }
}
