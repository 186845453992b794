/**
 * Typed errors, one class per kind of failure a user can cause.
 *
 * Every message names the thing at fault (column, type, file, setting) so the CLI can print it as
 * one line and exit 2. Anything that is *not* a `JoinlabError` is a bug in joinlab and keeps its
 * stack trace.
 */

export type ErrorKind =
  | 'usage'
  | 'config'
  | 'unknown-strategy'
  | 'missing-column'
  | 'key-type-mismatch'
  | 'unsupported-type'
  | 'file-not-found'
  | 'corrupt-file'
  | 'memory-limit'
  | 'expression'
  | 'unsupported-join'
  | 'unsorted-input'
  | 'sql-syntax'
  | 'unsupported-sql'
  | 'limit-exceeded'
  | 'cancelled'
  | 'invalid-utf8';

export abstract class JoinlabError extends Error {
  abstract readonly kind: ErrorKind;
  /** Exit code the CLI uses for this error. */
  readonly exitCode: number = 2;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Malformed command line or API call (e.g. `--on a` without `=`). */
export class UsageError extends JoinlabError {
  readonly kind = 'usage' as const;
}

/**
 * A library call with an argument of the wrong shape (`engine.join(null, …)`, a sort key
 * `{ descending: 'yes' }`): `argument` names it as a path (`keys[0].descending`, `tables.orders`),
 * the message says what was expected and what came. A usage error: the CLI never causes one.
 */
export class InvalidArgumentError extends UsageError {
  constructor(
    readonly argument: string,
    detail: string,
  ) {
    super(`invalid argument '${argument}': ${detail}`);
  }
}

/** A call on an `Engine` after its `close()`. */
export class EngineClosedError extends UsageError {
  constructor(readonly method: string) {
    super(`Engine.${method}: the engine is closed (Engine.close() was called); create a new one`);
  }
}

/** A configuration key or value that fails validation. */
export class ConfigError extends JoinlabError {
  readonly kind = 'config' as const;
  constructor(
    message: string,
    readonly key?: string,
  ) {
    super(message);
  }
}

/** A strategy name that is not registered in its slot; the message lists the registered names. */
export class UnknownStrategyError extends JoinlabError {
  readonly kind = 'unknown-strategy' as const;
  constructor(
    readonly slot: string,
    readonly requested: string,
    readonly available: readonly string[],
    /** The planning strategy that asked for `requested` (a `join` planner's `choose`), if any. */
    readonly chosenBy?: string,
  ) {
    super(
      `unknown ${slot} strategy '${requested}'${chosenBy !== undefined ? ` (chosen by '${chosenBy}' for this join)` : ''}; registered: ${available.length ? available.join(', ') : '(none)'}`,
    );
  }
}

export class MissingColumnError extends JoinlabError {
  readonly kind = 'missing-column' as const;
  constructor(
    readonly column: string,
    readonly where: string,
    readonly available: readonly string[],
  ) {
    super(`column '${column}' not found in ${where}; columns: ${available.join(', ')}`);
  }
}

export class KeyTypeMismatchError extends JoinlabError {
  readonly kind = 'key-type-mismatch' as const;
  constructor(
    readonly leftColumn: string,
    readonly leftType: string,
    readonly rightColumn: string,
    readonly rightType: string,
    detail = 'cannot be compared',
  ) {
    super(`key types do not match: left.${leftColumn} (${leftType}) and right.${rightColumn} (${rightType}) ${detail}`);
  }
}

export class UnsupportedTypeError extends JoinlabError {
  readonly kind = 'unsupported-type' as const;
  constructor(
    readonly column: string,
    readonly type: string,
    readonly context: string,
  ) {
    super(`column '${column}' has type ${type}, which is not supported ${context}`);
  }
}

export class FileNotFoundError extends JoinlabError {
  readonly kind = 'file-not-found' as const;
  constructor(readonly path: string) {
    super(`file not found: ${path}`);
  }
}

/** A file that exists but cannot be decoded (truncated Parquet, bad magic, broken IPC stream). */
export class CorruptFileError extends JoinlabError {
  readonly kind = 'corrupt-file' as const;
  constructor(
    readonly path: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot read ${path}: ${detail}`, options);
  }
}

export class MemoryLimitError extends JoinlabError {
  readonly kind = 'memory-limit' as const;
  /**
   * `limitSource` says where the limit came from when it was not the `memoryLimit` key (the
   * system budget that applies when no limit is configured); it replaces `memoryLimit=N` in the
   * message.
   */
  constructor(
    readonly consumer: string,
    readonly requested: number,
    readonly reserved: number,
    readonly limit: number,
    limitSource?: string,
  ) {
    super(
      `memory limit exceeded: ${consumer} asked for ${requested} bytes with ${reserved} of ${limit} reserved (${limitSource ?? `memoryLimit=${limit}`})`,
    );
  }
}

/** A residual-filter expression that does not parse or does not type-check. */
export class ExpressionError extends JoinlabError {
  readonly kind = 'expression' as const;
}

/**
 * An expression DuckDB evaluates but joinlab's evaluator does not (yet): e.g. a cast of a VARCHAR
 * column. Distinct from an ExpressionError DuckDB would raise too, so SQL can report it as
 * unsupported (a skip in sqllogictest) rather than as an error in the query.
 */
export class UnsupportedExpressionError extends ExpressionError {}

/** A join spec the chosen algorithm cannot run (e.g. piecewise merge join without a range). */
export class UnsupportedJoinError extends JoinlabError {
  readonly kind = 'unsupported-join' as const;
}

/** An input that claims an order (`Scan.sortedOn`) its rows do not follow. */
export class UnsortedInputError extends JoinlabError {
  readonly kind = 'unsorted-input' as const;
  constructor(
    readonly source: string,
    detail: string,
  ) {
    super(`${source} is declared sorted but is not: ${detail}`);
  }
}

/** SQL text the parser rejects; `position` is the character offset DuckDB's parser reports. */
export class SqlSyntaxError extends JoinlabError {
  readonly kind = 'sql-syntax' as const;
  constructor(
    detail: string,
    readonly position: number | null,
  ) {
    super(`SQL syntax error${position === null ? '' : ` at character ${position}`}: ${detail}`);
  }
}

/**
 * Valid SQL outside the subset joinlab plans: `construct` names it (e.g. `UNION`, `window
 * function row_number`), `position` is its character offset in the text when the parser gave one.
 * Never a wrong answer: anything the planner does not understand stops here.
 */
export class UnsupportedSqlError extends JoinlabError {
  readonly kind = 'unsupported-sql' as const;
  constructor(
    readonly construct: string,
    readonly position: number | null,
  ) {
    super(`unsupported SQL: ${construct}${position === null ? '' : ` (at character ${position})`}`);
  }
}

/**
 * An input that would expand past a fixed limit (a sqllogictest file whose nested loops expand to
 * more records than the runner takes): refused before the work starts, never an exhausted heap.
 */
export class LimitExceededError extends JoinlabError {
  readonly kind = 'limit-exceeded' as const;
}

export class CancelledError extends JoinlabError {
  readonly kind = 'cancelled' as const;
}

export function isJoinlabError(e: unknown): e is JoinlabError {
  return e instanceof JoinlabError;
}

/**
 * A string value whose bytes are not valid UTF-8 (a JS string with a lone surrogate cannot be
 * encoded as UTF-8 either), refused by a consumer that would otherwise change it silently: no
 * text format and no DuckDB reader carries such bytes exactly. `row` counts from 0 in the batch
 * or table `context` names.
 */
export class InvalidUtf8Error extends JoinlabError {
  readonly kind = 'invalid-utf8' as const;
  constructor(
    readonly column: string,
    readonly row: number,
    readonly context: string,
  ) {
    super(`column '${column}' row ${row} holds bytes that are not valid UTF-8, which ${context} cannot carry exactly (write the column as binary to keep its bytes)`);
  }
}
