/**
 * Checking the arguments of the public `Engine` calls (composition.ts) before any work: a library
 * user who passes `null` for an input, a number for a path, or a sort key `{ descending: 'yes' }`
 * gets an `InvalidArgumentError` that names the argument by its path (`keys[0].descending`) and
 * says what was expected and what came — not a TypeError from deep inside an operator, and never a
 * silently accepted value (a truthy `'yes'` would have sorted descending by accident; `'no'` too).
 *
 * Shapes only: whether a column exists, a join type is known or an aggregate function is
 * registered is still checked where it was (binding, `toJoinSpec`), with the errors it had. The
 * checks return the caller's own value (never zod's copy), so Arrow tables and scans keep their
 * identity. Objects are strict where a typo would otherwise be dropped silently
 * (`{ column: 'k', desc: true }`).
 */
import { Table } from 'apache-arrow';
import { z } from 'zod';
import { AGGREGATE_FUNCTIONS } from './aggregate.ts';
import { InvalidArgumentError } from './errors.ts';

/** A short description of a value for an error message: `null`, `number 42`, `string 'yes'`, `array`, `object`. */
export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (typeof v === 'string') return `string '${v.length > 40 ? `${v.slice(0, 40)}…` : v}'`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `${typeof v} ${String(v)}`;
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'function') return 'a function';
  const name = (v as object).constructor?.name;
  return name !== undefined && name !== 'Object' ? `a ${name}` : 'an object';
}

/** An Arrow Table, a non-empty file path, or a Scan (an object with `schema` and `batches()`). */
export function isJoinInput(v: unknown): boolean {
  if (v instanceof Table) return true;
  if (typeof v === 'string') return v.length > 0;
  return typeof v === 'object' && v !== null && typeof (v as { batches?: unknown }).batches === 'function' && typeof (v as { schema?: unknown }).schema === 'object';
}

const INPUT_EXPECTED = 'expected an Arrow Table, a file path (.parquet, .arrow, .csv …) or a Scan';

/** `value` as an engine input, or an InvalidArgumentError naming `name`. */
export function checkInput(value: unknown, name: string): void {
  if (!isJoinInput(value)) throw new InvalidArgumentError(name, `${INPUT_EXPECTED}, got ${describeValue(value)}`);
}

function valueAt(v: unknown, path: readonly PropertyKey[]): unknown {
  let cur = v;
  for (const p of path) cur = cur !== null && typeof cur === 'object' ? (cur as Record<PropertyKey, unknown>)[p] : undefined;
  return cur;
}

function pathText(name: string, path: readonly PropertyKey[]): string {
  return name + path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
}

/** Checks `value` against `schema`; the first problem becomes an InvalidArgumentError naming its path under `name`. */
export function checkArgument(schema: z.ZodType, value: unknown, name: string): void {
  const r = schema.safeParse(value);
  if (r.success) return;
  const issue = r.error.issues[0]!;
  const path = issue.path as PropertyKey[];
  let detail: string;
  switch (issue.code) {
    case 'invalid_type':
      detail = `expected ${issue.expected}, got ${describeValue(valueAt(value, path))}`;
      break;
    case 'unrecognized_keys':
      detail = `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
      break;
    default:
      detail = `${issue.message.replace(/^Invalid (input|option): /, '')}, got ${describeValue(valueAt(value, path))}`;
  }
  throw new InvalidArgumentError(pathText(name, path), detail);
}

// ------------------------------------------------------------------------------------------------
// The shapes
// ------------------------------------------------------------------------------------------------

const text = z.string().min(1, 'expected a non-empty string');

/** A join spec: the text form (`JoinSpecInput`: `on: 'a=b'`, `nullEqualsNull`) or the parsed one (`JoinSpec`). */
export const JOIN_SPEC_ARGUMENT = z.strictObject({
  type: z.string(),
  on: z.union([z.string(), z.array(z.strictObject({ left: text, right: text }))], 'expected "a=b,c=d" or a list of { left, right }').optional(),
  range: z.union([z.string(), z.strictObject({ left: text, op: z.string(), right: text })], 'expected "l.a < r.b" or { left, op, right }').optional(),
  filter: z.union([z.string(), z.looseObject({ kind: z.string() })], 'expected an expression: text or a parsed Expr').optional(),
  nullEqualsNull: z.boolean().optional(),
  nullEquality: z.enum(['null-equals-nothing', 'null-equals-null']).optional(),
  nullAware: z.boolean().optional(),
  select: z.union([z.string(), z.array(z.string())], 'expected "a,b" or a list of output column names').optional(),
});

/** Sort keys in their list form (the text form is parsed by `parseSortKeys`). */
export const SORT_KEYS_ARGUMENT = z.array(z.strictObject({ column: text, descending: z.boolean().optional(), nullsFirst: z.boolean().optional() }));

export const AGGREGATE_SPEC_ARGUMENT = z.strictObject({
  groupBy: z.array(z.string()),
  aggregates: z.array(z.strictObject({ fn: z.enum(AGGREGATE_FUNCTIONS), column: z.string().nullable(), distinct: z.boolean(), as: text })),
});

/** The options object of a call: absent, or an object whose `signal` (if any) is an AbortSignal. */
export function checkOptions(value: unknown, name = 'options'): void {
  if (value === undefined) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new InvalidArgumentError(name, `expected an options object, got ${describeValue(value)}`);
  const signal = (value as { signal?: unknown }).signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new InvalidArgumentError(`${name}.signal`, `expected an AbortSignal, got ${describeValue(signal)}`);
}

/** `tables` of `Engine.sql`: a plain object of name -> input. */
export function checkTables(value: unknown, name = 'tables'): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Table) {
    throw new InvalidArgumentError(name, `expected an object of table name -> input (Arrow Table, file path or Scan), got ${describeValue(value)}`);
  }
  for (const [k, v] of Object.entries(value)) checkInput(v, `${name}.${k}`);
}
