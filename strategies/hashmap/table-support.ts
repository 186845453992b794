/**
 * What every hash-map layout shares around its own loops (chained, array, rank, linear, swiss):
 *
 *  - the argument checks of a build and of a probe (once per call, never per row);
 *  - the generic probe-row/build-row equality (`makeRowEquality`) and its per-probe-batch cache
 *    (`ProbeEquality`), for keys no layout compares on raw words;
 *  - table sizing: the power-of-two bit count of a table (`tableBits`) and the slot count of the
 *    open-addressing layouts (`slotBits`, linear and swiss);
 *  - the after-release guard of the layouts that give their arrays to the buffer cache (swiss, rank).
 */
import type { BuildInput, ProbeInput } from '../../core/hashmap.ts';
import { makeKeyComparator } from '../../core/keys/compare.ts';
import { anyNullMask } from '../../core/keys/normalize.ts';
import type { KeyColumn } from '../../core/keys/types.ts';
import { isBytesKey } from '../../core/keys/types.ts';

/** Row equality between a probe row (i) and a build row (j), NULL rules already applied. */
export type RowEquality = (i: number, j: number) => boolean;

/**
 * The comparator and NULL-skip mask of a probe batch against one build side (the generic paths of
 * `chained` and `swiss`): rebuilt only when the batch's columns change (a 1M-match row probed 8
 * pairs at a time must not rebuild them 125k times). Compared column by column, not by array
 * identity, so a caller reusing one `keys` array for every batch is safe.
 */
export class ProbeEquality {
  #keys: readonly KeyColumn[] | null = null;
  #state: { readonly equal: RowEquality; readonly skip: Uint8Array | null } | null = null;

  constructor(
    private readonly build: readonly KeyColumn[],
    private readonly nullEqualsNull: boolean,
  ) {}

  prepare(probe: readonly KeyColumn[]): { readonly equal: RowEquality; readonly skip: Uint8Array | null } {
    const cached = this.#keys;
    if (this.#state !== null && cached !== null && cached.length === probe.length && cached.every((c, k) => c === probe[k])) return this.#state;
    this.#state = {
      equal: makeRowEquality(probe, this.build, this.nullEqualsNull),
      // under null-equals-nothing a probe row with any NULL is skipped before touching the table
      skip: this.nullEqualsNull ? null : anyNullMask(probe),
    };
    this.#keys = [...probe];
    return this.#state;
  }
}

/**
 * Probe-row/build-row equality for the generic path. Under null-equals-nothing neither side's
 * NULL rows reach it (build rows are not inserted, probe rows are skipped), so it is the plain
 * comparator. Under null-equals-null each column first compares NULL flags and compares values
 * only when both are valid (a NULL bytes row's offsets/codes are garbage).
 */
export function makeRowEquality(probe: readonly KeyColumn[], build: readonly KeyColumn[], nullEqualsNull: boolean): RowEquality {
  const anyNulls = probe.some((c) => c.nulls !== null) || build.some((c) => c.nulls !== null);
  if (!nullEqualsNull || !anyNulls) return makeKeyComparator(probe, build).equal;
  const n = probe.length;
  const eqs = probe.map((c, k) => makeKeyComparator([c], [build[k]!]).equal);
  const pn = probe.map((c) => c.nulls);
  const bn = build.map((c) => c.nulls);
  if (n === 1) {
    const e = eqs[0]!;
    const a = pn[0]!;
    const b = bn[0]!;
    return (i, j) => {
      const x = a === null ? 0 : a[i]!;
      const y = b === null ? 0 : b[j]!;
      return x === y && (x !== 0 || e(i, j));
    };
  }
  return (i, j) => {
    for (let k = 0; k < n; k++) {
      const a = pn[k]!;
      const b = bn[k]!;
      const x = a === null ? 0 : a[i]!;
      const y = b === null ? 0 : b[j]!;
      if (x !== y) return false;
      if (x === 0 && !eqs[k]!(i, j)) return false;
    }
    return true;
  };
}

// --- argument checks (once per call, never per row) ----------------------------------------------

/** The checks of a build's input every layout makes before indexing it. */
export function checkBuildInput(input: BuildInput): void {
  const { keys, rows, hashes } = input;
  if (keys.length === 0) throw new RangeError('a hash table needs at least one key column');
  if (!Number.isInteger(rows) || rows < 0) throw new RangeError(`build rows must be a non-negative integer, got ${rows}`);
  for (const k of keys) if (k.length < rows) throw new RangeError(`build key column has ${k.length} rows, expected ${rows}`);
  if (hashes.length < rows) throw new RangeError(`build hashes has ${hashes.length} entries, expected ${rows}`);
}

/** Probe keys must be normalised to the build's kinds; `hashed` layouts also need the hashes. */
export function checkProbeKeys(input: ProbeInput, build: readonly KeyColumn[], hashed = true): void {
  const { keys, rows } = input;
  if (keys.length !== build.length) throw new RangeError(`probe has ${keys.length} key columns, the build ${build.length}`);
  for (let k = 0; k < keys.length; k++) {
    const p = keys[k]!;
    const b = build[k]!;
    if (p.kind.width !== b.kind.width || p.kind.order !== b.kind.order || isBytesKey(p) !== isBytesKey(b)) {
      throw new RangeError(`probe key column ${k} is ${p.kind.sqlType}, the build's ${b.kind.sqlType}: normalise both to one kind`);
    }
    if (p.length < rows) throw new RangeError(`probe key column ${k} has ${p.length} rows, expected ${rows}`);
  }
  if (hashed && input.hashes.length < rows) throw new RangeError(`probe hashes has ${input.hashes.length} entries, expected ${rows}`);
}

export function checkProbeArgs(input: ProbeInput, build: readonly KeyColumn[], outProbe: Int32Array, outBuild: Int32Array, capacity: number, hashed = true): void {
  checkProbeKeys(input, build, hashed);
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`probe capacity must be a positive integer, got ${capacity}`);
  if (outProbe.length < capacity || outBuild.length < capacity) {
    throw new RangeError(`probe output buffers (${outProbe.length}, ${outBuild.length}) are smaller than capacity ${capacity}`);
  }
}

// --- sizing --------------------------------------------------------------------------------------

/** The fewest bits a table has: 16 slots. */
const MIN_TABLE_BITS = 4;

/** log2 of the smallest power of two >= `want`, within [4, maxBits]. */
export function tableBits(want: number, maxBits: number): number {
  let bits = MIN_TABLE_BITS;
  while (bits < maxBits && 2 ** bits < want) bits++;
  return bits;
}

/** Slots per distinct key before rounding up to a power of two: load factor 1/4 .. 1/2. */
export const SLOTS_PER_KEY = 2;
/** Slots per key while the table stays at most ROOMY_MAX_SLOTS: load factor 1/8 .. 1/4. */
export const ROOMY_SLOTS_PER_KEY = 4;
/** 2^20 slots = 13.6 MB of linear slots (1 MB of tags): the largest table sized at ROOMY_SLOTS_PER_KEY. */
export const ROOMY_MAX_SLOTS = 2 ** 20;
/** log2 of the most slots an open-addressing table (linear, swiss) has: 2^27. */
export const SLOT_MAX_BITS = 27;

/**
 * log2 of the slot count for `keys` distinct keys: nextPow2(4 keys) while that is at most 2^20
 * slots, else nextPow2(2 keys) — at least 16 slots, load factor <= 1/2 always. Below the cap
 * the lower load factor shortens the tag scans (branchy, ~2x fewer slots per miss) for at most
 * 13.6 MB; above it memory wins (1M keys: 26 MB, not 52).
 */
export function slotBits(keys: number): number {
  const roomy = tableBits(keys * ROOMY_SLOTS_PER_KEY, SLOT_MAX_BITS);
  return 2 ** roomy <= ROOMY_MAX_SLOTS ? roomy : tableBits(keys * SLOTS_PER_KEY, SLOT_MAX_BITS);
}

// --- release -------------------------------------------------------------------------------------

/**
 * The after-release check of a table whose arrays go back to the buffer cache (swiss, rank): once
 * released, the arrays may belong to another table, so every probe refuses.
 */
export class ReleaseGuard {
  #released = false;

  constructor(private readonly layout: string) {}

  /** Marks the table released: true the first time (the caller then gives its arrays back), false after. */
  release(): boolean {
    if (this.#released) return false;
    this.#released = true;
    return true;
  }

  /** Throws once the table was released. */
  check(): void {
    if (this.#released) throw new Error(`${this.layout} table used after release()`);
  }
}
