/**
 * sqllogictest files in DuckDB's dialect, as records (issue 14: `joinlab sqllogictest`). This is
 * the file format only — which records a runner sends to the embedded DuckDB (setup statements)
 * and which through joinlab (queries) is the runner's business.
 *
 * The format, as DuckDB's runner reads it (duckdb/duckdb test/sqlite/sqllogictest.cpp and
 * sqllogic_parser.cpp; sqllogictest's original description at sqlite.org/sqllogictest):
 *  - records are separated by blank lines; `#` starts a comment line;
 *  - `statement ok|error|maybe`, then the SQL up to a blank line; an `error` record may carry
 *    `----` and the expected message (a substring, or a regex after `<REGEX>:`);
 *  - `query <types> [nosort|rowsort|valuesort] [label]`, then the SQL up to `----`, then the
 *    expected result up to a blank line: one row per line, columns separated by tabs (or, as
 *    DuckDB's files often write them, by single spaces when a row has as many fields as types), or
 *    `N values hashing to H`;
 *  - `skipif <engine>` / `onlyif <engine>` before a record (the engine here is `duckdb`);
 *  - `loop var from to` / `foreach var v1 v2 …` / `concurrentloop` … `endloop`, expanded here
 *    with `${var}` substituted (nested loops too);
 *  - `require <extension>`, `mode skip` / `mode unskip`, `halt`, `hash-threshold N`;
 *  - anything else (`load`, `restart`, `set seed`, …) becomes a `skip` record with its reason, so
 *    a runner reports it instead of silently passing it.
 * Errors in the file itself (a query without `----`, an unclosed loop, a bad loop range) are a
 * `UsageError` naming the file and line.
 */
import { UsageError } from '../../core/errors.ts';

export type SortMode = 'nosort' | 'rowsort' | 'valuesort';

export type SltRecord =
  | { readonly kind: 'statement'; readonly expect: 'ok' | 'error' | 'maybe'; readonly sql: string; readonly error: string | null; readonly line: number }
  | {
      readonly kind: 'query';
      /** One letter per column: I integer, T text, R real (others kept as written). */
      readonly types: string;
      readonly sort: SortMode;
      readonly label: string | null;
      readonly sql: string;
      /** The expected rows, each as its column values, or a hash of the values. */
      readonly expected: { readonly rows: readonly (readonly string[])[] } | { readonly values: number; readonly hash: string };
      readonly line: number;
    }
  | { readonly kind: 'skip'; readonly reason: string; readonly line: number };

export interface SltFile {
  readonly path: string;
  readonly records: readonly SltRecord[];
  /** Extensions the file requires (`require json`). */
  readonly requires: readonly string[];
}

interface Line {
  readonly text: string;
  readonly no: number;
}

const ENGINE = 'duckdb';

/** Parses the text of one sqllogictest file (`path` is for messages). */
export function parseSltFile(text: string, path = '<text>'): SltFile {
  const lines: Line[] = text.split(/\r?\n/).map((t, i) => ({ text: t, no: i + 1 }));
  const requires: string[] = [];
  const records: SltRecord[] = [];
  const fail = (no: number, msg: string): never => {
    throw new UsageError(`${path}:${no}: ${msg}`);
  };

  /** Expands lines[from, to) into records with `vars` substituted; returns where it stopped. */
  const block = (from: number, to: number, vars: ReadonlyMap<string, string>, out: SltRecord[], state: { skipping: boolean; halted: boolean }): void => {
    let i = from;
    const sub = (s: string): string => s.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (m, name: string) => vars.get(name) ?? m);
    let condition: { only: boolean; engine: string } | null = null;
    while (i < to && !state.halted) {
      const raw = lines[i]!;
      const t = sub(raw.text).trim();
      if (t === '' || t.startsWith('#')) {
        i++;
        continue;
      }
      const words = t.split(/\s+/);
      const head = words[0]!;
      const gathered = (start: number, stopAtDashes: boolean): { body: string[]; dashes: number; next: number } => {
        const body: string[] = [];
        let j = start;
        let dashes = -1;
        while (j < to && lines[j]!.text.trim() !== '') {
          if (stopAtDashes && lines[j]!.text.trim() === '----') {
            dashes = j;
            break;
          }
          body.push(sub(lines[j]!.text));
          j++;
        }
        return { body, dashes, next: j };
      };
      const emit = (r: SltRecord): void => {
        const skipByCondition = condition !== null && (condition.only ? condition.engine !== ENGINE : condition.engine === ENGINE);
        condition = null;
        if (state.skipping || skipByCondition) out.push({ kind: 'skip', reason: state.skipping ? 'mode skip' : 'skipif/onlyif', line: r.line });
        else out.push(r);
      };
      switch (head) {
        case 'skipif':
        case 'onlyif':
          condition = { only: head === 'onlyif', engine: words[1] ?? '' };
          i++;
          continue;
        case 'statement': {
          const expect = words[1];
          if (expect !== 'ok' && expect !== 'error' && expect !== 'maybe') fail(raw.no, `statement ${expect ?? ''}: expected ok, error or maybe`);
          const { body, dashes, next } = gathered(i + 1, true);
          let error: string | null = null;
          let end = next;
          if (dashes >= 0) {
            const msg = gathered(dashes + 1, false);
            error = msg.body.join('\n');
            end = msg.next;
          }
          emit({ kind: 'statement', expect: expect as 'ok' | 'error' | 'maybe', sql: body.join('\n'), error, line: raw.no });
          i = end;
          continue;
        }
        case 'query': {
          const types = words[1] ?? '';
          if (!/^[A-Za-z]+$/.test(types)) fail(raw.no, `query needs its column types (e.g. 'query IT'), got '${types}'`);
          const sortWord = words[2] ?? 'nosort';
          const sort: SortMode = sortWord === 'rowsort' || sortWord === 'valuesort' || sortWord === 'nosort' ? sortWord : 'nosort';
          const label = sortWord === sort ? (words[3] ?? null) : sortWord;
          const { body, dashes, next } = gathered(i + 1, true);
          if (dashes < 0) {
            // a query with no expected block expects no rows only when `----` is absent AND
            // the runner accepts it; DuckDB requires `----`
            fail(raw.no, 'query without a ---- line before its expected result');
          }
          const result = gathered(dashes + 1, false);
          const hashed = result.body.length === 1 ? /^(\d+) values hashing to ([0-9a-f]+)$/.exec(result.body[0]!.trim()) : null;
          const expected = hashed
            ? { values: Number(hashed[1]), hash: hashed[2]! }
            : { rows: result.body.map((l) => splitRow(l, types.length)) };
          emit({ kind: 'query', types, sort, label, sql: body.join('\n'), expected, line: raw.no });
          i = result.next;
          continue;
        }
        case 'loop':
        case 'foreach':
        case 'concurrentloop':
        case 'concurrentforeach': {
          const name = words[1];
          if (name === undefined) fail(raw.no, `${head} needs a variable name`);
          const end = matchingEndloop(i + 1, to);
          if (end < 0) fail(raw.no, `${head} without endloop`);
          let values: string[];
          if (head === 'loop' || head === 'concurrentloop') {
            const lo = Number(words[2]);
            const hi = Number(words[3]);
            if (!Number.isInteger(lo) || !Number.isInteger(hi) || hi < lo || hi - lo > 1_000_000) fail(raw.no, `${head} ${name} needs integer bounds from <= to, got '${words.slice(2).join(' ')}'`);
            values = Array.from({ length: hi - lo }, (_, k) => String(lo + k));
          } else {
            values = words.slice(2).flatMap(expandForeach);
          }
          for (const v of values) {
            const inner = new Map(vars);
            inner.set(name!, v);
            block(i + 1, end, inner, out, state);
            if (state.halted) break;
          }
          i = end + 1;
          continue;
        }
        case 'endloop':
          fail(raw.no, 'endloop without loop');
          break;
        case 'require':
          requires.push(words[1] ?? '');
          i++;
          continue;
        case 'mode':
          if (words[1] === 'skip') state.skipping = true;
          else if (words[1] === 'unskip') state.skipping = false;
          else out.push({ kind: 'skip', reason: `mode ${words[1] ?? ''}`.trim(), line: raw.no });
          i++;
          continue;
        case 'halt':
          state.halted = true;
          i++;
          continue;
        case 'hash-threshold':
          i++;
          continue;
        default: {
          // an unknown command: its record (up to a blank line) is reported as skipped
          const { next } = gathered(i, false);
          out.push({ kind: 'skip', reason: `command '${head}' is not supported`, line: raw.no });
          i = next;
          continue;
        }
      }
    }
  };

  const matchingEndloop = (from: number, to: number): number => {
    let depth = 0;
    for (let j = from; j < to; j++) {
      const w = lines[j]!.text.trim().split(/\s+/)[0];
      if (w === 'loop' || w === 'foreach' || w === 'concurrentloop' || w === 'concurrentforeach') depth++;
      else if (w === 'endloop') {
        if (depth === 0) return j;
        depth--;
      }
    }
    return -1;
  };

  block(0, lines.length, new Map(), records, { skipping: false, halted: false });
  return { path, records, requires };
}

/** DuckDB's foreach shorthands: `<integral>`, `<numeric>`, `<alltypes>`… expand to type lists. */
function expandForeach(word: string): string[] {
  switch (word) {
    case '<signed>':
      return ['tinyint', 'smallint', 'integer', 'bigint', 'hugeint'];
    case '<unsigned>':
      return ['utinyint', 'usmallint', 'uinteger', 'ubigint', 'uhugeint'];
    case '<integral>':
      return [...expandForeach('<signed>'), ...expandForeach('<unsigned>')];
    case '<numeric>':
      return [...expandForeach('<integral>'), 'float', 'double'];
    default:
      return [word];
  }
}

/**
 * One expected row: tab-separated; a line without tabs whose space-separated fields number
 * exactly the column count is split on spaces (DuckDB's files do both); otherwise one value.
 */
function splitRow(line: string, columns: number): string[] {
  if (line.includes('\t')) return line.split('\t');
  if (columns === 1) return [line];
  const spaced = line.split(' ');
  return spaced.length === columns ? spaced : [line];
}
