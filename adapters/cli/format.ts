/**
 * Plain-text tables for the terminal: right-aligned numbers, left-aligned text, one header rule.
 * Small enough that a dependency would cost more than it saves.
 */
export function formatTable(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const cells = rows.map((r) => r.map(cellText));
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((r) => (r[c] ?? '').length)));
  const numeric = header.map((_, c) => rows.length > 0 && rows.every((r) => typeof r[c] === 'number' || typeof r[c] === 'bigint' || r[c] == null));
  const line = (r: readonly string[]) => r.map((s, c) => (numeric[c] ? s.padStart(widths[c]!) : s.padEnd(widths[c]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

function cellText(v: unknown): string {
  if (v === undefined) return '-'; // "not applicable", as opposed to a NULL value
  if (v === null) return 'NULL';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toPrecision(6).replace(/\.?0+$/, '');
  if (v instanceof Uint8Array) return `\\x${Buffer.from(v).toString('hex')}`;
  if (v instanceof Date) return v.toISOString();
  return String(v);
}
