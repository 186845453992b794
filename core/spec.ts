/**
 * Turning user-facing join descriptions (CLI flags, library calls, experiment files) into a
 * `JoinSpec`. Text forms: `--on "a=b,c=d"`, `--range "l.ts < r.ts"` (the `l.`/`r.` prefixes are
 * optional), `--filter "<expression>"`. Malformed text is a `UsageError` that quotes it.
 */
import { UsageError } from './errors.ts';
import type { Expr } from './expr/ast.ts';
import { parseExpr } from './expr/parse.ts';
import { JOIN_TYPES, RANGE_OPS, type JoinSpec, type JoinType, type KeyPair, type RangeOp, type RangePredicate } from './types.ts';

export interface JoinSpecInput {
  readonly type: JoinType | string;
  /** `"a=b,c=d"` or key pairs; omit for a pure range join. */
  readonly on?: string | readonly KeyPair[];
  readonly range?: string | RangePredicate;
  readonly filter?: string | Expr;
  readonly nullEqualsNull?: boolean;
  readonly nullAware?: boolean;
  /** Output columns to keep, by output name: `"a,b_right"` or a list. */
  readonly select?: string | readonly string[];
}

const IDENT = String.raw`(?:"(?:[^"]|"")+"|[^\s=<>,"]+)`;

function unquote(name: string): string {
  return name.startsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name;
}

export function parseOn(text: string): KeyPair[] {
  const pairs: KeyPair[] = [];
  const re = new RegExp(String.raw`^\s*(${IDENT})\s*=\s*(${IDENT})\s*$`);
  for (const part of text.split(',')) {
    const m = re.exec(part);
    if (!m) throw new UsageError(`--on expects LEFT=RIGHT[,LEFT2=RIGHT2…], got '${text}'`);
    pairs.push({ left: stripSide(unquote(m[1]!), 'l'), right: stripSide(unquote(m[2]!), 'r') });
  }
  return pairs;
}

/** `l.x` -> `x` (only the given side's prefix, so a column really named `r.x` survives on the left). */
function stripSide(name: string, side: 'l' | 'r'): string {
  for (const p of side === 'l' ? ['l.', 'left.'] : ['r.', 'right.']) if (name.startsWith(p)) return name.slice(p.length);
  return name;
}

/** `--select a,"b c",d_right` -> names (quotes as in `--on`); empty items and duplicates are errors. */
export function parseSelect(input: string | readonly string[]): string[] {
  const items = typeof input === 'string' ? splitNames(input) : [...input];
  if (items.length === 0) throw new UsageError('--select needs at least one output column');
  const seen = new Set<string>();
  for (const name of items) {
    if (name === '') throw new UsageError(`--select has an empty column name in '${String(input)}'`);
    if (seen.has(name)) throw new UsageError(`--select names column '${name}' twice`);
    seen.add(name);
  }
  return items;
}

function splitNames(text: string): string[] {
  const re = new RegExp(String.raw`\s*(${IDENT})?\s*(,|$)`, 'gy');
  const out: string[] = [];
  let m: RegExpExecArray | null;
  let at = 0;
  while (at <= text.length && (m = re.exec(text)) !== null) {
    out.push(m[1] === undefined ? '' : unquote(m[1]));
    at = re.lastIndex;
    if (m[2] === '') break;
  }
  if (at < text.length) throw new UsageError(`--select expects NAME[,NAME2…], got '${text}'`);
  return out;
}

export function parseRange(text: string): RangePredicate {
  const m = new RegExp(String.raw`^\s*(${IDENT})\s*(<=|>=|<|>)\s*(${IDENT})\s*$`).exec(text);
  if (!m) throw new UsageError(`--range expects "LEFT OP RIGHT" with OP one of < <= > >=, got '${text}'`);
  return { left: stripSide(unquote(m[1]!), 'l'), op: m[2] as RangeOp, right: stripSide(unquote(m[3]!), 'r') };
}

export function toJoinSpec(input: JoinSpecInput): JoinSpec {
  if (!(JOIN_TYPES as readonly string[]).includes(input.type)) {
    throw new UsageError(`unknown join type '${input.type}'; expected one of ${JOIN_TYPES.join(', ')}`);
  }
  const on = input.on === undefined ? [] : typeof input.on === 'string' ? parseOn(input.on) : [...input.on];
  const range = input.range === undefined ? undefined : typeof input.range === 'string' ? parseRange(input.range) : input.range;
  if (range && !(RANGE_OPS as readonly string[]).includes(range.op)) throw new UsageError(`range operator must be one of ${RANGE_OPS.join(' ')}`);
  if (on.length === 0 && !range && input.on !== undefined) throw new UsageError('--on needs at least one key pair');
  const filter = input.filter === undefined ? undefined : typeof input.filter === 'string' ? parseExpr(input.filter) : input.filter;
  return {
    type: input.type as JoinType,
    on,
    range,
    filter,
    nullEquality: input.nullEqualsNull ? 'null-equals-null' : 'null-equals-nothing',
    nullAware: input.nullAware ?? false,
    ...(input.select === undefined ? {} : { select: parseSelect(input.select) }),
  };
}
