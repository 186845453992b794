/**
 * Command-line hygiene commander does not do by itself: each of these used to be accepted and then
 * ignored or misread, so the run did something else than the command line said.
 *
 * - A single-valued option given twice (`--left a --left b`) silently took the last one: it is now
 *   a usage error naming the option. Options meant to repeat (`--set`, variadic `--algorithm`) are
 *   exempt.
 * - An empty value (`--algorithm ""`, `--out=`) was taken as "not given" by some commands and as
 *   the working directory by others: every valued option and path argument must be non-empty.
 * - Numeric flags (`--rows`, `--cases`, `--seed`) took anything `Number()` accepts: '' as 0, '0x10'
 *   as 16, '1e12' as a trillion rows (a RangeError deep inside). They now take decimal digits in a
 *   stated range.
 */
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.ts';

/** Options that may be given more than once (their values accumulate). */
const REPEATABLE = new Set(['--set', '--table']);

/** Installs the repeat and empty-value checks on every option of `command` and its subcommands. */
export function guardOptions(command: Command): void {
  for (const sub of command.commands) guardOptions(sub);
  const seen = new Set<string>();
  for (const opt of command.options) {
    const takesValue = opt.required || opt.optional;
    if (!takesValue) continue;
    const flag = opt.long ?? opt.short ?? opt.name();
    command.on(`option:${opt.name()}`, (value: unknown) => {
      if (value === '') throw new UsageError(`${flag} needs a value, got an empty string`);
      if (opt.variadic || REPEATABLE.has(flag)) return;
      if (seen.has(flag)) throw new UsageError(`${flag} was given more than once; give it once`);
      seen.add(flag);
    });
  }
}

/** A positional argument that must be a non-empty path (commander's argument parser hook). */
export function nonEmptyPath(what: string): (value: string) => string {
  return (value: string) => {
    if (value === '') throw new UsageError(`${what} needs a path, got an empty string`);
    return value;
  };
}

/** `text` as an integer in [min, max], decimal digits only; otherwise a UsageError naming `flag`. */
export function integerFlag(text: string, flag: string, min: number, max: number): number {
  const n = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} expects an integer from ${min} to ${max.toLocaleString('en-US')}, got '${text}'`);
  }
  return n;
}

/** Limits of the numeric flags (the reasons are in the comments). */
export const LIMITS = {
  /** `check --rows`: at least one row (the demo data needs an order), at most what fits in memory. */
  rows: [1, 10_000_000],
  /** Seeds are 32-bit (core/random.ts `Rng` keeps `seed >>> 0`): larger ones would alias. */
  seed: [0, 0xffff_ffff],
  /** `parity --cases`: 0 runs nothing (and says so). */
  cases: [0, 1_000_000_000],
  /** `run --repeat`: at least one timed run (a median of nothing is no result). */
  repeat: [1, 1_000_000],
} as const satisfies Record<string, readonly [number, number]>;
