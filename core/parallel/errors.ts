/**
 * Errors across threads. Structured clone turns any `Error` into a plain `Error` (class, `kind`
 * and extra fields lost), so a worker sends `ErrorWire` — the class name, message, stack and own
 * fields — and the main thread rebuilds an instance of the same `JoinlabError` class: a memory
 * limit hit in a worker is a `MemoryLimitError` with its `consumer`, `requested` and `limit` for
 * the caller, exactly as if it had happened on the main thread.
 *
 * The rebuilt error is made without calling the class's constructor (which would re-format the
 * message): its prototype is set and the sent fields assigned. An error that is not a
 * JoinlabError (a bug) comes back as an `Error` whose message says it happened in a worker, with
 * the worker's stack. An abort's reason (a `CancelledError`, or the caller's own reason) is never
 * sent: the main thread already holds it.
 */
import {
  CancelledError,
  ConfigError,
  CorruptFileError,
  ExpressionError,
  FileNotFoundError,
  JoinlabError,
  KeyTypeMismatchError,
  MemoryLimitError,
  MissingColumnError,
  SqlSyntaxError,
  UnknownStrategyError,
  UnsortedInputError,
  UnsupportedExpressionError,
  UnsupportedJoinError,
  UnsupportedSqlError,
  UnsupportedTypeError,
  UsageError,
} from '../errors.ts';

export interface ErrorWire {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  /** Own enumerable fields that structured clone can carry (`consumer`, `limit`, `path`, …). */
  readonly fields: Record<string, unknown>;
}

const CLASSES: readonly (abstract new (...args: never[]) => JoinlabError)[] = [
  UsageError,
  ConfigError,
  UnknownStrategyError,
  MissingColumnError,
  KeyTypeMismatchError,
  UnsupportedTypeError,
  FileNotFoundError,
  CorruptFileError,
  MemoryLimitError,
  ExpressionError,
  UnsupportedExpressionError,
  UnsupportedJoinError,
  UnsortedInputError,
  SqlSyntaxError,
  UnsupportedSqlError,
  CancelledError,
];
const BY_NAME = new Map(CLASSES.map((c) => [c.name, c]));

export function encodeError(e: unknown): ErrorWire {
  if (!(e instanceof Error)) return { name: 'Error', message: String(e), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) {
    if (k === 'name' || k === 'message' || k === 'stack' || k === 'cause') continue;
    if (v === null || ['string', 'number', 'boolean', 'bigint', 'undefined'].includes(typeof v) || Array.isArray(v)) fields[k] = v;
  }
  return { name: e.name, message: e.message, stack: e.stack, fields };
}

export function decodeError(w: ErrorWire): Error {
  const cls = BY_NAME.get(w.name);
  if (cls === undefined) {
    const e = new Error(`in a worker thread: ${w.name === 'Error' ? '' : `${w.name}: `}${w.message}`);
    if (w.stack) e.stack = `${e.message}\n--- worker stack ---\n${w.stack}`;
    return e;
  }
  const e = Object.create(cls.prototype) as JoinlabError & Record<string, unknown>;
  Object.defineProperty(e, 'message', { value: w.message, writable: true, configurable: true });
  Object.defineProperty(e, 'name', { value: w.name, writable: true, configurable: true });
  if (w.stack) Object.defineProperty(e, 'stack', { value: w.stack, writable: true, configurable: true });
  Object.assign(e, w.fields);
  return e;
}
