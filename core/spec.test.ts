import { describe, expect, it } from 'vitest';
import { UsageError } from './errors.ts';
import { parseOn, parseRange, parseSelect, toJoinSpec } from './spec.ts';

describe('join spec parsing', () => {
  it('parses --on pairs, with optional side prefixes and quoted names', () => {
    expect(parseOn('a=b')).toEqual([{ left: 'a', right: 'b' }]);
    expect(parseOn(' l.a = r.b , c=d')).toEqual([
      { left: 'a', right: 'b' },
      { left: 'c', right: 'd' },
    ]);
    expect(parseOn('"odd name"="x"')).toEqual([{ left: 'odd name', right: 'x' }]);
  });

  it('rejects malformed --on with a UsageError quoting the text', () => {
    for (const bad of ['a', 'a=', '=b', 'a=b,', 'a==b', 'a=b=c']) {
      expect(() => parseOn(bad), bad).toThrow(UsageError);
    }
    expect(() => parseOn('a')).toThrow("--on expects LEFT=RIGHT[,LEFT2=RIGHT2…], got 'a'");
  });

  it('parses range predicates', () => {
    expect(parseRange('l.ts < r.ts')).toEqual({ left: 'ts', op: '<', right: 'ts' });
    expect(parseRange('a>=b')).toEqual({ left: 'a', op: '>=', right: 'b' });
    expect(() => parseRange('a = b')).toThrow(UsageError);
    expect(() => parseRange('a <')).toThrow(UsageError);
  });

  it('builds a spec with NULL rules and filter', () => {
    const s = toJoinSpec({ type: 'left-anti', on: 'k=k', nullAware: true, filter: 'l.a > 1' });
    expect(s.nullEquality).toBe('null-equals-nothing');
    expect(s.nullAware).toBe(true);
    expect(s.filter?.kind).toBe('compare');
    expect(toJoinSpec({ type: 'inner', on: 'k=k', nullEqualsNull: true }).nullEquality).toBe('null-equals-null');
    expect(() => toJoinSpec({ type: 'outer', on: 'k=k' })).toThrow(/unknown join type 'outer'/);
  });

  it('parses --select lists (quoted names too) and rejects empty items and duplicates', () => {
    expect(parseSelect('a')).toEqual(['a']);
    expect(parseSelect(' a , "b c" ,k_right')).toEqual(['a', 'b c', 'k_right']);
    expect(parseSelect('"x""y",z')).toEqual(['x"y', 'z']);
    expect(parseSelect(['v', 'mark'])).toEqual(['v', 'mark']);
    expect(() => parseSelect('')).toThrow(UsageError);
    expect(() => parseSelect('a,,b')).toThrow(/empty column name/);
    expect(() => parseSelect('a,a')).toThrow("--select names column 'a' twice");
    expect(() => parseSelect('a b')).toThrow(/--select expects NAME/);
    expect(toJoinSpec({ type: 'inner', on: 'k=k', select: 'v,k_right' }).select).toEqual(['v', 'k_right']);
    expect(toJoinSpec({ type: 'inner', on: 'k=k' }).select).toBeUndefined();
  });
});
