/**
 * The `functions` feature of random SQL (random-sql.ts): scalar functions and date constants in
 * WHERE conjuncts and SELECT expressions — LIKE / NOT LIKE / ILIKE with `%`, `_`, an ESCAPE and
 * NULL strings; extract / date_part / year(); substring; `||` and concat; a DATE column against
 * date constants with intervals (folded at plan time, and pruning the in-memory batches by their
 * zone maps). Every draw is valid DuckDB SQL whose answer joinlab must equal.
 *
 * The random tables' strings are ASCII ('a', 'b', 'c', ''), so DuckDB takes its ASCII-only
 * `substring` there, which answers windows off the string's front differently from the general
 * one joinlab implements (core/expr/string-nodes.ts): substring starts and lengths are drawn where
 * the two agree (a start of 0 to 3, a negative start only without a length or with one at least as
 * long, a negative length only from the start 0 or 1).
 */
import type { Rng } from '../../core/random.ts';

/** Qualified column names of one table. */
export interface FunctionColumns {
  /** VARCHAR, NULLs and '' included. */
  readonly s: string;
  /** DATE, NULLs included. */
  readonly d: string;
  /** INTEGER keys and payload. */
  readonly k: string;
  readonly v: string;
}

const PATTERNS = ['a%', '%a', '%b%', '_', '__', '', '%', 'a_', '_%', 'b', 'A%', '%c'];

function substringCall(rng: Rng, s: string): string {
  switch (rng.int(0, 3)) {
    case 0:
      return `substring(${s}, ${rng.int(0, 3)}, ${rng.int(1, 3)})`;
    case 1:
      return `substr(${s}, ${rng.int(0, 3)})`;
    case 2: {
      const start = rng.int(1, 2);
      return rng.chance(0.5) ? `substring(${s}, -${start})` : `substring(${s}, -${start}, ${start + rng.int(0, 2)})`;
    }
    default:
      return `substring(${s} FROM ${rng.int(0, 1)} FOR ${rng.int(-2, 3)})`;
  }
}

function dateConstant(rng: Rng): string {
  const base = `${rng.pick(['date', 'DATE'])} '${rng.int(1993, 1996)}-${String(rng.int(1, 12)).padStart(2, '0')}-${rng.pick(['01', '15', '28'])}'`;
  switch (rng.int(0, 4)) {
    case 0:
      return base;
    case 1:
      return `${base} + interval '${rng.int(1, 12)}' month`;
    case 2:
      return `${base} - interval '${rng.int(1, 90)}' day`;
    case 3:
      return `${base} + interval ${rng.int(1, 2)} year`;
    default:
      return `${base} + interval '${rng.int(1, 36)}' hour`;
  }
}

/** A WHERE conjunct over one table's columns. */
export function functionConjunct(rng: Rng, c: FunctionColumns): string {
  const op = () => rng.pick(['=', '<>', '<', '<=', '>', '>=']);
  switch (rng.int(0, 7)) {
    case 0:
      return `${c.s} ${rng.pick(['LIKE', 'NOT LIKE', 'ILIKE', 'NOT ILIKE'])} '${rng.pick(PATTERNS)}'`;
    case 1:
      return `${c.s} ${rng.pick(['LIKE', 'NOT LIKE'])} '${rng.pick(['a#%', '#_', '%#%%', 'a#_'])}' ESCAPE '#'`;
    case 2: {
      const [part, lo, hi] = rng.pick([[`extract(year FROM ${c.d})`, 1993, 1996], [`date_part('month', ${c.d})`, 1, 12], [`year(${c.d})`, 1993, 1996], [`extract(dow FROM ${c.d})`, 0, 6]] as const);
      return `${part} ${op()} ${rng.int(lo, hi)}`;
    }
    case 3:
      return `${substringCall(rng, c.s)} ${op()} '${rng.pick(['a', 'b', 'ab', ''])}'`;
    case 4:
      return `${c.s} || ${rng.pick([`'x'`, c.s, c.k])} ${op()} '${rng.pick(['ax', 'bb', 'a1', ''])}'`;
    case 5:
      return `concat(${c.s}, ${c.k}) ${rng.pick(['=', '<>', 'LIKE'])} '${rng.pick(['a1', 'b%', '2', '%'])}'`;
    case 6:
      return `${c.d} ${op()} ${dateConstant(rng)}`;
    default:
      return `${c.d} BETWEEN ${dateConstant(rng)} AND ${rng.pick([dateConstant(rng), `'1995-06-30'`])}`;
  }
}

/** A SELECT expression over one table's columns. */
export function functionExpression(rng: Rng, c: FunctionColumns): string {
  switch (rng.int(0, 6)) {
    case 0:
      return substringCall(rng, c.s);
    case 1:
      return `${c.s} || '-' || ${rng.pick([c.k, c.v, c.s, c.d])}`;
    case 2:
      return `concat(${c.s}, ${c.v}, ${c.d})`;
    case 3:
      return `${rng.pick(['extract(year FROM', 'month(', 'dayofweek(', "date_part('quarter',"])} ${c.d})`;
    case 4:
      return `CASE WHEN ${c.s} LIKE '${rng.pick(PATTERNS)}' THEN 1 ELSE 0 END`;
    case 5:
      return `${c.s} ILIKE '${rng.pick(PATTERNS)}'`;
    default:
      return dateConstant(rng);
  }
}
