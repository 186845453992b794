/**
 * Key normalisation and hashing in steps, for callers under an AbortSignal (the hash join's build):
 * over millions of rows each is a pass of a second or more, during which no timer or signal
 * handler runs. Fixed-width keys are per-row words and per-row hashes, so a range of rows is
 * normalised (a zero-copy slice of the batch) or hashed (views of the words) alone and copied into
 * the one result: the same columns and hashes as one call. Bytes keys (entries, dictionary codes)
 * are done in one call. Between two ranges of `PACED_KEY_ROWS` rows the pacer gives the event loop
 * a turn when one is due and throws the signal's reason if it was aborted.
 */
import type { RecordBatch } from 'apache-arrow';
import type { Pacer } from '../next-turn.ts';
import { hashKeys } from './hash.ts';
import { normalizeKeys } from './normalize.ts';
import { isBytesKey, type FixedKeyColumn, type KeyColumn, type KeyKind } from './types.ts';

/** Rows normalised or hashed between two pacer checks. */
export const PACED_KEY_ROWS = 1 << 18;

type Turns = Pick<Pacer, 'due' | 'turn'>;

/** `normalizeKeys(batch, columns, kinds)`, a range of rows at a time for fixed-width kinds. */
export async function normalizeKeysPaced(batch: RecordBatch, columns: readonly string[], kinds: readonly KeyKind[], pacer: Turns): Promise<KeyColumn[]> {
  const rows = batch.numRows;
  if (rows <= PACED_KEY_ROWS || kinds.some((k) => k.width === 0)) {
    if (pacer.due()) await pacer.turn();
    return normalizeKeys(batch, columns, kinds);
  }
  const words = kinds.map((k) => new Int32Array(rows * k.width));
  const nulls: (Uint8Array | null)[] = kinds.map(() => null);
  for (let from = 0; from < rows; from += PACED_KEY_ROWS) {
    if (pacer.due()) await pacer.turn();
    const to = Math.min(rows, from + PACED_KEY_ROWS);
    const part = normalizeKeys(batch.slice(from, to), columns, kinds) as FixedKeyColumn[];
    for (let k = 0; k < kinds.length; k++) {
      words[k]!.set(part[k]!.words, from * kinds[k]!.width);
      if (part[k]!.nulls !== null) (nulls[k] ??= new Uint8Array(rows)).set(part[k]!.nulls!, from);
    }
  }
  return kinds.map((kind, k) => ({ kind, length: rows, words: words[k]!, nulls: nulls[k]! }) satisfies FixedKeyColumn);
}

/** `hashKeys(cols, seed)`, a range of rows at a time when every column is fixed-width. */
export async function hashKeysPaced(cols: readonly KeyColumn[], seed: number, pacer: Turns): Promise<Uint32Array> {
  const rows = cols[0]?.length ?? 0;
  if (rows <= PACED_KEY_ROWS || cols.some(isBytesKey)) {
    if (pacer.due()) await pacer.turn();
    return hashKeys(cols, seed);
  }
  const out = new Uint32Array(rows);
  for (let from = 0; from < rows; from += PACED_KEY_ROWS) {
    if (pacer.due()) await pacer.turn();
    const to = Math.min(rows, from + PACED_KEY_ROWS);
    const part = (cols as readonly FixedKeyColumn[]).map((c) => ({ kind: c.kind, length: to - from, words: c.words.subarray(from * c.kind.width, to * c.kind.width), nulls: c.nulls?.subarray(from, to) ?? null }));
    hashKeys(part, seed, out.subarray(from, to));
  }
  return out;
}
