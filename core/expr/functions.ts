/**
 * Scalar function calls (`{ kind: 'call', name, args }` in ast.ts): the names joinlab evaluates —
 * DuckDB's own function names, so an expression renders back to DuckDB SQL as it is — and how each
 * is typed and built. Argument typing follows DuckDB's binder for these functions: string
 * arguments must be VARCHAR (DuckDB has no implicit cast from other types to VARCHAR for them, a
 * Binder Error), `||` and `concat` cast any argument to VARCHAR, `substring`'s start and length
 * are integers, a date part's argument a DATE or TIMESTAMP. A NULL argument makes the result NULL
 * (except in `concat`, which skips it); its type is still the function's.
 *
 *  - LIKE family — `~~` (LIKE), `!~~` (NOT LIKE), `~~*` (ILIKE), `!~~*` (NOT ILIKE), and
 *    `like_escape`, `not_like_escape`, `ilike_escape`, `not_ilike_escape` (`… ESCAPE e`);
 *    `prefix` / `starts_with`, `suffix` / `ends_with`, `contains`: the pattern (and the escape) must
 *    be a constant (a string literal or NULL); anything else is refused (UnsupportedExpressionError).
 *    Escapes as DuckDB 1.5 reads them: an empty ESCAPE and the two-argument ILIKE make the NUL byte
 *    the escape, the two-argument LIKE has none; an escape of more than one byte is DuckDB's error.
 *    Refused, because DuckDB's answer then depends on its column statistics (it takes an ASCII-only
 *    ILIKE that does not lower the pattern and has no escape when a column holds no non-ASCII
 *    string): a two-argument ILIKE pattern holding a NUL byte, U+0130 or U+212A (non-ASCII letters
 *    whose lowercase is ASCII). Also refused: ESCAPE '%' (see like-match.ts).
 *  - `date_part` / `datepart` (`extract`) and the one-part functions (date-part-nodes.ts).
 *  - `substring` / `substr` (2 or 3 arguments), `||`, `concat` (string-nodes.ts).
 */
import { ExpressionError, UnsupportedExpressionError } from '../errors.ts';
import { castTo, type Operand, VARCHAR } from './casts.ts';
import { DATE_PART_FUNCTIONS, type DatePart, datePartOf, DatePartNode, BIGINT } from './date-part-nodes.ts';
import { LiteralNode, NullNode } from './leaf-nodes.ts';
import { errorProbe, LikeMatcher, literalPattern, parseLikePattern } from './like-match.ts';
import { LikeNode } from './like-nodes.ts';
import { lowerCapacity, lowerUtf8 } from './case-fold.ts';
import { BOOLEAN, type Node } from './node-base.ts';
import { ConcatNode, type IntArg, SubstringNode } from './string-nodes.ts';

type Binder = (args: readonly Operand[], label: string, name: string) => Node;

interface LikeForm {
  readonly negated: boolean;
  readonly lower: boolean;
  /** Has a third argument: the escape. */
  readonly escape: boolean;
  /** How a plain string argument becomes a pattern (`prefix` -> 'x%'); null: it is a LIKE pattern. */
  readonly wrap: 'prefix' | 'suffix' | 'contains' | null;
}

const LIKE_FORMS: Record<string, LikeForm> = {
  '~~': { negated: false, lower: false, escape: false, wrap: null },
  '!~~': { negated: true, lower: false, escape: false, wrap: null },
  '~~*': { negated: false, lower: true, escape: false, wrap: null },
  '!~~*': { negated: true, lower: true, escape: false, wrap: null },
  like_escape: { negated: false, lower: false, escape: true, wrap: null },
  not_like_escape: { negated: true, lower: false, escape: true, wrap: null },
  ilike_escape: { negated: false, lower: true, escape: true, wrap: null },
  not_ilike_escape: { negated: true, lower: true, escape: true, wrap: null },
  prefix: { negated: false, lower: false, escape: false, wrap: 'prefix' },
  starts_with: { negated: false, lower: false, escape: false, wrap: 'prefix' },
  suffix: { negated: false, lower: false, escape: false, wrap: 'suffix' },
  ends_with: { negated: false, lower: false, escape: false, wrap: 'suffix' },
  contains: { negated: false, lower: false, escape: false, wrap: 'contains' },
};

/** The infix spelling of the operator names (for formatting), DuckDB's keywords. */
export const LIKE_OPERATORS: Readonly<Record<string, string>> = { '~~': 'LIKE', '!~~': 'NOT LIKE', '~~*': 'ILIKE', '!~~*': 'NOT ILIKE' };
/** The three-argument forms, as `x [NOT] [I]LIKE p ESCAPE e`. */
export const LIKE_ESCAPE_OPERATORS: Readonly<Record<string, string>> = {
  like_escape: 'LIKE',
  not_like_escape: 'NOT LIKE',
  ilike_escape: 'ILIKE',
  not_ilike_escape: 'NOT ILIKE',
};

const arity = (name: string, args: readonly Operand[], min: number, max: number, label: string): void => {
  if (args.length < min || args.length > max) {
    const want = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    throw new ExpressionError(`${name}() takes ${want} argument${want === '1' ? '' : 's'}, got ${args.length}, in ${label}`);
  }
};

const isNull = (op: Operand): boolean => op.node instanceof NullNode || op.node.cls.c === 'null';

/** A VARCHAR argument (a NULL is fine); DuckDB's Binder Error otherwise. */
function stringArg(name: string, op: Operand, label: string): void {
  if (op.node.cls.c !== 'str' && !isNull(op)) {
    throw new ExpressionError(`Binder Error: No function matches ${name}(…) with an argument ${op.node.label} of type ${op.node.cls.sql} (it needs VARCHAR), in ${label}`);
  }
}

/** The value of a constant string argument: a string, null for NULL, undefined when not constant. */
function constantString(op: Operand): string | null | undefined {
  if (isNull(op)) return null;
  const e = op.expr;
  return e.kind === 'literal' && typeof e.value === 'string' ? e.value : undefined;
}

const utf8 = new TextEncoder();

function bindLike(args: readonly Operand[], label: string, name: string): Node {
  const form = LIKE_FORMS[name]!;
  arity(name, args, form.escape ? 3 : 2, form.escape ? 3 : 2, label);
  for (const a of args) stringArg(name, a, label);
  const [s, p, e] = args as [Operand, Operand, Operand | undefined];
  const pattern = constantString(p);
  const escape = e === undefined ? '' : constantString(e);
  if (pattern === undefined || escape === undefined) {
    throw new UnsupportedExpressionError(`${name}() with a pattern${e !== undefined ? ' or escape' : ''} that is not a constant is not supported, in ${label}`);
  }
  if (pattern === null || escape === null || isNull(s)) return new NullNode(BOOLEAN, label);
  let bytes: Uint8Array = utf8.encode(pattern);
  if (form.wrap !== null) {
    // prefix / suffix / contains: the string's bytes literally, with '%' around
    const literal = literalPattern(bytes, form.wrap !== 'prefix', form.wrap !== 'suffix');
    return new LikeNode(s.node, new LikeMatcher(literal), false, false, null, label);
  }
  const escapeBytes = utf8.encode(escape);
  if (escapeBytes.length > 1) throw new ExpressionError(`Syntax Error: Invalid escape string. Escape string must be empty or one character. in ${label}`);
  // DuckDB 1.5: an empty ESCAPE, and ILIKE without one, make NUL the escape byte; LIKE without one has none
  const escapeByte = escapeBytes.length === 1 ? escapeBytes[0]! : form.escape || form.lower ? 0 : -1;
  if (escapeByte === 37) throw new UnsupportedExpressionError(`ESCAPE '%' is not supported (DuckDB reads trailing escaped '%' as wildcards), in ${label}`);
  if (form.lower) {
    if (!form.escape && /[\u0000\u0130\u212a]/.test(pattern)) {
      throw new UnsupportedExpressionError(
        `ILIKE with a pattern holding a NUL byte, U+0130 or U+212A is not supported (DuckDB's answer then depends on its column statistics), in ${label}`,
      );
    }
    const lowered = new Uint8Array(lowerCapacity(bytes.length));
    bytes = lowered.slice(0, lowerUtf8(bytes, 0, bytes.length, lowered));
  }
  const parsed = parseLikePattern(bytes, escapeByte);
  const probe = parsed.danglingEscape ? new LikeMatcher(errorProbe(parsed)) : null;
  return new LikeNode(s.node, new LikeMatcher(parsed), form.negated, form.lower, probe, label);
}

function bindDatePart(args: readonly Operand[], label: string, name: string): Node {
  let part: DatePart;
  let x: Operand;
  if (name === 'date_part' || name === 'datepart') {
    arity(name, args, 2, 2, label);
    const spec = constantString(args[0]!);
    if (spec === undefined) throw new UnsupportedExpressionError(`${name}() with a part that is not a constant string is not supported, in ${label}`);
    x = args[1]!;
    if (spec === null) return new NullNode(BIGINT, label);
    part = datePartOf(spec, label);
  } else {
    arity(name, args, 1, 1, label);
    part = DATE_PART_FUNCTIONS[name]!;
    x = args[0]!;
  }
  const cls = x.node.cls;
  if (isNull(x)) {
    if (name === 'date_part' || name === 'datepart') return new NullNode(BIGINT, label);
    throw new ExpressionError(`Binder Error: Could not choose a best candidate function for the function call "${name}(NULL)", in ${label}`);
  }
  if (cls.c !== 'time') throw new ExpressionError(`Binder Error: No function matches ${name}(…) with an argument ${x.node.label} of type ${cls.sql} (it needs DATE or TIMESTAMP), in ${label}`);
  if (cls.tz !== undefined || cls.unit === 'date-ms') throw new UnsupportedExpressionError(`${name}() of ${cls.sql} is not supported (DATE and TIMESTAMP_S/MS/(US)/NS are), in ${label}`);
  return new DatePartNode(x.node, part, cls.unit, label);
}

/** An integer argument of substring (a NULL is fine: the result is NULL). */
function intArg(name: string, op: Operand, label: string): IntArg {
  const cls = op.node.cls;
  if (!isNull(op) && (cls.c !== 'num' || cls.t.k !== 'int')) {
    throw new ExpressionError(`Binder Error: No function matches ${name}(…) with an argument ${op.node.label} of type ${cls.sql} (it needs an integer), in ${label}`);
  }
  const e = op.expr;
  const constant = e.kind === 'literal' && (typeof e.value === 'number' || typeof e.value === 'bigint') ? Number(e.value) : null;
  return { node: op.node, constant };
}

function bindSubstring(args: readonly Operand[], label: string, name: string): Node {
  arity(name, args, 2, 3, label);
  stringArg(name, args[0]!, label);
  const start = intArg(name, args[1]!, label);
  const length = args.length === 3 ? intArg(name, args[2]!, label) : null;
  if (args.some(isNull)) return new NullNode(VARCHAR, label);
  return new SubstringNode(args[0]!.node, start, length, VARCHAR, label);
}

function toVarchar(op: Operand, name: string, label: string): Node {
  if (op.node.cls.c === 'bin') throw new UnsupportedExpressionError(`${name} of BLOB values is not supported, in ${label}`);
  return op.node.cls.c === 'str' ? op.node : castTo(op, VARCHAR, label);
}

function bindConcat(args: readonly Operand[], label: string, name: string): Node {
  if (name === '||') {
    arity(name, args, 2, 2, label);
    if (args.some(isNull)) return new NullNode(VARCHAR, label);
    return new ConcatNode(args.map((a) => toVarchar(a, name, label)), true, VARCHAR, label);
  }
  arity(name, args, 1, Infinity, label);
  const kept = args.filter((a) => !isNull(a));
  if (kept.length === 0) return new LiteralNode(VARCHAR, label, '');
  return new ConcatNode(kept.map((a) => toVarchar(a, name, label)), false, VARCHAR, label);
}

const BINDERS: Record<string, Binder> = {};
for (const n of Object.keys(LIKE_FORMS)) BINDERS[n] = bindLike;
for (const n of ['date_part', 'datepart', ...Object.keys(DATE_PART_FUNCTIONS)]) BINDERS[n] = bindDatePart;
BINDERS.substring = bindSubstring;
BINDERS.substr = bindSubstring;
BINDERS['||'] = bindConcat;
BINDERS.concat = bindConcat;

/** Every function name joinlab evaluates (lower case, DuckDB's spelling). */
export const FUNCTION_NAMES: ReadonlySet<string> = new Set(Object.keys(BINDERS));

/** Types and builds a call of `name` (see the module comment). */
export function compileCall(name: string, args: readonly Operand[], label: string): Node {
  const bind = BINDERS[name];
  if (bind === undefined) throw new UnsupportedExpressionError(`the function ${name}() is not supported (joinlab evaluates ${[...FUNCTION_NAMES].join(', ')}), in ${label}`);
  return bind(args, label, name);
}
