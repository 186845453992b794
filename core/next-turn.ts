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
