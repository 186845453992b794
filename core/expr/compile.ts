/**
 * The compiler: type-checks an expression against both input schemas (DuckDB's typing rules,
 * numeric-types.ts) and builds its node tree once, so a bad filter fails before any data is read.
 * Columns resolve by exact name first, then by a unique case-insensitive match. Literals-only
 * arithmetic that is NULL (`1 // 0`) folds to NULL at compile time, as DuckDB's binder does; one
 * that overflows stays and fails at run time. A NULL operand makes a comparison or arithmetic
 * NULL, its other operand still type-checked but never evaluated. CASE / COALESCE branches are
 * typed and cast by casts.ts (DuckDB's max logical type), CAST by the same rules; a negated
 * number literal is a literal (as DuckDB's parser folds it).
 */
import { type Schema } from 'apache-arrow';
import { ExpressionError, MissingColumnError, UnsupportedExpressionError, UnsupportedTypeError } from '../errors.ts';
import type { Side } from '../types.ts';
import { type ArithOp, type CompareOp, type Expr, lit, referencedColumns } from './ast.ts';
import { NegateExactNode, NegateFloatNode } from './cast-nodes.ts';
import { castTo, commonClass, type Operand, parseTypeName, temporalCommon } from './casts.ts';
import { CaseNode, CoalesceNode } from './conditional-nodes.ts';
import { numClass, columnType } from './column-types.ts';
import { CompareBools, CompareStrings } from './compare-nodes.ts';
import { compileCall } from './functions.ts';
import { ColumnNode, LiteralNode, NullNode } from './leaf-nodes.ts';
import { IsNullNode, LogicNode, NotNode } from './logic-nodes.ts';
import { BOOLEAN, type Ctx, Node, NULL_CLASS, type TemporalUnit, type VClass } from './node-base.ts';
import { ArithExactNode, ArithFloatNode, CompareExact, CompareNumbers, RescaleNode, ToFloatNode } from './numeric-nodes.ts';
import { bindArithmetic, bindComparison, DOUBLE, FLOAT, intType, isExact, literalType, type NumType } from './numeric-types.ts';
import { formatExpr } from './parse.ts';
import { parseTemporal } from './temporal-literals.ts';
import { InSetNode, StrInSetNode } from './in-set-node.ts';

function labelOf(e: Expr): string {
  try {
    return formatExpr(e);
  } catch {
    return e.kind === 'literal' ? String(e.value) : `(${e.kind} expression)`;
  }
}

type NumNode = Node & { readonly cls: VClass & { c: 'num' } };

/** A one-pair context for evaluating literal-only nodes at compile time (they read no batch). */
const CONSTANT_CTX: Ctx = {
  left: undefined as never,
  leftRows: new Int32Array(1),
  right: undefined as never,
  rightRows: new Int32Array(1),
  n: 1,
  live: null,
};

const UNITS_PER_DAY: Partial<Record<TemporalUnit, bigint>> = { s: 86_400n, ms: 86_400_000n, us: 86_400_000_000n, ns: 86_400_000_000_000n };
const TS_INFINITY = 2n ** 63n - 1n;

/**
 * A DATE compared with a TIMESTAMP constant T, as a comparison of dates: DuckDB casts the date to
 * a timestamp (midnight), so with q = floor(T / day) and T at midnight `d op T` is `d op q`; past
 * midnight `d < T` and `d <= T` are `d <= q`, `d > T` and `d >= T` are `d > q` (the date's midnight
 * is never equal to T). Exact, and no cast per row — `l_shipdate < date '1995-01-01' + interval 1
 * year` compares days. null (the generic cast) for `=` / `<>` past midnight, ±infinity, time zones.
 */
function dateAgainstTimestamp(op: CompareOp, a: Node, b: Node, label: string): Node | null {
  const dateFirst = a.cls.c === 'time' && a.cls.unit === 'day';
  const [date, ts] = dateFirst ? [a, b] : [b, a];
  const dc = date.cls;
  const tc = ts.cls;
  if (dc.c !== 'time' || dc.unit !== 'day' || tc.c !== 'time' || tc.tz !== undefined || !(ts instanceof LiteralNode)) return null;
  const perDay = UNITS_PER_DAY[tc.unit];
  const t = ts.constant;
  if (perDay === undefined || typeof t !== 'bigint' || t === TS_INFINITY || t === -TS_INFINITY) return null;
  let q = t / perDay;
  if (t % perDay !== 0n && t < 0n) q -= 1n;
  const o: CompareOp = dateFirst ? op : FLIPPED[op];
  let dateOp: CompareOp = o;
  if (t % perDay !== 0n) {
    if (o === '<' || o === '<=') dateOp = '<=';
    else if (o === '>' || o === '>=') dateOp = '>';
    else return null;
  }
  return new CompareExact(dateOp, date, new LiteralNode(dc, ts.label, q), label);
}

const FLIPPED: Record<CompareOp, CompareOp> = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

export class Compiler {
  /** Nodes built from literals only (DuckDB's "foldable" expressions). */
  private readonly constants = new WeakSet<Node>();

  constructor(
    private readonly leftSchema: Schema,
    private readonly rightSchema: Schema,
  ) {}

  /** The schema's spelling of a column: exact match first, then a unique case-insensitive match. */
  resolveName(side: Side, name: string): string {
    return (side === 'left' ? this.leftSchema : this.rightSchema).fields[this.fieldIndex(side, name)]!.name;
  }

  columnsOf(expr: Expr): { left: string[]; right: string[] } {
    const refs = referencedColumns(expr);
    return {
      left: [...refs.left].map((n) => this.resolveName('left', n)),
      right: [...refs.right].map((n) => this.resolveName('right', n)),
    };
  }

  private fieldIndex(side: Side, name: string): number {
    const fields = (side === 'left' ? this.leftSchema : this.rightSchema).fields;
    const exact = fields.findIndex((f) => f.name === name);
    if (exact >= 0) return exact;
    const lower = name.toLowerCase();
    const matches = fields.flatMap((f, i) => (f.name.toLowerCase() === lower ? [i] : []));
    if (matches.length === 1) return matches[0]!;
    throw new MissingColumnError(name, `${side} input`, fields.map((f) => f.name));
  }

  compile(e: Expr): Node {
    const label = labelOf(e);
    switch (e.kind) {
      case 'column': {
        const index = this.fieldIndex(e.side, e.name);
        const field = (e.side === 'left' ? this.leftSchema : this.rightSchema).fields[index]!;
        const type = columnType(field.type);
        if (type === null) throw new UnsupportedTypeError(`${e.side}.${field.name}`, String(field.type), 'in filter expressions');
        return new ColumnNode(e.side, field.name, index, type, label);
      }
      case 'literal': {
        const node = this.literal(e.value, label);
        this.constants.add(node);
        return node;
      }
      case 'arith': {
        const a = this.compile(e.left);
        const b = this.compile(e.right);
        for (const x of [a, b]) {
          if (x.cls.c !== 'num' && x.cls.c !== 'null') {
            if (x.cls.c === 'time' && (e.op === '+' || e.op === '-')) {
              // DuckDB has DATE ± INTEGER and DATE - DATE; joinlab folds them for constants only (adapters/sql/temporal-fold.ts)
              throw new UnsupportedExpressionError(`date arithmetic on a column is not supported: ${label}`);
            }
            throw new ExpressionError(`cannot apply '${e.op}' to ${x.label} (${x.cls.sql}): arithmetic needs numbers, in ${label}`);
          }
        }
        if (a instanceof NullNode || b instanceof NullNode) return this.nullArith(e.op, a, b, label);
        const node = this.arith(e.op, a as NumNode, b as NumNode, label);
        if (!this.constants.has(a) || !this.constants.has(b)) return node;
        // literals only: DuckDB's binder folds such an argument when it is NULL (`1 // 0`), so
        // find out now; one that overflows stays, and fails at run time as in DuckDB
        return this.isNullValue(node) ? new NullNode(node.cls, label) : (this.constants.add(node), node);
      }
      case 'compare':
        return this.compileCompare(e.op, this.compile(e.left), this.compile(e.right), e, label);
      case 'and':
      case 'or': {
        const set = e.kind === 'or' ? this.inSet(e.args, label) : null;
        if (set !== null) return set;
        const args = e.args.map((a) => this.booleanOperand(this.compile(a), e.kind.toUpperCase()));
        return new LogicNode(e.kind === 'and', args, label);
      }
      case 'not':
        return new NotNode(this.booleanOperand(this.compile(e.arg), 'NOT'), label);
      case 'is-null': {
        const arg = this.compile(e.arg);
        if (arg instanceof NullNode) return new LiteralNode(BOOLEAN, label, !e.negated);
        return new IsNullNode(arg, e.negated, label);
      }
      case 'negate':
        return this.negate(e, label);
      case 'cast':
        return castTo(this.operand(e.arg), parseTypeName(e.type, label), label);
      case 'case': {
        if (e.whens.length === 0) throw new ExpressionError(`CASE needs at least one WHEN, in ${label}`);
        // a WHEN is cast to BOOLEAN (DuckDB's binder: AddCastToType(when, BOOLEAN))
        const whens = e.whens.map((w) => castTo(this.operand(w.when), BOOLEAN, label));
        const thens = e.whens.map((w) => this.operand(w.then));
        const otherwise: Operand = e.otherwise !== null ? this.operand(e.otherwise) : { node: new NullNode(NULL_CLASS, 'NULL'), expr: lit(null) };
        // DuckDB folds the result type from the ELSE, then each THEN in order
        const cls = commonClass([otherwise, ...thens], 'CASE expression', label);
        if (cls.c === 'null') return new NullNode(NULL_CLASS, label);
        const branches = [...thens, otherwise].map((op) => castTo(op, cls, label));
        return new CaseNode(whens, branches, cls, label);
      }
      case 'call':
        return compileCall(e.name, e.args.map((a) => this.operand(a)), label);
      case 'coalesce': {
        if (e.args.length === 0) throw new ExpressionError(`COALESCE needs at least one argument, in ${label}`);
        const args = e.args.map((a) => this.operand(a));
        const cls = commonClass(args, 'COALESCE operator', label);
        if (cls.c === 'null') return new NullNode(NULL_CLASS, label);
        const nodes = args.map((op) => castTo(op, cls, label));
        return nodes.length === 1 ? nodes[0]! : new CoalesceNode(nodes, cls, label);
      }
    }
  }

  private operand(e: Expr): Operand {
    return { node: this.compile(e), expr: e };
  }

  /**
   * Unary minus. A negated number literal is a literal of the negated value (DuckDB's parser
   * folds `-5`, `-(5)` and `-(-(5))` into constants, which keep adapting to the other operand:
   * `tinyint + -(5)` is TINYINT); a DOUBLE literal is negated as a DOUBLE.
   */
  private negate(e: Expr & { kind: 'negate' }, label: string): Node {
    let depth = 1;
    let inner = e.arg;
    while (inner.kind === 'negate') {
      depth++;
      inner = inner.arg;
    }
    if (inner.kind === 'literal' && (typeof inner.value === 'number' || typeof inner.value === 'bigint')) {
      const v = inner.value;
      if (literalType(v, label).unscaled !== null) {
        const negated = depth % 2 === 0 ? v : typeof v === 'bigint' ? -v : v === 0 ? 0 : -v;
        const node = this.literal(negated, label);
        this.constants.add(node);
        return node;
      }
    }
    const arg = this.compile(e.arg);
    // -NULL: DuckDB binds the cheapest overload for SQLNULL, BIGINT; a typed NULL keeps its type
    if (arg instanceof NullNode) return new NullNode(arg.cls.c === 'null' ? numClass(intType('i64')) : arg.cls, label);
    if (arg.cls.c !== 'num') throw new ExpressionError(`cannot negate ${arg.label} (${arg.cls.sql}): unary minus needs a number, in ${label}`);
    const t = arg.cls.t;
    if (isExact(t)) return new NegateExactNode(arg, t, arg.cls, label);
    return new NegateFloatNode(arg, arg.cls, label);
  }

  private literal(v: number | bigint | string | boolean | null, label: string): Node {
    if (v === null) return new NullNode(NULL_CLASS, label);
    if (typeof v === 'boolean') return new LiteralNode(BOOLEAN, label, v);
    if (typeof v === 'string') return new LiteralNode({ c: 'str', sql: 'VARCHAR' }, label, v);
    const lt = literalType(v, label);
    if (lt.unscaled === null) return new LiteralNode(numClass(DOUBLE), label, Number(v));
    return new LiteralNode(numClass(lt.t), label, lt.unscaled, lt.int);
  }

  /** `a op b` with DuckDB's typing: operands converted to the operation's types first. */
  private arith(op: ArithOp, a: NumNode, b: NumNode, label: string): Node {
    const ta = a.cls.t;
    const tb = b.cls.t;
    const bind = bindArithmetic(op, ta, tb, a.intLiteral, b.intLiteral, label);
    const cls = numClass(bind.result);
    if (!isExact(bind.result)) {
      const single = bind.result.k === 'f32';
      return new ArithFloatNode(op, this.toFloat(a, single), this.toFloat(b, single), single, cls, label, bind.zeroIsNull === true);
    }
    return new ArithExactNode(op, this.toExact(a, bind.left, label), this.toExact(b, bind.right, label), bind.result, cls, label);
  }

  /**
   * Arithmetic with a NULL argument — the NULL literal, or literals-only arithmetic that is NULL —
   * is NULL, and its other argument is never evaluated: DuckDB's binder makes such a call a NULL
   * constant (`FunctionBinder::BindScalarFunction`, src/function/function_binder.cpp), typed by
   * the overload it picked (the NULL literal takes the other argument's type). A decimal overload
   * has no type before it is bound, so that NULL is untyped (SQLNULL) there too.
   */
  private nullArith(op: ArithOp, a: Node, b: Node, label: string): Node {
    const ta = a.cls.c === 'num' ? a.cls.t : null;
    const tb = b.cls.c === 'num' ? b.cls.t : null;
    const x = ta ?? tb;
    const y = tb ?? ta;
    // NULL op NULL: DuckDB binds the cheapest overload for (SQLNULL, SQLNULL), BIGINT (`/`: DOUBLE)
    if (a.cls.c === 'null' && b.cls.c === 'null') return new NullNode(numClass(op === '/' ? DOUBLE : intType('i64')), label);
    if (x === null || y === null) return new NullNode(NULL_CLASS, label);
    let t: NumType | null;
    if (x.k === 'f64' || y.k === 'f64') t = DOUBLE;
    else if (x.k === 'f32' || y.k === 'f32') t = FLOAT;
    else if (op === '/') t = DOUBLE;
    else if (x.k === 'int' && y.k === 'int') t = bindArithmetic(op, x, y, null, null, label).result;
    else t = op === '//' ? DOUBLE : null;
    return new NullNode(t === null ? NULL_CLASS : numClass(t), label);
  }

  /** Whether a literals-only numeric node is NULL (false when evaluating it raises: it then fails at run time). */
  private isNullValue(node: Node): boolean {
    try {
      const t = (node.cls as VClass & { c: 'num' }).t;
      const nulls = isExact(t) ? node.exact(CONSTANT_CTX).nulls : node.num(CONSTANT_CTX).nulls;
      return nulls !== null && nulls[0] === 1;
    } catch (e) {
      if (e instanceof ExpressionError) return false;
      throw e;
    }
  }

  /** A numeric node as FLOAT (single) or DOUBLE values. */
  private toFloat(x: NumNode, single: boolean): Node {
    const t = x.cls.t;
    if (!isExact(t)) return x; // FLOAT values are exact in a double, DOUBLE stays
    return new ToFloatNode(x, t, single, numClass(single ? FLOAT : DOUBLE), x.label);
  }

  /** An exact node converted to `to` (a decimal of a larger scale needs its unscaled values scaled up). */
  private toExact(x: NumNode, to: NumType, label: string): Node {
    const from = x.cls.t;
    const scale = from.k === 'dec' ? from.s : 0;
    if (to.k === 'dec' && to.s > scale) return new RescaleNode(x, from, to, label);
    return x;
  }

  /**
   * `x = c1 OR x = c2 OR …` (3+ terms, one integer or string column, integer or string or NULL constants) as one set
   * lookup (in-set-node.ts); null for any other OR, which compiles term by term.
   */
  private inSet(args: readonly Expr[], label: string): Node | null {
    if (args.length < 3) return null;
    let column: Extract<Expr, { kind: 'column' }> | null = null;
    const ints: (number | bigint | null)[] = [];
    const strings: (string | null)[] = [];
    for (const a of args) {
      if (a.kind !== 'compare' || a.op !== '=') return null;
      const [c, v] = a.left.kind === 'column' ? [a.left, a.right] : [a.right, a.left];
      if (c.kind !== 'column' || v.kind !== 'literal') return null;
      if (column === null) column = c;
      else if (column.side !== c.side || column.name !== c.name) return null;
      const x = v.value;
      if (x === null) {
        ints.push(x);
        strings.push(x);
      } else if (typeof x === 'bigint' || (typeof x === 'number' && Number.isSafeInteger(x))) ints.push(x);
      else if (typeof x === 'string') strings.push(x);
      else return null;
    }
    const node = this.compile(column!);
    // all constants of the column's kind (a string with a number is the generic path's typed error)
    if (node.cls.c === 'num' && node.cls.t.k === 'int' && ints.length === args.length) return new InSetNode(node, ints, label);
    if (node.cls.c === 'str' && strings.length === args.length) return new StrInSetNode(node, strings, label);
    return null;
  }

  private booleanOperand(x: Node, op: string): Node {
    if (x.cls.c === 'bool') return x;
    if (x.cls.c === 'null') return new NullNode(BOOLEAN, x.label);
    throw new ExpressionError(`${op} needs boolean operands, but ${x.label} has type ${x.cls.sql}`);
  }

  private compileCompare(op: CompareOp, a: Node, b: Node, e: Expr & { kind: 'compare' }, label: string): Node {
    const ca = a.cls;
    const cb = b.cls;
    const mismatch = (why = ''): never => {
      throw new ExpressionError(`cannot compare ${a.label} (${ca.sql}) with ${b.label} (${cb.sql})${why} in ${label}`);
    };
    if (a instanceof NullNode || b instanceof NullNode) return new NullNode(BOOLEAN, label);
    if (ca.c === 'num' && cb.c === 'num') {
      const common = bindComparison(ca.t, cb.t, a.intLiteral, b.intLiteral);
      if (!isExact(common)) {
        const single = common.k === 'f32';
        return new CompareNumbers(op, this.toFloat(a as NumNode, single), this.toFloat(b as NumNode, single), label);
      }
      return new CompareExact(op, this.toExact(a as NumNode, common, label), this.toExact(b as NumNode, common, label), label);
    }
    if (ca.c === 'time' || cb.c === 'time') {
      if (ca.c === 'time' && cb.c === 'time') {
        if (ca.unit === cb.unit) return new CompareExact(op, a, b, label);
        const onDates = dateAgainstTimestamp(op, a, b, label);
        if (onDates !== null) return onDates;
        // DATE vs TIMESTAMP_x, or two units: both cast to the finer type first, as DuckDB binds it
        const common = temporalCommon(ca, cb);
        if (common === null) mismatch(': dates and timestamps of different units compare only without a time zone (and not DATE64)');
        return new CompareExact(op, castTo({ node: a, expr: e.left }, common!, label), castTo({ node: b, expr: e.right }, common!, label), label);
      }
      // a temporal column against a string literal: convert the literal once
      const [t, other, otherExpr] = ca.c === 'time' ? [ca, b, e.right] : [cb as VClass & { c: 'time' }, a, e.left];
      if (otherExpr.kind !== 'literal' || typeof otherExpr.value !== 'string') mismatch();
      const value = parseTemporal((otherExpr as { value: string }).value, t.unit, t.sql, label);
      const lit = new LiteralNode(t, other.label, value);
      return ca.c === 'time' ? new CompareExact(op, a, lit, label) : new CompareExact(op, lit, b, label);
    }
    if (ca.c === cb.c && (ca.c === 'str' || ca.c === 'bin')) {
      const constant = e.left.kind === 'literal' ? 'a' : e.right.kind === 'literal' ? 'b' : null;
      return new CompareStrings(op, a, b, label, constant);
    }
    if (ca.c === 'bool' && cb.c === 'bool') return new CompareBools(op, a, b, label);
    return mismatch();
  }
}
