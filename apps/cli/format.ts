/**
 * Plain-text tables for the terminal: right-aligned numbers, left-aligned text, one header rule.
 * Small enough that a dependency would cost more than it saves.
 *
 * Cells are one line each: control characters in text (a newline inside a string value) are
 * written as escapes, or one value would break every row after it. With `maxCellWidth` (the join
 * preview) a longer cell keeps its first `maxCellWidth` characters and says how many bytes were
 * cut — `…(+1048536 bytes)` — so a 1 MB string prints as one readable row, and the reader knows
 * it was cut and by how much (UTF-8 bytes of text; bytes of a binary value, shown as hex).
 *
 * A column is right-aligned when every cell is a number (or empty); a lower bound written `> 50`
 * (an experiment's time past its timeout) counts as a number there, so one timeout does not turn
 * a column of times left.
 */
export interface FormatTableOptions {
  /** Longest cell (and header) in characters before it is cut (default: no limit). */
  readonly maxCellWidth?: number;
  /**
   * Widest line in characters (default: no limit): a text last column (a description) is then
   * word-wrapped onto continuation lines under itself, so that no line passes `maxWidth` — as long
   * as the columns before it leave it at least `MIN_WRAP` characters.
   */
  readonly maxWidth?: number;
}

/** The narrowest a wrapped last column gets, however wide the columns before it are. */
const MIN_WRAP = 24;

export function formatTable(header: readonly string[], rows: readonly (readonly unknown[])[], options: FormatTableOptions = {}): string {
  const width = options.maxCellWidth ?? Infinity;
  const head = header.map((h) => cut(oneLineText(h), width));
  const cells = rows.map((r) => r.map((v) => cellText(v, width)));
  const widths = head.map((h, c) => Math.max(h.length, ...cells.map((r) => (r[c] ?? '').length)));
  const numeric = head.map((_, c) => rows.length > 0 && rows.every((r) => typeof r[c] === 'number' || typeof r[c] === 'bigint' || r[c] == null || isBound(r[c])));
  const last = head.length - 1;
  const indent = widths.slice(0, last).reduce((n, w) => n + w + 2, 0);
  const wrapAt = options.maxWidth !== undefined && last >= 0 && !numeric[last] && indent + widths[last]! > options.maxWidth ? Math.max(MIN_WRAP, options.maxWidth - indent) : Infinity;
  if (wrapAt !== Infinity) widths[last] = Math.min(widths[last]!, wrapAt);
  const line = (r: readonly string[]) => r.map((s, c) => (numeric[c] ? s.padStart(widths[c]!) : s.padEnd(widths[c]!))).join('  ').trimEnd();
  const lines = (r: readonly string[]): string[] => {
    if (wrapAt === Infinity) return [line(r)];
    const [first = '', ...rest] = wrapText(r[last] ?? '', wrapAt);
    return [line([...r.slice(0, last), first]), ...rest.map((t) => `${' '.repeat(indent)}${t}`)];
  };
  return [...lines(head), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.flatMap(lines)].join('\n');
}

/** Columns of the terminal stdout writes to, or 100 when it is not a terminal (a pipe, a file). */
export function terminalWidth(stream: { isTTY?: boolean; columns?: number } = process.stdout): number {
  return stream.isTTY === true && typeof stream.columns === 'number' && stream.columns > 0 ? stream.columns : 100;
}

/**
 * `text` word-wrapped into lines of at most `width` characters: breaks at spaces, a word longer
 * than a line is split, and a line's own newlines are kept. Every line is trimmed at its end.
 */
export function wrapText(text: string, width: number): string[] {
  const w = Math.max(1, Math.floor(width));
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    const lead = /^\s*/.exec(paragraph)![0];
    let cur = '';
    for (const word of paragraph.trim().split(/\s+/).filter((x) => x !== '')) {
      let rest = word;
      const room = cur === '' ? w - lead.length : w - cur.length - 1;
      if (rest.length <= room) {
        cur = cur === '' ? `${lead}${rest}` : `${cur} ${rest}`;
        continue;
      }
      if (cur !== '') out.push(cur);
      cur = '';
      while (lead.length + rest.length > w) {
        const take = Math.max(1, w - lead.length);
        out.push(`${lead}${rest.slice(0, take)}`);
        rest = rest.slice(take);
      }
      if (rest !== '') cur = `${lead}${rest}`;
    }
    out.push(cur);
  }
  return out;
}

/** `> 50`, `> 1.667`: a number known only from below. */
function isBound(v: unknown): boolean {
  return typeof v === 'string' && /^> \d[\d.,]*$/.test(v);
}

function cellText(v: unknown, width: number): string {
  if (v === undefined) return '-'; // "not applicable", as opposed to a NULL value
  if (v === null) return 'NULL';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toPrecision(6).replace(/\.?0+$/, '');
  if (v instanceof Uint8Array) return binaryText(v, width);
  if (v instanceof Date) return v.toISOString();
  return cut(oneLineText(String(v)), width);
}

const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Control characters as escapes: a cell stays on its line. */
function oneLineText(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f]/g, (c) => ESCAPES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** The first `width` characters (whole code points) and a marker with the bytes left out. */
function cut(s: string, width: number): string {
  if (s.length <= width) return s;
  let end = width;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--; // do not split a surrogate pair
  return `${s.slice(0, end)}…(+${Buffer.byteLength(s.slice(end), 'utf8')} bytes)`;
}

function binaryText(v: Uint8Array, width: number): string {
  const keep = Math.max(0, Math.floor((width - 2) / 2)); // '\x' + two hex digits per byte
  if (v.length <= keep) return `\\x${Buffer.from(v).toString('hex')}`;
  return `\\x${Buffer.from(v.subarray(0, keep)).toString('hex')}…(+${v.length - keep} bytes)`;
}
