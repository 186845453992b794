/**
 * A morsel a scan handed out undecoded (`DecodeMorsel`), decoded on the worker thread that runs
 * it by the decoder registered under its name (slot `scan-decoder`, core/scan/morsel.ts): the one
 * step every parallel operator's worker task takes before its own work on the rows. Apart from
 * morsel.ts because the slot is defined with the decoder's type (core/registry/slots.ts imports
 * morsel.ts): resolving it there would be an import cycle.
 */
import type { RecordBatch } from 'apache-arrow';
import type { Registry } from '../registry/registry.ts';
import { SCAN_DECODER } from '../registry/slots.ts';
import type { DecodeOptions } from './morsel.ts';
import type { DecodeMorsel } from './scan.ts';

/** `morsel`'s batches, decoded by its decoder in `registry` (an unknown decoder: the registry's error). */
export function decodeMorsel(registry: Registry, morsel: Pick<DecodeMorsel, 'decoder' | 'descriptor'>, options: DecodeOptions): Promise<readonly RecordBatch[]> {
  return registry.resolve(SCAN_DECODER, morsel.decoder).decode(morsel.descriptor, options);
}
