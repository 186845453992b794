/**
 * The cancellation check every scan makes between containers and batches: an aborted
 * `ScanOptions.signal` ends the scan with a typed `CancelledError` naming the source, never with
 * the signal's raw reason. It lives in core/ because scans of every layer make it — the memory
 * scan (operators/), the file scans and their worker-side decoders (adapters/io) — and none of
 * them may import another's.
 */
import { CancelledError } from '../errors.ts';

/** Throws `CancelledError("scan of <source> cancelled")` when `signal` is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined, source: string): void {
  if (signal?.aborted) throw new CancelledError(`scan of ${source} cancelled`);
}
