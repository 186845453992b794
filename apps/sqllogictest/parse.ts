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
 *    `N values hashing to H`. A query WITHOUT `----` has no expected result (`expected: null`):
 *    as in DuckDB's runner, it passes when it runs without an error;
 *  - `skipif <engine>` / `onlyif <engine>` before a record (the engine here is `duckdb`);
 *  - `loop var from to` / `foreach var v1 v2 …` / `concurrentloop` … `endloop`, expanded here
 *    with `${var}` substituted (nested loops too);
 *  - `require <extension>`, `mode skip` / `mode unskip`, `halt`, `hash-threshold N`;
 *  - anything else (`load`, `restart`, `set seed`, …) becomes a `skip` record with its reason, so
 *    a runner reports it instead of silently passing it.
 *
 * Expansion is lazy (`sltRecords` is a generator): nested loops are never materialised, so
 * `loop x 0 1000` three deep costs no memory, and a runner that pulls records one at a time (and
 * yields to the event loop between them) stays interruptible. The expansion as a whole is capped:
 * before the first record, the file's record count is computed from its loop bounds (no
 * expansion) and a file past `MAX_RECORDS` is a `LimitExceededError`; the generator counts too,
 * for bounds only known inside a loop.
 *
 * A malformed record (`statement maybe_not`, `query 1`) is an `invalid` record with its reason —
 * one failure for a runner, the rest of the file still runs. Errors in the file's structure (an
 * unclosed loop, `endloop` without a loop, a bad loop range) are a `UsageError` naming the file
 * and line; `parseSltFile` (the eager form, for tools) throws a `UsageError` for an invalid record
 * too.
 */
import { LimitExceededError, UsageError } from '../../core/errors.ts';

export type SortMode = 'nosort' | 'rowsort' | 'valuesort';

/** The expected rows, each as its column values, or a hash of the values. */
export type SltExpected = { readonly rows: readonly (readonly string[])[] } | { readonly values: number; readonly hash: string };

export type SltRecord =
  | { readonly kind: 'statement'; readonly expect: 'ok' | 'error' | 'maybe'; readonly sql: string; readonly error: string | null; readonly line: number }
  | {
      readonly kind: 'query';
      /** One letter per column: I integer, T text, R real (others kept as written). */
      readonly types: string;
      readonly sort: SortMode;
      readonly label: string | null;
      readonly sql: string;
      /** null: the record has no `----` block; it only has to run. */
      readonly expected: SltExpected | null;
      readonly line: number;
    }
  | { readonly kind: 'skip'; readonly reason: string; readonly line: number }
  /** A record the file writes wrongly: a runner counts it as one failure. */
  | { readonly kind: 'invalid'; readonly reason: string; readonly line: number };

export interface SltFile {
  readonly path: string;
  readonly records: readonly SltRecord[];
  /** Extensions the file requires (`require json`). */
  readonly requires: readonly string[];
}

/** Records one file may expand to (loops multiplied out); past it the file is refused. */
export const MAX_RECORDS = 1_000_000;

export interface SltParseOptions {
  /** Default MAX_RECORDS. */
  readonly maxRecords?: number;
}

interface Line {
  readonly text: string;
  readonly no: number;
}

const ENGINE = 'duckdb';
const LOOP_HEADS = new Set(['loop', 'foreach', 'concurrentloop', 'concurrentforeach']);
const NOT_RECORDS = new Set(['skipif', 'onlyif', 'require', 'mode', 'halt', 'hash-threshold', 'endloop']);
const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Parses the text of one sqllogictest file eagerly (`path` is for messages); an invalid record throws. */
export function parseSltFile(text: string, path = '<text>', options: SltParseOptions = {}): SltFile {
  const records: SltRecord[] = [];
  for (const r of sltRecords(text, path, options)) {
    if (r.kind === 'invalid') throw new UsageError(`${path}:${r.line}: ${r.reason}`);
    records.push(r);
  }
  return { path, records, requires: sltRequires(text) };
}

/** The extensions a file `require`s (every `require` line; no expansion). */
export function sltRequires(text: string): string[] {
  const out: string[] = [];
  for (const l of text.split(/\r?\n/)) {
    const m = /^\s*require\s+(\S+)/.exec(l);
    if (m) out.push(m[1]!);
  }
  return out;
}

/**
 * How many records the file expands to, from its loop bounds alone (saturating just past `cap`);
 * bounds that name an outer loop's variable count as one iteration (the generator's own count
 * catches those).
 */
export function countSltExpansion(text: string, cap = MAX_RECORDS): number {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  const count = (from: number, to: number): number => {
    let n = 0;
    let i = from;
    while (i < to) {
      const t = lines[i]!;
      const words = t.split(/\s+/);
      const head = words[0]!;
      if (t === '' || t.startsWith('#')) {
        i++;
        continue;
      }
      if (LOOP_HEADS.has(head)) {
        const end = matchingEndloop(lines, i + 1, to);
        if (end < 0) return n + 1; // the generator reports the unclosed loop
        let times = 1;
        if (head === 'loop' || head === 'concurrentloop') {
          const lo = Number(words[2]);
          const hi = Number(words[3]);
          if (Number.isInteger(lo) && Number.isInteger(hi) && hi > lo) times = hi - lo;
        } else times = words.slice(2).flatMap(expandForeach).length;
        n += Math.min(cap + 1, times * count(i + 1, end));
        if (n > cap) return cap + 1;
        i = end + 1;
        continue;
      }
      // a record (statement, query, an unknown command): its lines up to a blank line — a
      // query's `----` and result block follow its SQL without one
      if (!NOT_RECORDS.has(head)) {
        n++;
        while (i < to && lines[i] !== '') i++;
        continue;
      }
      i++;
    }
    return n;
  };
  return count(0, lines.length);
}

function matchingEndloop(lines: readonly string[], from: number, to: number): number {
  let depth = 0;
  for (let j = from; j < to; j++) {
    const w = lines[j]!.split(/\s+/)[0]!;
    if (LOOP_HEADS.has(w)) depth++;
    else if (w === 'endloop') {
      if (depth === 0) return j;
      depth--;
    }
  }
  return -1;
}

/**
 * The file's records, expanded lazily. Throws `LimitExceededError` (before the first record, or
 * when the running count passes the cap) and `UsageError` for a malformed structure.
 */
export function* sltRecords(text: string, path = '<text>', options: SltParseOptions = {}): Generator<SltRecord, void, undefined> {
  const cap = options.maxRecords ?? MAX_RECORDS;
  const total = countSltExpansion(text, cap);
  if (total > cap) throw new LimitExceededError(`${path}: its loops expand to more than ${cap} records (joinlab's cap)`);
  const lines: Line[] = text.split(/\r?\n/).map((t, i) => ({ text: t, no: i + 1 }));
  const trimmed = lines.map((l) => l.text.trim());
  const fail = (no: number, msg: string): never => {
    throw new UsageError(`${path}:${no}: ${msg}`);
  };
  const state = { skipping: false, halted: false, emitted: 0 };

  /** Expands lines[from, to) into records with `vars` substituted. */
  function* block(from: number, to: number, vars: ReadonlyMap<string, string>): Generator<SltRecord, void, undefined> {
    let i = from;
    const sub = (s: string): string => (vars.size === 0 ? s : s.replace(VAR, (m, name: string) => vars.get(name) ?? m));
    let condition: { only: boolean; engine: string } | null = null;
    const gathered = (start: number, stopAtDashes: boolean): { body: string[]; dashes: number; next: number } => {
      const body: string[] = [];
      let j = start;
      let dashes = -1;
      while (j < to && trimmed[j] !== '') {
        if (stopAtDashes && trimmed[j] === '----') {
          dashes = j;
          break;
        }
        body.push(sub(lines[j]!.text));
        j++;
      }
      return { body, dashes, next: j };
    };
    const emit = (r: SltRecord): SltRecord => {
      if (++state.emitted > cap) throw new LimitExceededError(`${path}: its loops expand to more than ${cap} records (joinlab's cap)`);
      const skipByCondition = condition !== null && (condition.only ? condition.engine !== ENGINE : condition.engine === ENGINE);
      condition = null;
      if (r.kind !== 'invalid' && (state.skipping || skipByCondition)) return { kind: 'skip', reason: state.skipping ? 'mode skip' : 'skipif/onlyif', line: r.line };
      return r;
    };
    while (i < to && !state.halted) {
      const raw = lines[i]!;
      const t = sub(trimmed[i]!).trim();
      if (t === '' || t.startsWith('#')) {
        i++;
        continue;
      }
      const words = t.split(/\s+/);
      const head = words[0]!;
      switch (head) {
        case 'skipif':
        case 'onlyif':
          condition = { only: head === 'onlyif', engine: words[1] ?? '' };
          i++;
          continue;
        case 'statement': {
          const expect = words[1];
          const { body, dashes, next } = gathered(i + 1, true);
          let error: string | null = null;
          let end = next;
          if (dashes >= 0) {
            const msg = gathered(dashes + 1, false);
            error = msg.body.join('\n');
            end = msg.next;
          }
          if (expect !== 'ok' && expect !== 'error' && expect !== 'maybe') yield emit({ kind: 'invalid', reason: `statement ${expect ?? ''}: expected ok, error or maybe`, line: raw.no });
          else yield emit({ kind: 'statement', expect, sql: body.join('\n'), error, line: raw.no });
          i = end;
          continue;
        }
        case 'query': {
          const types = words[1] ?? '';
          const sortWord = words[2] ?? 'nosort';
          const sort: SortMode = sortWord === 'rowsort' || sortWord === 'valuesort' || sortWord === 'nosort' ? sortWord : 'nosort';
          const label = sortWord === sort ? (words[3] ?? null) : sortWord;
          const { body, dashes, next } = gathered(i + 1, true);
          // no `----`: nothing expected, the query only has to run (DuckDB's runner)
          const result = dashes >= 0 ? gathered(dashes + 1, false) : null;
          if (!/^[A-Za-z]+$/.test(types)) yield emit({ kind: 'invalid', reason: `query needs its column types (e.g. 'query IT'), got '${types}'`, line: raw.no });
          else {
            let expected: SltExpected | null = null;
            if (result !== null) {
              const hashed = result.body.length === 1 ? /^(\d+) values hashing to ([0-9a-f]+)$/.exec(result.body[0]!.trim()) : null;
              expected = hashed ? { values: Number(hashed[1]), hash: hashed[2]! } : { rows: result.body.map((l) => splitRow(l, types.length)) };
            }
            yield emit({ kind: 'query', types, sort, label, sql: body.join('\n'), expected, line: raw.no });
          }
          i = result !== null ? result.next : next;
          continue;
        }
        case 'loop':
        case 'foreach':
        case 'concurrentloop':
        case 'concurrentforeach': {
          const name = words[1];
          if (name === undefined) fail(raw.no, `${head} needs a variable name`);
          const end = matchingEndloop(trimmed, i + 1, to);
          if (end < 0) fail(raw.no, `${head} without endloop`);
          if (head === 'loop' || head === 'concurrentloop') {
            const lo = Number(words[2]);
            const hi = Number(words[3]);
            if (!Number.isInteger(lo) || !Number.isInteger(hi) || hi < lo) fail(raw.no, `${head} ${name} needs integer bounds from <= to, got '${words.slice(2).join(' ')}'`);
            for (let v = lo; v < hi && !state.halted; v++) yield* block(i + 1, end, new Map(vars).set(name!, String(v)));
          } else {
            for (const v of words.slice(2).flatMap(expandForeach)) {
              if (state.halted) break;
              yield* block(i + 1, end, new Map(vars).set(name!, v));
            }
          }
          i = end + 1;
          continue;
        }
        case 'endloop':
          fail(raw.no, 'endloop without loop');
          break;
        case 'require':
          i++;
          continue;
        case 'mode':
          if (words[1] === 'skip') state.skipping = true;
          else if (words[1] === 'unskip') state.skipping = false;
          else yield emit({ kind: 'skip', reason: `mode ${words[1] ?? ''}`.trim(), line: raw.no });
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
          yield emit({ kind: 'skip', reason: `command '${head}' is not supported`, line: raw.no });
          i = next;
          continue;
        }
      }
    }
  }

  yield* block(0, lines.length, new Map());
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
