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
}

export function formatTable(header: readonly string[], rows: readonly (readonly unknown[])[], options: FormatTableOptions = {}): string {
  const width = options.maxCellWidth ?? Infinity;
  const head = header.map((h) => cut(oneLineText(h), width));
  const cells = rows.map((r) => r.map((v) => cellText(v, width)));
  const widths = head.map((h, c) => Math.max(h.length, ...cells.map((r) => (r[c] ?? '').length)));
  const numeric = head.map((_, c) => rows.length > 0 && rows.every((r) => typeof r[c] === 'number' || typeof r[c] === 'bigint' || r[c] == null || isBound(r[c])));
  const line = (r: readonly string[]) => r.map((s, c) => (numeric[c] ? s.padStart(widths[c]!) : s.padEnd(widths[c]!))).join('  ').trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
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
