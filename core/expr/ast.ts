/**
 * Expressions: a small, typed AST over the two join inputs — residual join filters, and (with
 * every column on side 'left') single-input SELECT lists and WHERE / HAVING filters (project.ts).
 *
 * Column references name a side explicitly (`l.price`, `r.qty`), so one expression can be
 * evaluated over any pairing of left and right rows (the operators pass index arrays, see
 * `evaluate.ts`). SQL three-valued logic: a comparison with a NULL operand is NULL, and a filter
 * keeps a pair only when the result is TRUE. Arithmetic and comparisons follow DuckDB's typing
 * (exact integers and decimals, overflow is an error; see `numeric-types.ts` and `evaluate.ts`);
 * CASE, COALESCE, CAST and unary minus DuckDB's (casts.ts, cast-nodes.ts, conditional-nodes.ts).
 *
 * Number literals are JS numbers, or bigints for integers a double cannot hold exactly (the parser
 * makes a bigint only then, so `9007199254740993` is exact and `42` stays a number).
 *
 * Depth: every consumer of an Expr (compile, evaluate, format, SQL) recurses over it, so an
 * expression may nest at most MAX_EXPR_DEPTH levels (a node's depth is 1 + its deepest child's;
 * an n-ary AND/OR/COALESCE/CASE/call is one level however many arguments it has). The parser enforces this while it
 * reads; `checkDepth` does for an AST built in code, without recursing itself.
 */
import { ExpressionError } from '../errors.ts';

/** A join input side (`core/types.ts` re-exports it). */
export type Side = 'left' | 'right';

export type CompareOp = '=' | '<>' | '<' | '<=' | '>' | '>=';
/** `/` is floating-point division, `//` integer division (truncating), `%` the remainder (as in DuckDB). */
export type ArithOp = '+' | '-' | '*' | '/' | '//' | '%';

export type Literal = number | bigint | string | boolean | null;

/** The deepest nesting any expression may have (see the module comment). */
export const MAX_EXPR_DEPTH = 256;

export type Expr =
  | { readonly kind: 'column'; readonly side: Side; readonly name: string }
  | { readonly kind: 'literal'; readonly value: Literal }
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'arith'; readonly op: ArithOp; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'and'; readonly args: readonly Expr[] }
  | { readonly kind: 'or'; readonly args: readonly Expr[] }
  | { readonly kind: 'not'; readonly arg: Expr }
  | { readonly kind: 'is-null'; readonly arg: Expr; readonly negated: boolean }
  /** Searched CASE: the first `when` that is TRUE picks its `then`; none (or only NULL/FALSE) picks `otherwise`, NULL when absent. */
  | { readonly kind: 'case'; readonly whens: readonly CaseWhen[]; readonly otherwise: Expr | null }
  /** The first argument that is not NULL (NULL when all are). */
  | { readonly kind: 'coalesce'; readonly args: readonly Expr[] }
  /** `CAST(arg AS type)`; `type` is a DuckDB type name as written (`BIGINT`, `DECIMAL(10,2)`, `VARCHAR`, `DATE`; see casts.ts). */
  | { readonly kind: 'cast'; readonly arg: Expr; readonly type: string }
  /** Unary minus. */
  | { readonly kind: 'negate'; readonly arg: Expr }
  /**
   * A scalar function by DuckDB's name, lower case (functions.ts lists them): `~~` (LIKE) and its
   * kin, `like_escape`, `prefix`, `date_part`, `year`, `substring`, `||`, `concat`, ….
   */
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly Expr[] };

export interface CaseWhen {
  readonly when: Expr;
  readonly then: Expr;
}

export const col = (side: Side, name: string): Expr => ({ kind: 'column', side, name });
export const lit = (value: Literal): Expr => ({ kind: 'literal', value });
export const cmp = (op: CompareOp, left: Expr, right: Expr): Expr => ({ kind: 'compare', op, left, right });
export const arith = (op: ArithOp, left: Expr, right: Expr): Expr => ({ kind: 'arith', op, left, right });
export const and = (...args: Expr[]): Expr => ({ kind: 'and', args });
export const or = (...args: Expr[]): Expr => ({ kind: 'or', args });
export const not = (arg: Expr): Expr => ({ kind: 'not', arg });
export const isNull = (arg: Expr, negated = false): Expr => ({ kind: 'is-null', arg, negated });
export const caseWhen = (whens: readonly CaseWhen[], otherwise: Expr | null = null): Expr => ({ kind: 'case', whens, otherwise });
export const coalesce = (...args: Expr[]): Expr => ({ kind: 'coalesce', args });
export const cast = (arg: Expr, type: string): Expr => ({ kind: 'cast', arg, type });
export const negate = (arg: Expr): Expr => ({ kind: 'negate', arg });
export const call = (name: string, ...args: Expr[]): Expr => ({ kind: 'call', name, args });

/** The direct sub-expressions of `e` (a CASE's whens and thens in order, then its ELSE). */
export function children(e: Expr): readonly Expr[] {
  switch (e.kind) {
    case 'column':
    case 'literal':
      return [];
    case 'compare':
    case 'arith':
      return [e.left, e.right];
    case 'and':
    case 'or':
      return e.args;
    case 'not':
    case 'is-null':
    case 'cast':
    case 'negate':
      return [e.arg];
    case 'coalesce':
    case 'call':
      return e.args;
    case 'case': {
      const out: Expr[] = [];
      for (const w of e.whens) out.push(w.when, w.then);
      if (e.otherwise !== null) out.push(e.otherwise);
      return out;
    }
  }
}

/** Every column an expression reads, per side (for projection and validation). Iterative. */
export function referencedColumns(e: Expr, out: { left: Set<string>; right: Set<string> } = { left: new Set(), right: new Set() }) {
  const stack: Expr[] = [e];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (x.kind === 'column') out[x.side].add(x.name);
    else for (const c of children(x)) stack.push(c);
  }
  return out;
}

/** The depth of `e` (a leaf is 1), computed without recursion. */
export function exprDepth(e: Expr): number {
  let max = 0;
  const stack: [Expr, number][] = [[e, 1]];
  while (stack.length > 0) {
    const [x, d] = stack.pop()!;
    if (d > max) max = d;
    for (const c of children(x)) stack.push([c, d + 1]);
  }
  return max;
}

/** Throws ExpressionError when `e` nests deeper than MAX_EXPR_DEPTH levels (checked without recursion). */
export function checkDepth(e: Expr): void {
  const stack: [Expr, number][] = [[e, 1]];
  while (stack.length > 0) {
    const [x, d] = stack.pop()!;
    if (d > MAX_EXPR_DEPTH) {
      throw new ExpressionError(`expression nests deeper than ${MAX_EXPR_DEPTH} levels (a filter may nest at most ${MAX_EXPR_DEPTH})`);
    }
    for (const c of children(x)) stack.push([c, d + 1]);
  }
}
