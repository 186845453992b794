/**
 * Residual-filter expressions: a small, typed AST over the two join inputs.
 *
 * Column references name a side explicitly (`l.price`, `r.qty`), so one expression can be
 * evaluated over any pairing of left and right rows (the operators pass index arrays, see
 * `evaluate.ts`). SQL three-valued logic: a comparison with a NULL operand is NULL, and a filter
 * keeps a pair only when the result is TRUE. Arithmetic is done in float64 (DuckDB's `/` is
 * float division too); comparisons of two integer columns are exact over 64 bits.
 */
import type { Side } from '../types.ts';

export type CompareOp = '=' | '<>' | '<' | '<=' | '>' | '>=';
export type ArithOp = '+' | '-' | '*' | '/';

export type Literal = number | string | boolean | null;

export type Expr =
  | { readonly kind: 'column'; readonly side: Side; readonly name: string }
  | { readonly kind: 'literal'; readonly value: Literal }
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'arith'; readonly op: ArithOp; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'and'; readonly args: readonly Expr[] }
  | { readonly kind: 'or'; readonly args: readonly Expr[] }
  | { readonly kind: 'not'; readonly arg: Expr }
  | { readonly kind: 'is-null'; readonly arg: Expr; readonly negated: boolean };

export const col = (side: Side, name: string): Expr => ({ kind: 'column', side, name });
export const lit = (value: Literal): Expr => ({ kind: 'literal', value });
export const cmp = (op: CompareOp, left: Expr, right: Expr): Expr => ({ kind: 'compare', op, left, right });
export const arith = (op: ArithOp, left: Expr, right: Expr): Expr => ({ kind: 'arith', op, left, right });
export const and = (...args: Expr[]): Expr => ({ kind: 'and', args });
export const or = (...args: Expr[]): Expr => ({ kind: 'or', args });
export const not = (arg: Expr): Expr => ({ kind: 'not', arg });
export const isNull = (arg: Expr, negated = false): Expr => ({ kind: 'is-null', arg, negated });

/** Every column an expression reads, per side (for projection and validation). */
export function referencedColumns(e: Expr, out: { left: Set<string>; right: Set<string> } = { left: new Set(), right: new Set() }) {
  switch (e.kind) {
    case 'column':
      out[e.side].add(e.name);
      break;
    case 'literal':
      break;
    case 'compare':
    case 'arith':
      referencedColumns(e.left, out);
      referencedColumns(e.right, out);
      break;
    case 'and':
    case 'or':
      for (const a of e.args) referencedColumns(a, out);
      break;
    case 'not':
    case 'is-null':
      referencedColumns(e.arg, out);
      break;
  }
  return out;
}
