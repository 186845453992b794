/**
 * What a workload generator hands the Parquet cache (adapters/datagen/cached-parquet.ts): each
 * table's SELECT in the order to write them, and statements around them (the comment text pool).
 */
import type { TableDef } from '../../adapters/datagen/cached-parquet.ts';

export interface WorkloadData {
  readonly tables: Readonly<Record<string, TableDef>>;
  readonly setup: readonly string[];
  readonly teardown: readonly string[];
}
