/**
 * The terminal tables: a preview cell is cut to a width with the number of bytes cut (a 1 MB
 * string used to print in full), no cell can break its row with a newline, and a column of
 * numbers stays right-aligned with a lower bound (`> 50`) among them.
 */
import { describe, expect, it } from 'vitest';
import { formatTable, terminalWidth, wrapText } from './format.ts';

describe('formatTable', () => {
  it('cuts long cells to maxCellWidth and says how many bytes were cut', () => {
    const big = 'x'.repeat(1 << 20);
    const out = formatTable(['k', 'big'], [[1, big]], { maxCellWidth: 40 });
    expect(out.split('\n')[2]).toBe(`1  ${'x'.repeat(40)}…(+1048536 bytes)`);
    expect(out.length).toBeLessThan(200);
  });

  it('counts UTF-8 bytes of text, bytes of binary values, and never splits a surrogate pair', () => {
    const [text, bin, emoji] = formatTable(['t', 'b', 'e'], [['é'.repeat(50), new Uint8Array(100).fill(0xab), `${'a'.repeat(39)}😀tail`]], { maxCellWidth: 40 })
      .split('\n')[2]!
      .split(/\s{2,}/);
    expect(text).toBe(`${'é'.repeat(40)}…(+20 bytes)`);
    expect(bin).toBe(`\\x${'ab'.repeat(19)}…(+81 bytes)`);
    expect(emoji).toBe(`${'a'.repeat(39)}…(+8 bytes)`); // 4 bytes of 😀, 4 of 'tail'
  });

  it('writes control characters as escapes, so every row stays one line', () => {
    const out = formatTable(['name\nx', 's'], [['a\nb', 'c\td\u0000']]);
    expect(out.split('\n')).toHaveLength(3);
    expect(out).toContain('a\\nb');
    expect(out).toContain('c\\td\\x00');
    expect(out).toContain('name\\nx');
  });

  it('leaves short cells and tables without a width alone', () => {
    const long = 'y'.repeat(500);
    expect(formatTable(['a'], [[long]])).toBe(`a\n${'-'.repeat(500)}\n${long}`);
    expect(formatTable(['n', 's'], [[1.5, 'ok']], { maxCellWidth: 40 })).toBe('  n  s\n---  --\n1.5  ok');
  });

  it('right-aligns a column of numbers that holds a lower bound such as `> 50`; other text stays left', () => {
    expect(formatTable(['ms'], [[7], ['> 50'], [undefined]])).toBe('  ms\n----\n   7\n> 50\n   -');
    expect(formatTable(['x'], [[7], ['>50'], ['a > 5']])).toBe('x\n-----\n7\n>50\na > 5');
  });
});

describe('wrapText and formatTable maxWidth', () => {
  it('wraps at spaces, splits a word longer than a line, keeps newlines', () => {
    expect(wrapText('aa bb cc dd', 5)).toEqual(['aa bb', 'cc dd']);
    expect(wrapText('abcdefghij x', 4)).toEqual(['abcd', 'efgh', 'ij x']);
    expect(wrapText('one\ntwo three', 20)).toEqual(['one', 'two three']);
  });

  it('wraps a text last column under itself so no line passes maxWidth', () => {
    const out = formatTable(['k', 'description'], [['a', 'word '.repeat(30).trim()]], { maxWidth: 40 });
    const lines = out.split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(40);
    expect(lines[3]!.startsWith(' '.repeat(3))).toBe(true); // continuation under the column
    expect(lines.slice(2).map((l) => l.slice(3).trim()).join(' ')).toBe('word '.repeat(30).trim());
  });

  it('terminalWidth: the columns of a terminal, else 100', () => {
    expect(terminalWidth({ isTTY: true, columns: 132 })).toBe(132);
    expect(terminalWidth({ isTTY: false, columns: 132 })).toBe(100);
    expect(terminalWidth({})).toBe(100);
  });
});
