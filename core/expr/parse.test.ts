import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpressionError } from '../errors.ts';
import { and, arith, call, cast, caseWhen, cmp, coalesce, col, type Expr, exprDepth, isNull, lit, MAX_EXPR_DEPTH, negate, not, or } from './ast.ts';
import { formatExpr, parseExpr } from './parse.ts';

const la = col('left', 'a');
const lb = col('left', 'b');
const ra = col('right', 'a');
const rb = col('right', 'b');

function parseError(text: string): string {
  try {
    parseExpr(text);
  } catch (e) {
    expect(e).toBeInstanceOf(ExpressionError);
    return (e as Error).message;
  }
  throw new Error(`expected '${text}' to fail`);
}

describe('parseExpr: precedence', () => {
  it('OR < AND < NOT < comparison < +- < */ < unary minus', () => {
    expect(parseExpr('l.a + r.a * 2 > 3 AND NOT l.b OR r.b IS NULL')).toEqual(
      or(and(cmp('>', arith('+', la, arith('*', ra, lit(2))), lit(3)), not(lb)), isNull(rb)),
    );
    expect(parseExpr('l.a OR l.b AND r.a')).toEqual(or(la, and(lb, ra)));
    expect(parseExpr('NOT l.a = 1')).toEqual(not(cmp('=', la, lit(1))));
    expect(parseExpr('-l.a * 2')).toEqual(arith('*', negate(la), lit(2)));
    expect(parseExpr('2 - -3')).toEqual(arith('-', lit(2), lit(-3)));
    expect(parseExpr('l.a - r.a - 1')).toEqual(arith('-', arith('-', la, ra), lit(1)));
    expect(parseExpr('l.a / r.a * 2')).toEqual(arith('*', arith('/', la, ra), lit(2)));
    expect(parseExpr('l.a - (r.a - 1)')).toEqual(arith('-', la, arith('-', ra, lit(1))));
    expect(parseExpr('(l.a OR l.b) AND r.a')).toEqual(and(or(la, lb), ra));
  });

  it('IS NULL binds looser than comparison and tighter than NOT (as in DuckDB)', () => {
    expect(parseExpr('l.a = 1 IS NULL')).toEqual(isNull(cmp('=', la, lit(1))));
    expect(parseExpr('NOT l.a IS NULL')).toEqual(not(isNull(la)));
    expect(parseExpr('l.a IS NOT NULL IS NULL')).toEqual(isNull(isNull(la, true)));
  });

  it('% and // bind like * and / (left-associative), as in DuckDB', () => {
    expect(parseExpr('l.a + r.a % 2')).toEqual(arith('+', la, arith('%', ra, lit(2))));
    expect(parseExpr('l.a // 2 * 3')).toEqual(arith('*', arith('//', la, lit(2)), lit(3)));
    expect(parseExpr('l.a * 2 // 3 % 4')).toEqual(arith('%', arith('//', arith('*', la, lit(2)), lit(3)), lit(4)));
    expect(() => parseExpr('l.a / / r.a')).toThrow(ExpressionError);
    expect(formatExpr(arith('//', la, arith('%', ra, lit(3))))).toBe('l.a // (r.a % 3)');
  });

  it('flattens AND / OR chains into one n-ary node', () => {
    expect(parseExpr('l.a AND l.b AND r.a AND r.b')).toEqual(and(la, lb, ra, rb));
    expect(parseExpr('l.a or l.b or r.a')).toEqual(or(la, lb, ra));
  });
});

describe('parseExpr: tokens', () => {
  it('numbers', () => {
    const num = (t: string) => (parseExpr(t) as { value: number }).value;
    expect(num('42')).toBe(42);
    expect(num('1.5')).toBe(1.5);
    expect(num('.5')).toBe(0.5);
    expect(num('2.')).toBe(2);
    expect(num('1e3')).toBe(1000);
    expect(num('1.5E-2')).toBe(0.015);
    expect(num('2e+2')).toBe(200);
    expect(num('-7')).toBe(-7);
    expect(num('+7')).toBe(7);
    expect(Object.is(num('-0'), -0)).toBe(true);
    expect(num('9007199254740992')).toBe(2 ** 53);
    expect(num('1152921504606846976')).toBe(2 ** 60);
    // integers a double cannot hold are exact bigints (up to HUGEINT)
    expect(parseExpr('9007199254740993')).toEqual(lit(9007199254740993n));
    expect(parseExpr('-9007199254740993')).toEqual(lit(-9007199254740993n));
    expect(parseExpr('9223372036854775807')).toEqual(lit(9223372036854775807n));
    expect(num('9223372036854775808')).toBe(2 ** 63);
    expect(parseExpr('170141183460469231731687303715884105727')).toEqual(lit(2n ** 127n - 1n));
  });

  it("strings with '' escaping, booleans and NULL in any case", () => {
    expect(parseExpr("'it''s'")).toEqual(lit("it's"));
    expect(parseExpr("''")).toEqual(lit(''));
    expect(parseExpr("'héllo wörld ✓'")).toEqual(lit('héllo wörld ✓'));
    expect(parseExpr('TRUE')).toEqual(lit(true));
    expect(parseExpr('false')).toEqual(lit(false));
    expect(parseExpr('Null')).toEqual(lit(null));
  });

  it('column references: l/r/left/right, quoted names with "" escaping, keywords as names', () => {
    expect(parseExpr('l.x')).toEqual(col('left', 'x'));
    expect(parseExpr('R.x')).toEqual(col('right', 'x'));
    expect(parseExpr('left.Price')).toEqual(col('left', 'Price'));
    expect(parseExpr('right . qty')).toEqual(col('right', 'qty'));
    expect(parseExpr('l."odd name"')).toEqual(col('left', 'odd name'));
    expect(parseExpr('r."say ""hi"""')).toEqual(col('right', 'say "hi"'));
    expect(parseExpr('l.and')).toEqual(col('left', 'and'));
    expect(parseExpr('l."1st"')).toEqual(col('left', '1st'));
  });

  it('every comparison operator (!= and == as aliases)', () => {
    const ops = { '=': '=', '==': '=', '<>': '<>', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' } as const;
    for (const [text, op] of Object.entries(ops)) expect(parseExpr(`l.a ${text} r.a`)).toEqual(cmp(op, la, ra));
    expect(parseExpr('l.a>=r.a')).toEqual(cmp('>=', la, ra));
  });

  it('keywords are case-insensitive; whitespace is free', () => {
    expect(parseExpr('l.a is not null And not l.b oR r.a')).toEqual(or(and(isNull(la, true), not(lb)), ra));
    expect(parseExpr('\n\t( l.a )  ')).toEqual(la);
  });
});

describe('parseExpr: errors name the position and what was expected', () => {
  it('missing operand', () => {
    expect(parseError('l.a > ')).toBe("expected a column like l.x at position 7 in 'l.a > '");
    expect(parseError('l.a > foo')).toBe("expected a column like l.x at position 7 in 'l.a > foo', found 'foo'");
    expect(parseError('x.a = 1')).toBe("expected a column like l.x at position 1 in 'x.a = 1', found 'x'");
    expect(parseError('')).toBe("expected an expression at position 1 in ''");
  });

  it('bad tokens', () => {
    expect(parseError("l.a = 'abc")).toBe("unterminated string literal starting at position 7 in 'l.a = 'abc'");
    expect(parseError('l."abc = 1')).toMatch(/^unterminated quoted identifier starting at position 3/);
    expect(parseError('l.a # 1')).toBe("unexpected character '#' at position 5 in 'l.a # 1'");
    expect(parseError('l.a = 1e')).toBe("expected exponent digits in number at position 9 in 'l.a = 1e'");
    expect(parseError('l.a = 12abc')).toMatch(/unexpected 'a' after number at position 9/);
  });

  it('structure', () => {
    expect(parseError('(l.a = 1')).toBe("expected ')' at position 9 in '(l.a = 1' (to close the '(' at position 1)");
    expect(parseError('l.a = 1)')).toBe("expected end of input (unbalanced ')') at position 8 in 'l.a = 1)', found ')'");
    expect(parseError('l.a = 1 r.b')).toMatch(/^expected an operator, AND, OR, or end of input at position 9 .*found 'r'$/);
    expect(parseError('l.a IS 5')).toBe("expected NULL or NOT NULL after IS at position 8 in 'l.a IS 5', found '5'");
    expect(parseError('l.a IS NOT')).toBe("expected NULL after IS NOT at position 11 in 'l.a IS NOT'");
    expect(parseError('l. = 1')).toBe("expected a column name after 'l.' at position 4 in 'l. = 1', found '='");
    expect(parseError('l.a < r.a < 3')).toMatch(/^comparison operators do not chain: add parentheses before '<' at position 11/);
    expect(parseError('l.a AND')).toMatch(/position 8/);
    expect(parseError('(l.a = 1 r.b)')).toBe("expected ')' at position 10 in '(l.a = 1 r.b)', found 'r' (to close the '(' at position 1)");
  });

  it('literals out of range', () => {
    expect(parseError('l.a = 170141183460469231731687303715884105729')).toMatch(/integer literal 1701\d+ is out of range \(beyond HUGEINT.* position 7/);
    expect(parseError('l.a = 1e400')).toBe("number 1e400 is out of range at position 7 in 'l.a = 1e400'");
  });
});

describe('parseExpr: LIKE, ||, function calls', () => {
  const s = col('left', 's');
  it("[NOT] [I]LIKE [ESCAPE] are calls of DuckDB's operators; they bind like comparisons", () => {
    expect(parseExpr("l.s LIKE 'a%'")).toEqual(call('~~', s, lit('a%')));
    expect(parseExpr("l.s not ilike 'a%'")).toEqual(call('!~~*', s, lit('a%')));
    expect(parseExpr("l.s NOT LIKE 'a#%' ESCAPE '#'")).toEqual(call('not_like_escape', s, lit('a#%'), lit('#')));
    expect(parseExpr("NOT l.s LIKE 'a' AND l.s ILIKE 'b'")).toEqual(and(not(call('~~', s, lit('a'))), call('~~*', s, lit('b'))));
    expect(parseExpr("l.s || 'x' LIKE 'a' || '%'")).toEqual(call('~~', call('||', s, lit('x')), call('||', lit('a'), lit('%'))));
    expect(parseError("l.s LIKE 'a' LIKE 'b'")).toMatch(/do not chain/);
  });

  it('|| binds looser than + and tighter than comparisons, left to right', () => {
    expect(parseExpr("l.s || 'a' || 'b'")).toEqual(call('||', call('||', s, lit('a')), lit('b')));
    expect(parseExpr('l.s || 1 + 2 = l.t')).toEqual(cmp('=', call('||', s, arith('+', lit(1), lit(2))), col('left', 't')));
    expect(formatExpr(call('||', s, call('||', lit('a'), lit('b'))))).toBe("l.s || ('a' || 'b')");
  });

  it('function calls by name, any case; an unknown name is not a function', () => {
    expect(parseExpr('SUBSTRING(l.s, 1, 2)')).toEqual(call('substring', s, lit(1), lit(2)));
    expect(parseExpr("date_part('year', l.d) >= 1994")).toEqual(cmp('>=', call('date_part', lit('year'), col('left', 'd')), lit(1994)));
    expect(parseExpr('concat(l.s)')).toEqual(call('concat', s));
    expect(parseError('frobnicate(l.s)')).toMatch(/expected a column/);
  });
});

describe('parseExpr: CASE, COALESCE, CAST, unary minus', () => {
  it('searched and simple CASE, with and without ELSE', () => {
    expect(parseExpr('CASE WHEN l.a > 0 THEN 1 WHEN l.a < 0 THEN -1 ELSE 0 END')).toEqual(
      caseWhen(
        [
          { when: cmp('>', la, lit(0)), then: lit(1) },
          { when: cmp('<', la, lit(0)), then: lit(-1) },
        ],
        lit(0),
      ),
    );
    expect(parseExpr('case when l.b then r.a end')).toEqual(caseWhen([{ when: lb, then: ra }]));
    // CASE x WHEN v: each WHEN is x = v (DuckDB's simple CASE)
    expect(parseExpr("CASE l.a WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END")).toEqual(
      caseWhen(
        [
          { when: cmp('=', la, lit(1)), then: lit('one') },
          { when: cmp('=', la, lit(2)), then: lit('two') },
        ],
        lit('many'),
      ),
    );
    // a THEN holds a whole expression, OR included
    expect(parseExpr('CASE WHEN l.b THEN l.b OR r.b ELSE NOT l.b END = r.b')).toEqual(
      cmp('=', caseWhen([{ when: lb, then: or(lb, rb) }], not(lb)), rb),
    );
  });

  it('COALESCE and CAST (type names upper-cased, parameters without spaces); :: binds tighter than signs', () => {
    expect(parseExpr('COALESCE(l.a, r.a, 0)')).toEqual(coalesce(la, ra, lit(0)));
    expect(parseExpr('coalesce(l.a)')).toEqual(coalesce(la));
    expect(parseExpr('CAST(l.a AS decimal( 10 , 2 ))')).toEqual(cast(la, 'DECIMAL(10,2)'));
    expect(parseExpr('l.a::bigint::VARCHAR')).toEqual(cast(cast(la, 'BIGINT'), 'VARCHAR'));
    expect(parseExpr('l.a::INT + 1')).toEqual(arith('+', cast(la, 'INT'), lit(1)));
    expect(parseExpr('-5::TINYINT')).toEqual(negate(cast(lit(5), 'TINYINT'))); // DuckDB: -(5::TINYINT)
    expect(parseExpr("'2024-01-31'::DATE")).toEqual(cast(lit('2024-01-31'), 'DATE'));
    // the words stay usable as column names
    expect(parseExpr('l.case + l.coalesce + l.cast')).toEqual(arith('+', arith('+', col('left', 'case'), col('left', 'coalesce')), col('left', 'cast')));
  });

  it('signs before a bare number fold into the literal; any other minus is a negate node', () => {
    expect(parseExpr('-5')).toEqual(lit(-5));
    expect(parseExpr('- -5')).toEqual(lit(5));
    expect(parseExpr('-(5)')).toEqual(negate(lit(5)));
    expect(parseExpr('-l.a')).toEqual(negate(la));
    expect(parseExpr('- - l.a')).toEqual(negate(negate(la)));
    expect(parseExpr('+l.a')).toEqual(la);
    expect(parseExpr('-(l.a + 1)')).toEqual(negate(arith('+', la, lit(1))));
  });

  it('errors name what was expected and where', () => {
    expect(parseError('CASE l.a END')).toMatch(/^expected WHEN at position 10 in 'CASE l.a END', found 'END' \(in the CASE at position 1\)$/);
    expect(parseError('CASE WHEN l.a THEN 1')).toMatch(/^expected END at position 21 .*\(to close the CASE at position 1\)$/);
    expect(parseError('CASE WHEN l.a 1 END')).toMatch(/^expected THEN at position 15/);
    expect(parseError('COALESCE(l.a, r.a')).toMatch(/^expected '\)' at position 18 .*to close the COALESCE/);
    expect(parseError('CAST(l.a INTEGER)')).toMatch(/^expected AS at position 10/);
    expect(parseError('l.a::')).toMatch(/^expected a type name like INTEGER or DECIMAL\(10,2\) at position 6/);
    expect(parseError('l.a::DECIMAL(10,2,3)')).toMatch(/^expected '\)' to close the parameters of DECIMAL at position 18/);
    expect(parseError('l.a::DECIMAL(x)')).toMatch(/^expected a number in the parameters of DECIMAL at position 14/);
  });

  it('nested CASE / COALESCE / CAST 1000 deep is an ExpressionError, not a stack overflow', () => {
    expect(() => parseExpr(`${'COALESCE('.repeat(1000)}l.a${')'.repeat(1000)}`)).toThrow(/nests deeper than 256 levels/);
    expect(() => parseExpr(`${'CAST('.repeat(1000)}l.a${' AS INT)'.repeat(1000)}`)).toThrow(/nests deeper than 256 levels/);
    expect(() => parseExpr(`${'CASE WHEN l.b THEN '.repeat(1000)}1${' END'.repeat(1000)}`)).toThrow(/nests deeper than 256 levels/);
    expect(() => parseExpr(`l.a${'::INT'.repeat(1000)}`)).toThrow(/nests deeper than 256 levels/);
  });
});

describe('depth limits: nothing the parser reads can overflow the stack', () => {
  const tooDeep = (text: string): string => {
    let err: unknown;
    try {
      parseExpr(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ExpressionError);
    return (err as Error).message;
  };

  it('parentheses nested 1000 deep', () => {
    const msg = tooDeep(`${'('.repeat(1000)}l.a${')'.repeat(1000)} > 0`);
    expect(msg).toMatch(new RegExp(`^filter nests deeper than ${MAX_EXPR_DEPTH} levels at position ${MAX_EXPR_DEPTH + 1} in '\\(\\(\\(`));
    expect(msg.length).toBeLessThan(300); // the input is abbreviated, not echoed whole
  });

  it('a 20000-term + chain, 20000 NOTs, 20000 minus signs', () => {
    expect(tooDeep(`l.a${' + l.a'.repeat(19_999)} > 0`)).toMatch(/nests deeper than 256 levels at position \d+ in 'l\.a \+ l\.a.*…' \(\d+ characters\)$/);
    expect(tooDeep(`${'NOT '.repeat(20_000)}l.b`)).toMatch(/nests deeper than 256 levels at position \d+/);
    expect(tooDeep(`${'- '.repeat(20_000)}l.a > 0`)).toMatch(/nests deeper than 256 levels/);
    // signs on a literal fold into it: no nesting at all
    expect(parseExpr(`${'- '.repeat(20_000)}5`)).toEqual(lit(5));
  });

  it('up to the limit is fine, and AND/OR chains are one level however long', () => {
    const e = parseExpr(`${'('.repeat(200)}l.a${')'.repeat(200)}${' + l.a'.repeat(200)} > 0`);
    expect(exprDepth(e)).toBe(202);
    expect(parseExpr(formatExpr(e))).toEqual(e);
    const wide = parseExpr(Array.from({ length: 20_000 }, (_, i) => `l.a = ${i}`).join(' OR '));
    expect(wide.kind === 'or' && wide.args.length).toBe(20_000);
    expect(exprDepth(wide)).toBe(3);
  });

  it('an AST built in code deeper than the limit is refused by formatExpr, not a stack overflow', () => {
    let e: Expr = la;
    for (let i = 0; i < 20_000; i++) e = arith('+', e, lit(1));
    expect(() => formatExpr(e)).toThrow(/nests deeper than 256 levels/);
    let n: Expr = lb;
    for (let i = 0; i < 20_000; i++) n = not(n);
    expect(() => formatExpr(n)).toThrow(ExpressionError);
  });
});

describe('formatExpr', () => {
  it('prints the fewest parentheses', () => {
    const cases: [string, string][] = [
      ['l.a + (r.a * 2)', 'l.a + r.a * 2'],
      ['(l.a + r.a) * 2', '(l.a + r.a) * 2'],
      ['l.a - (r.a - 1)', 'l.a - (r.a - 1)'],
      ['((l.a)) AND (l.b OR r.a)', 'l.a AND (l.b OR r.a)'],
      ['NOT (l.a = 1)', 'NOT l.a = 1'],
      ['(NOT l.a) = r.b', '(NOT l.a) = r.b'],
      ['(l.a = 1) IS NULL', 'l.a = 1 IS NULL'],
      ['(l.a IS NULL) = r.b', '(l.a IS NULL) = r.b'],
      ["l.\"odd name\" <> 'it''s'", "l.\"odd name\" <> 'it''s'"],
      ['left.x != -5', 'l.x <> -5'],
      ['-r.x', '-r.x'],
      ['l.a = TRUE or r.b is not null', 'l.a = TRUE OR r.b IS NOT NULL'],
      ['case when l.a then 1 end', 'CASE WHEN l.a THEN 1 END'],
      ['CASE WHEN l.a OR l.b THEN r.a + 1 ELSE -r.a END * 2', 'CASE WHEN l.a OR l.b THEN r.a + 1 ELSE -r.a END * 2'],
      ['coalesce(l.a,1)', 'COALESCE(l.a, 1)'],
      ['l.a::decimal(5, 2)', 'CAST(l.a AS DECIMAL(5,2))'],
      ['-(5)', '-(5)'],
      ['-(-5)', '-(-5)'],
      ['- -l.a', '- -l.a'],
      ['-(l.a * 2)', '-(l.a * 2)'],
      ['-l.a * 2', '-l.a * 2'],
    ];
    for (const [input, expected] of cases) expect(formatExpr(parseExpr(input))).toBe(expected);
  });

  it('degenerate n-ary nodes and non-finite literals', () => {
    expect(formatExpr(and())).toBe('TRUE');
    expect(formatExpr(or())).toBe('FALSE');
    expect(formatExpr(and(la))).toBe('l.a');
    expect(formatExpr(and(or(la, lb), or(ra)))).toBe('(l.a OR l.b) AND r.a');
    expect(() => formatExpr(lit(NaN))).toThrow(ExpressionError);
    expect(() => formatExpr(cmp('<', la, lit(Infinity)))).toThrow(/no SQL spelling/);
  });

  it('prints exact digits for large integers', () => {
    expect(formatExpr(lit(2 ** 60))).toBe('1152921504606846976');
    expect(formatExpr(lit(-(2 ** 60)))).toBe('-1152921504606846976');
    expect(formatExpr(lit(1e21))).toBe('1e+21');
    expect(formatExpr(lit(-0))).toBe('-0');
  });
});

// ---- round trip over generated ASTs ----------------------------------------------------------------

const literalArb: fc.Arbitrary<Expr> = fc
  .oneof(
    fc.integer({ min: -1000, max: 1000 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(2 ** 53, 2 ** 60, -(2 ** 63), 1e21, 5e-324, -0),
    fc.bigInt({ min: -(2n ** 127n) + 1n, max: 2n ** 127n - 1n }).filter((v) => BigInt(Number(v)) !== v),
    fc.string({ maxLength: 8 }),
    fc.constantFrom("it's", "''", '"', 'ünï©ødé', ''),
    fc.boolean(),
    fc.constant(null),
  )
  .map((v) => lit(v));

const nameArb = fc.oneof(fc.constantFrom('a', 'price', 'and', 'NULL', 'x_1', 'odd name', 'say "hi"', 'ü'), fc.string({ minLength: 1, maxLength: 6 }));
const columnArb: fc.Arbitrary<Expr> = fc.tuple(fc.constantFrom('left' as const, 'right' as const), nameArb).map(([s, n]) => col(s, n));

const { expr: exprArb } = fc.letrec<{ expr: Expr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    columnArb,
    literalArb,
    fc
      .tuple(fc.constantFrom('=', '<>', '<', '<=', '>', '>=' as const), tie('expr'), tie('expr'))
      .map(([op, l, r]) => cmp(op as '=', l, r)),
    fc.tuple(fc.constantFrom('+', '-', '*', '/', '//', '%' as const), tie('expr'), tie('expr')).map(([op, l, r]) => arith(op as '+', l, r)),
    fc.array(tie('expr'), { minLength: 2, maxLength: 4 }).map((args) => and(...args)),
    fc.array(tie('expr'), { minLength: 2, maxLength: 4 }).map((args) => or(...args)),
    tie('expr').map((e) => not(e)),
    fc.tuple(tie('expr'), fc.boolean()).map(([e, n]) => isNull(e, n)),
    fc
      .tuple(fc.array(fc.tuple(tie('expr'), tie('expr')), { minLength: 1, maxLength: 3 }), fc.option(tie('expr'), { nil: null }))
      .map(([ws, o]) => caseWhen(ws.map(([when, then]) => ({ when, then })), o)),
    fc.array(tie('expr'), { minLength: 1, maxLength: 3 }).map((args) => coalesce(...args)),
    fc.tuple(tie('expr'), fc.constantFrom('INTEGER', 'BIGINT', 'DECIMAL(10,2)', 'DECIMAL(5)', 'VARCHAR', 'DATE', 'TIMESTAMP_NS')).map(([e, t]) => cast(e, t)),
    tie('expr').map((e) => negate(e)),
    fc.tuple(fc.constantFrom('~~', '!~~', '~~*', '!~~*', '||', 'prefix', 'contains', 'date_part'), tie('expr'), tie('expr')).map(([f, a, b]) => call(f, a, b)),
    fc.tuple(fc.constantFrom('like_escape', 'not_ilike_escape', 'substring'), tie('expr'), tie('expr'), tie('expr')).map(([f, a, b, c]) => call(f, a, b, c)),
    fc.tuple(fc.constantFrom('year', 'dayofweek', 'concat'), tie('expr')).map(([f, a]) => call(f, a)),
  ),
}));

describe('formatExpr / parseExpr round trip', () => {
  it('parseExpr(formatExpr(e)) deep-equals e for generated ASTs (seeded)', () => {
    fc.assert(
      fc.property(exprArb, (e) => {
        const text = formatExpr(e);
        expect(parseExpr(text)).toEqual(e);
        expect(formatExpr(parseExpr(text))).toBe(text);
      }),
      { seed: 20240531, numRuns: 2000 },
    );
  });
});
