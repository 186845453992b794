/**
 * A dev tool for writing sqllogictest files: every `query` record's expected block (and its
 * column-type letters) rewritten from DUCKDB's answer — never joinlab's — so a corpus file is
 * written as setup + queries with empty `----` blocks and filled in by
 *
 *   node bin/run-ts.mjs apps/sqllogictest/expected.ts FILE…      (rewrites the files in place)
 *   node bin/run-ts.mjs apps/sqllogictest/expected.ts --check FILE…  (exit 1 when one differs)
 *
 * The file's records run in order in a fresh embedded DuckDB (threads = 1), loops expanded as the
 * runner expands them (parse.ts); a query inside a loop must give the same block on every
 * iteration (it has one block). Values are printed the way the runner prints joinlab's result
 * (run.ts): `CAST(v AS VARCHAR)`, `NULL`, `(empty)` for the empty string. Rows are written in the
 * query's order for `nosort`, sorted for `rowsort` (one value per line, sorted, for `valuesort`).
 * Types: `I` for integer columns, `R` for FLOAT / DOUBLE / DECIMAL, `T` for anything else.
 * Records under `mode skip` are filled too (the runner skips them; the answer is ready for when
 * the skip is lifted).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { parseSltFile } from './parse.ts';

const INTEGER = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)$/;
const REAL = /^(FLOAT|DOUBLE|DECIMAL.*)$/;

function letter(type: string): string {
  if (INTEGER.test(type)) return 'I';
  if (REAL.test(type)) return 'R';
  return 'T';
}

interface Block {
  readonly types: string;
  readonly lines: readonly string[];
}

/** DuckDB's answer to one query record, as the header's type letters and the expected lines. */
async function answer(duck: DuckDBSession, sql: string, sort: string): Promise<Block> {
  const described = await duck.queryRows(`DESCRIBE ${sql}`);
  const types = described.map((r) => letter(String(r[1])));
  const cols = types.map((_t, i) => `#${i + 1}`);
  const printed = cols.map((c) => `CASE WHEN ${c} IS NULL THEN 'NULL' WHEN CAST(${c} AS VARCHAR) = '' THEN '(empty)' ELSE CAST(${c} AS VARCHAR) END`);
  const rows = (await duck.queryRows(`SELECT ${printed.join(', ')} FROM (${sql})`)).map((r) => r.map(String));
  for (const r of rows) for (const v of r) if (v.includes('\t') || v.includes('\n') || v.trim() !== v) throw new Error(`a value that cannot be written in an expected block: ${JSON.stringify(v)}`);
  let lines: string[];
  if (sort === 'valuesort') lines = rows.flat().sort();
  else {
    if (sort === 'rowsort') rows.sort(cmpRows);
    lines = rows.map((r) => r.join('\t'));
  }
  return { types: types.join(''), lines };
}

function cmpRows(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}

/** `text` with every query's types and expected block replaced by DuckDB's answer. */
export async function fillExpected(text: string, path = '<text>'): Promise<string> {
  // records between `mode skip` and `mode unskip` (joinlab gets them wrong today) get DuckDB's
  // answers too, so they are ready when the skip is lifted
  const unskipped = text
    .split('\n')
    .map((l) => (/^mode\s+(skip|unskip)\s*$/.test(l.trim()) ? '#' : l))
    .join('\n');
  const file = parseSltFile(unskipped, path);
  const blocks = new Map<number, Block>();
  const duck = await DuckDBSession.open({ threads: 1 });
  try {
    for (const r of file.records) {
      if (r.kind === 'statement') {
        let error: unknown = null;
        try {
          await duck.run(r.sql);
        } catch (e) {
          error = e;
        }
        if (r.expect === 'ok' && error !== null) throw new Error(`${path}:${r.line}: statement failed in DuckDB: ${(error as Error).message}`);
        if (r.expect === 'error' && error === null) throw new Error(`${path}:${r.line}: statement succeeded in DuckDB, the record expects an error`);
      } else if (r.kind === 'query' && r.expected === null) {
        // a query without `----` only has to run: it has no block to fill
        try {
          await duck.run(r.sql);
        } catch (e) {
          throw new Error(`${path}:${r.line}: ${(e as Error).message}`);
        }
      } else if (r.kind === 'query') {
        let b: Block;
        try {
          b = await answer(duck, r.sql, r.sort);
        } catch (e) {
          throw new Error(`${path}:${r.line}: ${(e as Error).message}`);
        }
        const seen = blocks.get(r.line);
        if (seen !== undefined && (seen.types !== b.types || seen.lines.join('\n') !== b.lines.join('\n'))) throw new Error(`${path}:${r.line}: the query gives different answers on different loop iterations`);
        blocks.set(r.line, b);
      }
    }
  } finally {
    duck.close();
  }
  const lines = text.split('\n');
  // from the last record up, so earlier line numbers stay valid
  for (const [line, b] of [...blocks].sort((x, y) => y[0] - x[0])) {
    const at = line - 1;
    const words = lines[at]!.trim().split(/\s+/);
    words[1] = b.types;
    lines[at] = words.join(' ');
    let dashes = at + 1;
    while (lines[dashes]!.trim() !== '----') dashes++;
    let end = dashes + 1;
    while (end < lines.length && lines[end]!.trim() !== '') end++;
    lines.splice(dashes + 1, end - dashes - 1, ...b.lines);
  }
  return lines.join('\n');
}

async function main(argv: readonly string[]): Promise<number> {
  const check = argv.includes('--check');
  const paths = argv.filter((a) => a !== '--check');
  let stale = 0;
  for (const p of paths) {
    const text = await readFile(p, 'utf8');
    const filled = await fillExpected(text, p);
    if (filled === text) continue;
    if (check) {
      stale++;
      process.stdout.write(`${p}: expected blocks differ from DuckDB's answers\n`);
    } else {
      await writeFile(p, filled);
      process.stdout.write(`${p}: rewritten\n`);
    }
  }
  return stale === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}
