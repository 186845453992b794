/**
 * Letting the event loop run during long in-memory work.
 *
 * Why: an operator that only awaits already-settled promises (collected inputs, generators that
 * yield batch after batch) runs on microtasks, and no timer, I/O callback or signal handler runs
 * until it finishes — so an AbortSignal fired by a timer (a query timeout) or by the CLI's SIGINT
 * handler is never seen, however often the operator checks `signal.aborted`. `nextTurn` resolves on
 * a later turn of the event loop (setImmediate: after pending I/O and timers); `TurnClock` asks for
 * one at most every `everyMs`, so the cost is one event-loop turn per interval, not per batch.
 */

/** Resolves on a later turn of the event loop (after pending I/O and timers). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Says when `everyMs` have passed since the last turn it gave (the first after `everyMs` from now). */
export class TurnClock {
  #next: number;
  constructor(private readonly everyMs = 50) {
    this.#next = performance.now() + everyMs;
  }

  /** True (and the clock restarted) when a turn is due. */
  due(): boolean {
    const now = performance.now();
    if (now < this.#next) return false;
    this.#next = now + this.everyMs;
    return true;
  }
}

/**
 * How often an operator under an AbortSignal gives the event loop a turn and checks the signal:
 * at most this many ms of work between two checks. 20 ms keeps a cancelled run's stop well inside
 * a second even when the turn lands just after the abort, at ~1 % of a core for the turns.
 */
export const CANCEL_CHECK_MS = 20;

/**
 * The cancellation point an operator's long loops share: `due()` is cheap (false at once without a
 * signal, else one clock read) and says a turn is due; `turn()` gives the event loop that turn (so
 * a timeout's timer or the CLI's SIGINT/SIGTERM handler can run) and then throws the signal's
 * reason if it was aborted — the same error `Engine.stream` throws. Hot loops call `due()` every
 * few thousand rows or pairs (`CANCEL_CHECK_ROWS`), batch loops once per batch:
 *
 *   if (pacer.due()) await pacer.turn();
 */
export class Pacer {
  readonly #signal: AbortSignal | undefined;
  readonly #clock: TurnClock | null;
  constructor(signal: AbortSignal | undefined, everyMs = CANCEL_CHECK_MS) {
    this.#signal = signal;
    this.#clock = signal === undefined ? null : new TurnClock(everyMs);
  }

  /** True when a turn is due (never without a signal; always once the signal is aborted). */
  due(): boolean {
    if (this.#clock === null) return false;
    return this.#signal!.aborted || this.#clock.due();
  }

  /** A turn of the event loop, then the signal's reason thrown if it was aborted. */
  async turn(): Promise<void> {
    await nextTurn();
    this.#signal?.throwIfAborted();
  }

  /** `turn()` when one is due: the one-line form for loops that are not hot. */
  async pace(): Promise<void> {
    if (this.due()) await this.turn();
  }

  /** The signal's reason thrown if it was aborted, without a turn (a synchronous loop's check). */
  check(): void {
    this.#signal?.throwIfAborted();
  }
}

/** Rows or pairs of work between two `Pacer.due()` calls in an operator's innermost loops. */
export const CANCEL_CHECK_ROWS = 4096;
