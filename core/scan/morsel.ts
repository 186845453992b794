/**
 * The worker-side half of `Scan.morsels` (core/scan/scan.ts): a `MorselDecoder` turns a
 * `DecodeMorsel`'s descriptor into record batches on the worker thread that runs it. A file format
 * registers its decoder in slot `scan-decoder` from its extension, so every worker — which loads
 * the engine's extensions — can decode what that format's scan hands out.
 *
 * A decoder must give exactly the batches the scan's own `batches` would have given for those
 * containers without a row filter: same columns, in the requested order, same types. Its errors
 * are the scan's (a corrupt file is a `CorruptFileError` naming the path).
 */
import type { RecordBatch } from 'apache-arrow';
import type { Strategy } from '../registry/registry.ts';

export interface MorselDecoder extends Strategy {
  decode(descriptor: unknown, options: { readonly signal?: AbortSignal }): Promise<readonly RecordBatch[]>;
}
