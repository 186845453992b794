/**
 * Text <-> Expr for residual filters (`--filter "l.price * 1.1 < r.budget AND r.tag IS NOT NULL"`).
 *
 * Why hand-written: the grammar is tiny, and a recursive-descent parser gives errors that say
 * exactly where and what was expected (`expected a column like l.x at position 7 in 'l.a > '`;
 * positions are 1-based characters, end of input is `length + 1`).
 *
 * Grammar, loosest first (SQL / DuckDB precedence):
 *   or     := and (OR and)*                    -- a chain becomes one n-ary `or` node
 *   and    := not (AND not)*                   -- likewise one n-ary `and` node
 *   not    := NOT not | is
 *   is     := cmp (IS [NOT] NULL)*             -- `a = b IS NULL` is `(a = b) IS NULL`
 *   cmp    := cat [(= | <> | != | == | < | <= | > | >=) cat]   -- does not chain, like SQL
 *           | cat [NOT] (LIKE | ILIKE) cat [ESCAPE cat]        -- calls of `~~`, `!~~`, `like_escape`, …
 *   cat    := add (|| add)*                    -- a `||` call per operator, left to right
 *   add    := mul ((+ | -) mul)*
 *   mul    := unary ((* | / | // | %) unary)*  -- `//` integer division, `%` remainder (DuckDB's)
 *   unary  := (- | +) unary | postfix
 *   postfix:= primary (:: type)*               -- binds tighter than a sign: `-5::TINYINT` is -(5::TINYINT), as in DuckDB
 *   primary:= number | 'string' | TRUE | FALSE | NULL | ( or ) | side . name
 *           | CASE [or] (WHEN or THEN or)+ [ELSE or] END   -- `CASE x WHEN v …` is `CASE WHEN x = v …`
 *           | COALESCE ( or (, or)* ) | CAST ( or AS type )
 *           | fn ( [or (, or)*] )              -- fn: a function joinlab evaluates (functions.ts)
 *   type   := name [( digits [, digits] )]     -- a DuckDB type name, kept upper-cased: DECIMAL(10,2)
 *   side   := l | r | left | right             -- keywords and sides are case-insensitive
 *   name   := identifier | "quoted identifier"  -- `""` escapes a quote; `''` in strings likewise
 *
 * Degenerate cases and invariants:
 * - Signs directly before a number fold into a negative literal (`-5` is `lit(-5)`, `- -5` is
 *   `lit(5)`); any other unary minus is a `negate` node (`-l.a`, `-(5)`, `-5::BIGINT`). Both mean
 *   the same to the evaluator (a negated number literal is a literal, as DuckDB folds it).
 * - An integer literal a double holds exactly is a number; any other (`9007199254740993`) is a
 *   bigint, exact up to HUGEINT's range (beyond it an ExpressionError). Literals that overflow
 *   float64 (`1e400`) are errors too.
 * - Depth is bounded (MAX_EXPR_DEPTH, see ast.ts) while parsing: a chain of NOTs or signs is read
 *   in a loop, parentheses (and CASE, COALESCE, CAST) recurse at most that deep, and a node deeper than the limit (including
 *   a long left-deep `a + b + c …` chain) is an ExpressionError naming its position — so no
 *   input can overflow the stack here or in anything that later walks the tree. AND/OR chains
 *   are n-ary nodes, one level however long.
 * - `formatExpr` prints the fewest parentheses that make `parseExpr(formatExpr(e))` deep-equal `e`
 *   for every AST with finite number literals, `and`/`or` nodes of >= 2 arguments and cast types
 *   spelled as the parser keeps them (upper case, `DECIMAL(10,2)` without spaces). A 0-ary
 *   `and`/`or` prints as TRUE/FALSE and a 1-ary one as its argument (same meaning, different
 *   shape). Non-finite literals (NaN, Infinity) have no SQL spelling: formatExpr throws.
 */
import { ExpressionError } from '../errors.ts';
import type { Side } from '../types.ts';
import { type ArithOp, checkDepth, type CompareOp, type Expr, type Literal, MAX_EXPR_DEPTH } from './ast.ts';
import { FUNCTION_NAMES, LIKE_ESCAPE_OPERATORS, LIKE_OPERATORS } from './functions.ts';

/** `[NOT] [I]LIKE` -> the call's name, without and with ESCAPE. */
const LIKE_NAMES: Record<string, readonly [string, string]> = {
  like: ['~~', 'like_escape'],
  'not like': ['!~~', 'not_like_escape'],
  ilike: ['~~*', 'ilike_escape'],
  'not ilike': ['!~~*', 'not_ilike_escape'],
};

type TokKind = 'ident' | 'qident' | 'number' | 'string' | 'op' | 'eof';

interface Token {
  readonly kind: TokKind;
  /** Raw text for ident/number/op; decoded content for qident/string. */
  readonly text: string;
  /** 0-based offset of the first character. */
  readonly pos: number;
  readonly end: number;
}

const SIDES: Record<string, Side> = { l: 'left', left: 'left', r: 'right', right: 'right' };
const COMPARE_OPS: Record<string, CompareOp> = {
  '=': '=',
  '==': '=',
  '<>': '<>',
  '!=': '<>',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};
const TWO_CHAR_OPS = new Set(['<>', '!=', '<=', '>=', '==', '//', '::', '||']);
const ONE_CHAR_OPS = new Set(['=', '<', '>', '+', '-', '*', '/', '%', '(', ')', '.', ',']);

/** `text` for an error message: whole when short, else its start and its length. */
function quoteInput(text: string): string {
  return text.length <= 200 ? `'${text}'` : `'${text.slice(0, 80)}…' (${text.length} characters)`;
}

function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || isDigit(c);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const n = text.length;
  let i = 0;
  const fail = (msg: string, at: number): never => {
    throw new ExpressionError(`${msg} at position ${at + 1} in ${quoteInput(text)}`);
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      i++;
      continue;
    }
    const start = i;
    if (isIdentStart(c)) {
      while (i < n && isIdentPart(text.charCodeAt(i))) i++;
      tokens.push({ kind: 'ident', text: text.slice(start, i), pos: start, end: i });
    } else if (isDigit(c) || (c === 46 && i + 1 < n && isDigit(text.charCodeAt(i + 1)))) {
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      if (i < n && text.charCodeAt(i) === 46) {
        i++;
        while (i < n && isDigit(text.charCodeAt(i))) i++;
      }
      if (i < n && (text.charCodeAt(i) | 32) === 101) {
        // exponent: e[+-]digits
        let j = i + 1;
        if (j < n && (text[j] === '+' || text[j] === '-')) j++;
        if (j >= n || !isDigit(text.charCodeAt(j))) fail('expected exponent digits in number', j);
        while (j < n && isDigit(text.charCodeAt(j))) j++;
        i = j;
      }
      if (i < n && isIdentStart(text.charCodeAt(i))) fail(`unexpected '${text[i]}' after number`, i);
      tokens.push({ kind: 'number', text: text.slice(start, i), pos: start, end: i });
    } else if (c === 39 /* ' */ || c === 34 /* " */) {
      const quote = text[i]!;
      let value = '';
      i++;
      for (;;) {
        const q = text.indexOf(quote, i);
        if (q < 0) {
          fail(quote === "'" ? 'unterminated string literal starting' : 'unterminated quoted identifier starting', start);
        }
        value += text.slice(i, q);
        if (text[q + 1] === quote) {
          value += quote;
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      if (quote === '"' && value.length === 0) fail('empty quoted identifier', start);
      tokens.push({ kind: quote === "'" ? 'string' : 'qident', text: value, pos: start, end: i });
    } else {
      const two = text.slice(i, i + 2);
      if (TWO_CHAR_OPS.has(two)) {
        i += 2;
        tokens.push({ kind: 'op', text: two, pos: start, end: i });
      } else if (ONE_CHAR_OPS.has(text[i]!)) {
        i++;
        tokens.push({ kind: 'op', text: text[start]!, pos: start, end: i });
      } else {
        fail(`unexpected character '${text[i]}'`, i);
      }
    }
  }
  tokens.push({ kind: 'eof', text: '', pos: n, end: n });
  return tokens;
}

class Parser {
  private i = 0;
  /** Parentheses currently open (bounds the parser's own recursion). */
  private open = 0;
  /** Depth of every composite node built so far (leaves are 1). */
  private readonly depths = new WeakMap<Expr, number>();
  constructor(
    private readonly text: string,
    private readonly tokens: Token[],
  ) {}

  private get tok(): Token {
    return this.tokens[this.i]!;
  }

  private fail(expected: string, t: Token = this.tok, note?: string): never {
    const found = t.kind === 'eof' ? '' : `, found ${describe(t)}`;
    throw new ExpressionError(`expected ${expected} at position ${t.pos + 1} in ${quoteInput(this.text)}${found}${note ? ` (${note})` : ''}`);
  }

  private depth(e: Expr): number {
    return this.depths.get(e) ?? 1;
  }

  /** Record the depth of a node built at token `at`; too deep is an error there. */
  private node<E extends Expr>(e: E, childDepth: number, at: Token): E {
    const d = childDepth + 1;
    if (d > MAX_EXPR_DEPTH) this.tooDeep(at);
    this.depths.set(e, d);
    return e;
  }

  private tooDeep(at: Token): never {
    throw new ExpressionError(`filter nests deeper than ${MAX_EXPR_DEPTH} levels at position ${at.pos + 1} in ${quoteInput(this.text)}`);
  }

  private isKeyword(word: string): boolean {
    const t = this.tok;
    return t.kind === 'ident' && t.text.toLowerCase() === word;
  }

  private isOp(op: string): boolean {
    const t = this.tok;
    return t.kind === 'op' && t.text === op;
  }

  parseAll(): Expr {
    if (this.tokens.length === 1) this.fail('an expression');
    const e = this.parseOr();
    const rest = this.tok;
    if (rest.kind !== 'eof') {
      this.fail(rest.kind === 'op' && rest.text === ')' ? "end of input (unbalanced ')')" : 'an operator, AND, OR, or end of input');
    }
    return e;
  }

  private parseOr(): Expr {
    const first = this.parseAnd();
    if (!this.isKeyword('or')) return first;
    const at = this.tok;
    const args = [first];
    let d = this.depth(first);
    while (this.isKeyword('or')) {
      this.i++;
      const next = this.parseAnd();
      args.push(next);
      d = Math.max(d, this.depth(next));
    }
    return this.node({ kind: 'or', args }, d, at);
  }

  private parseAnd(): Expr {
    const first = this.parseNot();
    if (!this.isKeyword('and')) return first;
    const at = this.tok;
    const args = [first];
    let d = this.depth(first);
    while (this.isKeyword('and')) {
      this.i++;
      const next = this.parseNot();
      args.push(next);
      d = Math.max(d, this.depth(next));
    }
    return this.node({ kind: 'and', args }, d, at);
  }

  /** `NOT NOT … x`: the NOTs are counted in a loop, so a long chain cannot recurse. */
  private parseNot(): Expr {
    const nots: Token[] = [];
    while (this.isKeyword('not')) {
      nots.push(this.tok);
      this.i++;
    }
    let e = this.parseIs();
    for (let k = nots.length - 1; k >= 0; k--) e = this.node({ kind: 'not', arg: e }, this.depth(e), nots[k]!);
    return e;
  }

  private parseIs(): Expr {
    let e = this.parseCompare();
    while (this.isKeyword('is')) {
      const at = this.tok;
      this.i++;
      let negated = false;
      if (this.isKeyword('not')) {
        this.i++;
        negated = true;
      }
      if (!this.isKeyword('null')) this.fail(negated ? 'NULL after IS NOT' : 'NULL or NOT NULL after IS');
      this.i++;
      e = this.node({ kind: 'is-null', arg: e, negated }, this.depth(e), at);
    }
    return e;
  }

  private parseCompare(): Expr {
    const left = this.parseConcat();
    const t = this.tok;
    const like = this.likeKeyword();
    if (like !== null) return this.parseLike(left, like, t);
    if (t.kind !== 'op') return left;
    const op = COMPARE_OPS[t.text];
    if (op === undefined) return left;
    this.i++;
    const right = this.parseConcat();
    const next = this.tok;
    if (next.kind === 'op' && next.text in COMPARE_OPS) {
      throw new ExpressionError(
        `comparison operators do not chain: add parentheses before '${next.text}' at position ${next.pos + 1} in ${quoteInput(this.text)}`,
      );
    }
    return this.node({ kind: 'compare', op, left, right }, Math.max(this.depth(left), this.depth(right)), t);
  }

  /** `LIKE`, `ILIKE`, `NOT LIKE` or `NOT ILIKE` at the current token (not consumed), else null. */
  private likeKeyword(): string | null {
    const t = this.tok;
    if (t.kind !== 'ident') return null;
    const word = t.text.toLowerCase();
    if (word === 'like' || word === 'ilike') return word;
    const next = this.tokens[this.i + 1]!;
    const after = next.kind === 'ident' ? next.text.toLowerCase() : '';
    return word === 'not' && (after === 'like' || after === 'ilike') ? `not ${after}` : null;
  }

  private parseLike(left: Expr, like: string, at: Token): Expr {
    this.i += like.startsWith('not') ? 2 : 1;
    const pattern = this.parseConcat();
    const [plain, escaped] = LIKE_NAMES[like]!;
    let e: Expr;
    if (this.isKeyword('escape')) {
      this.i++;
      const escape = this.parseConcat();
      e = this.node({ kind: 'call', name: escaped, args: [left, pattern, escape] }, Math.max(this.depth(left), this.depth(pattern), this.depth(escape)), at);
    } else {
      e = this.node({ kind: 'call', name: plain, args: [left, pattern] }, Math.max(this.depth(left), this.depth(pattern)), at);
    }
    const next = this.tok;
    if ((next.kind === 'op' && next.text in COMPARE_OPS) || this.likeKeyword() !== null) {
      throw new ExpressionError(`comparison operators do not chain: add parentheses before '${next.text}' at position ${next.pos + 1} in ${quoteInput(this.text)}`);
    }
    return e;
  }

  private parseConcat(): Expr {
    let e = this.parseAdd();
    while (this.isOp('||')) {
      const at = this.tok;
      this.i++;
      const right = this.parseAdd();
      e = this.node({ kind: 'call', name: '||', args: [e, right] }, Math.max(this.depth(e), this.depth(right)), at);
    }
    return e;
  }

  private parseAdd(): Expr {
    let e = this.parseMul();
    while (this.isOp('+') || this.isOp('-')) {
      const at = this.tok;
      const op = at.text as ArithOp;
      this.i++;
      const right = this.parseMul();
      e = this.node({ kind: 'arith', op, left: e, right }, Math.max(this.depth(e), this.depth(right)), at);
    }
    return e;
  }

  private parseMul(): Expr {
    let e = this.parseUnary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('//') || this.isOp('%')) {
      const at = this.tok;
      const op = at.text as ArithOp;
      this.i++;
      const right = this.parseUnary();
      e = this.node({ kind: 'arith', op, left: e, right }, Math.max(this.depth(e), this.depth(right)), at);
    }
    return e;
  }

  /**
   * Signs are read in a loop (a long `- - - x` cannot recurse). Before a bare number they fold
   * into the literal; otherwise each minus is a `negate` node, innermost first.
   */
  private parseUnary(): Expr {
    const minus: Token[] = [];
    while (this.isOp('-') || this.isOp('+')) {
      if (this.isOp('-')) minus.push(this.tok);
      this.i++;
    }
    const start = this.tok;
    let e = this.parsePostfix();
    if (start.kind === 'number' && e.kind === 'literal' && (typeof e.value === 'number' || typeof e.value === 'bigint')) {
      let v: number | bigint = e.value;
      for (let k = 0; k < minus.length; k++) v = -v;
      return minus.length === 0 ? e : { kind: 'literal', value: v };
    }
    for (let k = minus.length - 1; k >= 0; k--) e = this.node({ kind: 'negate', arg: e }, this.depth(e), minus[k]!);
    return e;
  }

  /** `x::T::U`: casts bind tighter than signs. */
  private parsePostfix(): Expr {
    let e = this.parsePrimary();
    while (this.isOp('::')) {
      const at = this.tok;
      this.i++;
      e = this.node({ kind: 'cast', arg: e, type: this.parseType() }, this.depth(e), at);
    }
    return e;
  }

  /** A type name with optional parameters, upper-cased: `decimal(10, 2)` -> `DECIMAL(10,2)`. */
  private parseType(): string {
    const t = this.tok;
    if (t.kind !== 'ident') this.fail('a type name like INTEGER or DECIMAL(10,2)');
    this.i++;
    let name = t.text.toUpperCase();
    if (this.isOp('(')) {
      this.i++;
      const params: string[] = [];
      for (;;) {
        const p = this.tok;
        if (p.kind !== 'number' || !/^[0-9]+$/.test(p.text)) this.fail(`a number in the parameters of ${name}`);
        params.push(String(Number(p.text)));
        this.i++;
        if (this.isOp(',') && params.length < 2) {
          this.i++;
          continue;
        }
        break;
      }
      if (!this.isOp(')')) this.fail(`')' to close the parameters of ${name}`);
      this.i++;
      name += `(${params.join(',')})`;
    }
    return name;
  }

  /** Enter a construct that recurses (parentheses, CASE, COALESCE, CAST): bounded by MAX_EXPR_DEPTH. */
  private enter(at: Token): void {
    if (++this.open > MAX_EXPR_DEPTH) this.tooDeep(at);
  }

  private expectKeyword(word: string, note?: string): void {
    if (!this.isKeyword(word)) this.fail(word.toUpperCase(), this.tok, note);
    this.i++;
  }

  private expectOp(op: string, note?: string): void {
    if (!this.isOp(op)) this.fail(`'${op}'`, this.tok, note);
    this.i++;
  }

  private parseCase(at: Token): Expr {
    this.enter(at);
    this.i++;
    // simple CASE (`CASE x WHEN v THEN …`): each WHEN compares x = v
    const subject = this.isKeyword('when') ? null : this.parseOr();
    const whens: { when: Expr; then: Expr }[] = [];
    let d = subject === null ? 0 : this.depth(subject);
    if (!this.isKeyword('when')) this.fail('WHEN', this.tok, `in the CASE at position ${at.pos + 1}`);
    while (this.isKeyword('when')) {
      const whenTok = this.tok;
      this.i++;
      let when = this.parseOr();
      if (subject !== null) when = this.node({ kind: 'compare', op: '=', left: subject, right: when }, Math.max(this.depth(subject), this.depth(when)), whenTok);
      this.expectKeyword('then', `after WHEN in the CASE at position ${at.pos + 1}`);
      const then = this.parseOr();
      whens.push({ when, then });
      d = Math.max(d, this.depth(when), this.depth(then));
    }
    let otherwise: Expr | null = null;
    if (this.isKeyword('else')) {
      this.i++;
      otherwise = this.parseOr();
      d = Math.max(d, this.depth(otherwise));
    }
    this.expectKeyword('end', `to close the CASE at position ${at.pos + 1}`);
    this.open--;
    return this.node({ kind: 'case', whens, otherwise }, d, at);
  }

  private parseCoalesce(at: Token): Expr {
    this.enter(at);
    this.i += 2; // COALESCE (
    const args = [this.parseOr()];
    while (this.isOp(',')) {
      this.i++;
      args.push(this.parseOr());
    }
    this.expectOp(')', `to close the COALESCE at position ${at.pos + 1}`);
    this.open--;
    return this.node({ kind: 'coalesce', args }, Math.max(...args.map((a) => this.depth(a))), at);
  }

  /** `name(args)` of a function joinlab evaluates. */
  private parseCall(at: Token, name: string): Expr {
    this.enter(at);
    this.i += 2; // name (
    const args: Expr[] = [];
    if (!this.isOp(')')) {
      args.push(this.parseOr());
      while (this.isOp(',')) {
        this.i++;
        args.push(this.parseOr());
      }
    }
    this.expectOp(')', `to close ${name}( at position ${at.pos + 1}`);
    this.open--;
    return this.node({ kind: 'call', name, args }, Math.max(0, ...args.map((a) => this.depth(a))), at);
  }

  private parseCast(at: Token): Expr {
    this.enter(at);
    this.i += 2; // CAST (
    const arg = this.parseOr();
    this.expectKeyword('as', `in the CAST at position ${at.pos + 1}`);
    const type = this.parseType();
    this.expectOp(')', `to close the CAST at position ${at.pos + 1}`);
    this.open--;
    return this.node({ kind: 'cast', arg, type }, this.depth(arg), at);
  }

  private parsePrimary(): Expr {
    const t = this.tok;
    switch (t.kind) {
      case 'number':
        this.i++;
        return { kind: 'literal', value: this.number(t) };
      case 'string':
        this.i++;
        return { kind: 'literal', value: t.text };
      case 'op':
        if (t.text === '(') {
          this.enter(t);
          this.i++;
          const e = this.parseOr();
          if (!this.isOp(')')) this.fail("')'", this.tok, `to close the '(' at position ${t.pos + 1}`);
          this.i++;
          this.open--;
          return e;
        }
        break;
      case 'ident': {
        const word = t.text.toLowerCase();
        if (word === 'true' || word === 'false') {
          this.i++;
          return { kind: 'literal', value: word === 'true' };
        }
        if (word === 'null') {
          this.i++;
          return { kind: 'literal', value: null };
        }
        const next = this.tokens[this.i + 1]!;
        const openParen = next.kind === 'op' && next.text === '(';
        if (word === 'case') return this.parseCase(t);
        if (word === 'coalesce' && openParen) return this.parseCoalesce(t);
        if (word === 'cast' && openParen) return this.parseCast(t);
        if (openParen && FUNCTION_NAMES.has(word)) return this.parseCall(t, word);
        const side = SIDES[word];
        if (side !== undefined && next.kind === 'op' && next.text === '.') {
          this.i += 2;
          const nameTok = this.tok;
          if (nameTok.kind !== 'ident' && nameTok.kind !== 'qident') {
            this.fail(`a column name after '${t.text}.'`);
          }
          this.i++;
          return { kind: 'column', side, name: nameTok.text };
        }
        break;
      }
      default:
        break;
    }
    return this.fail('a column like l.x');
  }

  private number(t: Token): number | bigint {
    const v = Number(t.text);
    if (!Number.isFinite(v)) {
      throw new ExpressionError(`number ${t.text} is out of range at position ${t.pos + 1} in ${quoteInput(this.text)}`);
    }
    if (/^[0-9]+$/.test(t.text) && !Number.isSafeInteger(v)) {
      const exact = BigInt(t.text);
      if (exact !== BigInt(v)) {
        if (exact >= 1n << 127n) {
          throw new ExpressionError(
            `integer literal ${t.text} is out of range (beyond HUGEINT, 2^127 - 1) at position ${t.pos + 1} in ${quoteInput(this.text)}`,
          );
        }
        return exact;
      }
    }
    return v;
  }
}

function describe(t: Token): string {
  switch (t.kind) {
    case 'string':
      return `string '${t.text.replaceAll("'", "''")}'`;
    case 'qident':
      return `"${t.text.replaceAll('"', '""')}"`;
    case 'eof':
      return 'end of input';
    default:
      return `'${t.text}'`;
  }
}

/** Parse a residual-filter expression; throws ExpressionError naming the position and what was expected. */
export function parseExpr(text: string): Expr {
  return new Parser(text, tokenize(text)).parseAll();
}

// ---- formatting -------------------------------------------------------------------------------

/** Binding strength; a child printed at a lower level than its slot requires gets parentheses. */
const Level = { Or: 1, And: 2, Not: 3, Is: 4, Compare: 5, Concat: 6, Add: 7, Mul: 8, Unary: 9, Atom: 10 } as const;
type Level = number;

function levelOf(e: Expr): Level {
  switch (e.kind) {
    case 'or':
      return e.args.length === 0 ? Level.Atom : e.args.length === 1 ? levelOf(e.args[0]!) : Level.Or;
    case 'and':
      return e.args.length === 0 ? Level.Atom : e.args.length === 1 ? levelOf(e.args[0]!) : Level.And;
    case 'not':
      return Level.Not;
    case 'is-null':
      return Level.Is;
    case 'compare':
      return Level.Compare;
    case 'arith':
      return e.op === '+' || e.op === '-' ? Level.Add : Level.Mul;
    case 'literal':
      if (typeof e.value === 'bigint') return e.value < 0n ? Level.Unary : Level.Atom;
      return typeof e.value === 'number' && (e.value < 0 || Object.is(e.value, -0)) ? Level.Unary : Level.Atom;
    case 'negate':
      return Level.Unary;
    case 'call':
      if (e.name === '||' && e.args.length === 2) return Level.Concat;
      return isLikeInfix(e) ? Level.Compare : Level.Atom;
    case 'column':
    case 'case':
    case 'coalesce':
    case 'cast':
      return Level.Atom;
  }
}

/** A LIKE-family call printed as `x [NOT] [I]LIKE p [ESCAPE e]`. */
function isLikeInfix(e: Expr & { kind: 'call' }): boolean {
  return (e.name in LIKE_OPERATORS && e.args.length === 2) || (e.name in LIKE_ESCAPE_OPERATORS && e.args.length === 3);
}

const PLAIN_IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

function formatLiteral(v: Literal): string {
  if (v === null) return 'NULL';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v === 'string') return `'${v.replaceAll("'", "''")}'`;
  if (typeof v === 'bigint') return v.toString();
  if (!Number.isFinite(v)) throw new ExpressionError(`cannot format number literal ${v}: it has no SQL spelling`);
  if (Object.is(v, -0)) return '-0';
  // Beyond 2^53 String() prints the shortest round-trip digits padded with zeros, which is not
  // the exact value (and the parser rejects inexact integer literals): print the exact integer.
  if (Number.isInteger(v) && !Number.isSafeInteger(v) && Math.abs(v) < 1e21) return BigInt(v).toString();
  return String(v);
}

function formatName(name: string): string {
  return PLAIN_IDENT.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/** `e` printed where the grammar needs at least `min`: parenthesised when it binds looser. */
function formatAt(e: Expr, min: Level): string {
  const s = format(e);
  return levelOf(e) < min ? `(${s})` : s;
}

/**
 * Print an expression in the syntax `parseExpr` reads (see the module comment for round-trip
 * rules). An AST deeper than MAX_EXPR_DEPTH is an ExpressionError (checked without recursion).
 */
export function formatExpr(e: Expr): string {
  checkDepth(e);
  return format(e);
}

function format(e: Expr): string {
  switch (e.kind) {
    case 'column':
      return `${e.side === 'left' ? 'l' : 'r'}.${formatName(e.name)}`;
    case 'literal':
      return formatLiteral(e.value);
    case 'or':
    case 'and': {
      if (e.args.length === 0) return e.kind === 'and' ? 'TRUE' : 'FALSE';
      if (e.args.length === 1) return format(e.args[0]!);
      const lvl = e.kind === 'and' ? Level.And : Level.Or;
      // Operands of an n-ary node bind tighter than it; a nested node of the same kind keeps its
      // own parentheses so the tree shape survives the round trip.
      return e.args.map((a) => formatAt(a, lvl + 1)).join(e.kind === 'and' ? ' AND ' : ' OR ');
    }
    case 'not':
      return `NOT ${formatAt(e.arg, Level.Not)}`;
    case 'is-null':
      return `${formatAt(e.arg, Level.Is)} IS ${e.negated ? 'NOT ' : ''}NULL`;
    case 'compare':
      return `${formatAt(e.left, Level.Concat)} ${e.op} ${formatAt(e.right, Level.Concat)}`;
    case 'arith': {
      const lvl = e.op === '+' || e.op === '-' ? Level.Add : Level.Mul;
      return `${formatAt(e.left, lvl)} ${e.op} ${formatAt(e.right, lvl + 1)}`;
    }
    case 'negate': {
      // `-(5)`, not `-5` (which reads back as the literal -5); `- -x` keeps two signs apart
      const a = e.arg;
      if (a.kind === 'literal' && (typeof a.value === 'number' || typeof a.value === 'bigint')) return `-(${formatLiteral(a.value)})`;
      const inner = formatAt(a, Level.Unary);
      return inner.startsWith('-') ? `- ${inner}` : `-${inner}`;
    }
    case 'case': {
      const whens = e.whens.map((w) => `WHEN ${format(w.when)} THEN ${format(w.then)}`).join(' ');
      return `CASE ${whens}${e.otherwise === null ? '' : ` ELSE ${format(e.otherwise)}`} END`;
    }
    case 'coalesce':
      return `COALESCE(${e.args.map(format).join(', ')})`;
    case 'cast':
      return `CAST(${format(e.arg)} AS ${e.type})`;
    case 'call': {
      const a = e.args;
      if (e.name === '||' && a.length === 2) return `${formatAt(a[0]!, Level.Concat)} || ${formatAt(a[1]!, Level.Add)}`;
      if (isLikeInfix(e)) {
        const op = LIKE_OPERATORS[e.name] ?? LIKE_ESCAPE_OPERATORS[e.name]!;
        const escape = a.length === 3 ? ` ESCAPE ${formatAt(a[2]!, Level.Concat)}` : '';
        return `${formatAt(a[0]!, Level.Concat)} ${op} ${formatAt(a[1]!, Level.Concat)}${escape}`;
      }
      if (!FUNCTION_NAMES.has(e.name)) throw new ExpressionError(`cannot format a call of ${e.name}: joinlab has no such function`);
      return `${e.name}(${a.map(format).join(', ')})`;
    }
  }
}
