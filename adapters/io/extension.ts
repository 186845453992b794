/**
 * The file formats' parts that worker threads need: the Parquet morsel decoder (a scan hands
 * out row groups, a worker decodes them). Loaded as a built-in extension, so every worker — which
 * loads the engine's extensions — has it.
 */
import type { Extension } from '../../core/registry/extensions.ts';
import { SCAN_DECODER } from '../../core/registry/slots.ts';
import { parquetDecoder } from './parquet-decoder.ts';

const extension: Extension = {
  name: 'joinlab.io',
  load(registry) {
    registry.register(SCAN_DECODER, parquetDecoder);
  },
};
export default extension;
