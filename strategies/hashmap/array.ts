/**
 * `array`: DataFusion's ArrayMap — a perfect hash for ONE integer key over a small or dense range.
 *
 *   slot[key - min]  (Int32Array, one per value of [min, max])  first build row + 1 (0 = none)
 *   bits             (Int32Array, one bit per slot)             slot != 0
 *   next[r]          (Int32Array, one per build row)             next row + 1 with r's key (0 = end)
 *
 * A slot is a key, so a probe never compares keys and never reads hashes (the join need not even
 * hash the probe side for it). A window of probe rows is resolved the way `rank` resolves one
 * (key-offsets.ts): a branch-free pass tests range and presence bit per row into 32-row masks —
 * the bits are span/8 bytes, far more cache-friendly than the slots a miss would otherwise read —
 * then only the hits read their slot. Rows are inserted last to first, so a slot's chain is in
 * ascending row order — the order the contract wants and the order a resumed probe relies on.
 * When no key is duplicated `next` is dropped.
 *
 * Key arithmetic without BigInt: a 64-bit key is two words (lo, hi), only ever used RELATIVE to
 * min. The analysis below computes the span as (hi' - minHi') * 2^32 + (lo - minLo), where hi' is
 * the high word with the sign bit flipped for unsigned keys (so signed int32 order is the key's
 * order) — exact for spans up to 2^53 and, beyond, a double that still compares as "too wide" — so
 * keys anywhere in the int64/uint64 domain, ±2^63 included, are handled; what limits the layout is
 * only the span (<= 2^26 slots, 256 MB at most). Probe offsets are int32 (key-offsets.ts).
 *
 * Usable for: exactly one key column of kind int/uint width 2, or bool / int width 1. Not usable
 * (see `unsupportedReason`): several keys, floats/bytes/decimals/HUGEINT, a span over 2^26, or
 * NULL = NULL with a NULL build key (a NULL has no slot). Under null-equals-nothing NULL build rows
 * are skipped and NULL probe rows miss; under null-equals-null without NULL build keys a NULL
 * probe row can match nothing either. An empty build (0 non-NULL rows) is a table of 0 slots.
 */
import { BUILD_STEP_ROWS, runSteps, type BuildInput, type HashMapLayout, type JoinHashTable, type ProbeCursor, type ProbeInput, type SharedTable } from '../../core/hashmap.ts';
import { shareView } from '../../core/parallel/wire.ts';
import { keyExtremes, wordExtremes } from '../../core/keys/extremes.ts';
import type { FixedKeyColumn, KeyColumn } from '../../core/keys/types.ts';
import { allocInt32, releaseInt32, takeInt32 } from '../../core/memory/buffer-cache.ts';
import { checkBuildInput, checkProbeArgs, checkProbeKeys } from './table-support.ts';
import { buildOffsets, expandHits, keyOffsets, offsetAt, selectHits, type ArrayKeyAnalysis, type KeyOffsets } from './key-offsets.ts';

export type { ArrayKeyAnalysis } from './key-offsets.ts';
import { containsWindows, probeWindows, WINDOW, type WindowMatches } from './windowed-probe.ts';

/** Largest span (max - min + 1) the array layout indexes: 2^26 slots = 256 MB of Int32. */
export const ARRAY_MAX_SPAN = 2 ** 26;
const TWO_32 = 4294967296;
const SIGN = 0x80000000 | 0;

const cache = new WeakMap<BuildInput, ArrayKeyAnalysis>();

/** A key the range-addressed layouts cannot index: `problem` says why, after the layout's name. */
function refuse(problem: string): ArrayKeyAnalysis {
  return { reason: `the array layout ${problem}`, keyReason: problem, count: 0, span: 0, width: 0, flip: 0, minHi: 0, minLo: 0 };
}

/** One pass over the build key: min, max, non-NULL count, and whether the array layout applies. */
export function analyzeArrayKeys(input: BuildInput): ArrayKeyAnalysis {
  let a = cache.get(input);
  if (a === undefined) cache.set(input, (a = analyze(input)));
  return a;
}

function analyze(input: BuildInput): ArrayKeyAnalysis {
  const { keys, rows } = input;
  if (keys.length !== 1) return refuse(`needs exactly one key column, got ${keys.length}`);
  const col = keys[0]!;
  const { order, width, sqlType } = col.kind;
  const integer = ((order === 'int' || order === 'uint') && width === 2) || ((order === 'int' || order === 'bool') && width === 1);
  if (!integer) return refuse(`needs an integer or boolean key, got ${sqlType}`);
  const fixed = col as FixedKeyColumn;
  const nulls = fixed.nulls;
  if (input.nullEqualsNull && nulls !== null) {
    for (let r = 0; r < rows; r++) {
      if (nulls[r] !== 0) return refuse('cannot index NULL build keys under null-equals-null');
    }
  }
  const w = fixed.words;
  const flip = order === 'uint' ? SIGN : 0;
  // min/max as (hi', lo): hi' = high word ^ flip (signed), lo unsigned; 1-word keys: (0, the signed value).
  // A 2-word key over all its rows takes the shared (cached) pass: the swiss layout and the bounds pushdown read it too.
  const e = width === 2 && fixed.length === rows ? keyExtremes(fixed) : wordExtremes(w, width, order === 'uint', rows, nulls);
  if (e === null) return { reason: null, keyReason: null, count: 0, span: 0, width, flip, minHi: 0, minLo: 0 };
  const minHi = width === 2 ? w[2 * e.minRow + 1]! ^ flip : 0;
  const minLo = width === 2 ? w[2 * e.minRow]! >>> 0 : w[e.minRow]!;
  const maxHi = width === 2 ? w[2 * e.maxRow + 1]! ^ flip : 0;
  const maxLo = width === 2 ? w[2 * e.maxRow]! >>> 0 : w[e.maxRow]!;
  const span = (maxHi - minHi) * TWO_32 + (maxLo - minLo) + 1;
  return { reason: spanReason(span, sqlType), keyReason: null, count: e.count, span, width, flip, minHi, minLo };
}

function spanReason(span: number, sqlType: string): string | null {
  return span > ARRAY_MAX_SPAN ? `the array layout needs a key range of at most 2^26 values, got ~${formatSpan(span)} (${sqlType})` : null;
}

export function formatSpan(span: number): string {
  return span < 1e9 ? String(span) : span.toExponential(3);
}

export class ArrayHashTable implements JoinHashTable {
  readonly layout = 'array';
  readonly needsProbeHashes = false;
  readonly inserted: number;
  readonly memoryBytes: number;
  /** Slots: max - min + 1. */
  readonly span: number;
  /** Whether some key occurs more than once (otherwise `next` is not kept). */
  readonly hasDuplicates: boolean;
  readonly #slot: Int32Array;
  /** One presence bit per slot (slot != 0): what the branch-free probe pass tests. */
  readonly #bits: Int32Array;
  readonly #next: Int32Array | null;
  readonly #keys: readonly KeyColumn[];
  readonly #offsets: KeyOffsets;

  /** Over `state` (a table `arraySteps` built, or a shared table's arrays); without it, built here in one call. */
  constructor(input: BuildInput, analysis?: ArrayKeyAnalysis, state?: ArrayState) {
    state ??= runSteps(arraySteps(input, analysis));
    this.#keys = input.keys;
    this.#offsets = state.offsets;
    this.span = state.span;
    this.inserted = state.inserted;
    this.hasDuplicates = state.next !== null;
    this.#slot = state.slot;
    this.#bits = state.bits;
    this.#next = state.next;
    this.memoryBytes = state.slot.byteLength + state.bits.byteLength + (state.next === null ? 0 : state.next.byteLength);
  }

  /** Slots, presence bits and chain in shared memory (copied there unless allocated shared). */
  share(): SharedTable {
    const state: ArrayState = { offsets: this.#offsets, span: this.span, inserted: this.inserted, slot: shareView(this.#slot), bits: shareView(this.#bits), next: this.#next === null ? null : shareView(this.#next) };
    return { layout: 'array', state };
  }

  probe(input: ProbeInput, cursor: ProbeCursor, outProbe: Int32Array, outBuild: Int32Array, capacity: number): number {
    checkProbeArgs(input, this.#keys, outProbe, outBuild, capacity, false);
    return probeWindows(input.rows, cursor, this.#next, outProbe, outBuild, capacity, (list, from, to) => this.#resolve(input, list, from, to), MATCHES);
  }

  contains(input: ProbeInput, out: Uint8Array, rows: Int32Array | null): void {
    checkProbeKeys(input, this.#keys, false);
    containsWindows(rows === null ? input.rows : rows.length, rows, out, (list, from, to) => this.#resolve(input, list, from, to), MATCHES);
  }

  /** The window's matching rows, in row order, with their first build row + 1, into MATCHES. */
  #resolve(input: ProbeInput, list: Int32Array | null, from: number, to: number): number {
    const p = input.keys[0] as FixedKeyColumn;
    const k = this.#offsets;
    selectHits(k, this.#bits, 0, p.words, p.nulls, list, from, to);
    const c = expandHits(list, from, to, MATCHES.rows);
    const rowsHit = MATCHES.rows;
    const firsts = MATCHES.firsts;
    const slot = this.#slot;
    for (let i = 0; i < c; i++) firsts[i] = slot[offsetAt(k, p.words, rowsHit[i]!)]!;
    return c;
  }
}

/** Window scratch (probes are synchronous). */
const MATCHES: WindowMatches = { rows: new Int32Array(WINDOW), firsts: new Int32Array(WINDOW) };

/** The most an array table over this analysis takes: slots, presence bits, and `next` if kept. */
export function arrayTableBytes(a: ArrayKeyAnalysis, rows: number): number {
  return 4 * a.span + 4 * Math.ceil(a.span / 32) + 4 * rows;
}

export function buildArrayTable(input: BuildInput, analysis?: ArrayKeyAnalysis): ArrayHashTable {
  return new ArrayHashTable(input, analysis);
}

/** The build as steps (core/hashmap.ts `buildSteps`): offsets, then rows inserted last to first, `BUILD_STEP_ROWS` a step. */
function* arraySteps(input: BuildInput, analysis?: ArrayKeyAnalysis): Generator<void, ArrayState> {
  analysis ??= analyzeArrayKeys(input);
  checkBuildInput(input);
  if (analysis.reason !== null) throw new RangeError(analysis.reason);
  const col = input.keys[0] as FixedKeyColumn;
  const rows = input.rows;
  const k = keyOffsets(analysis);
  const span = analysis.span;
  const shared = input.shared === true;
  const slot = allocInt32(span, shared);
  const bits = allocInt32(Math.ceil(span / 32), shared);
  const next = allocInt32(rows, shared);
  const offsets = takeInt32(rows, false);
  try {
    for (let from = 0; from < rows; from += BUILD_STEP_ROWS) {
      buildOffsets(k, col.words, col.nulls, Math.min(rows, from + BUILD_STEP_ROWS), offsets, from);
      yield;
    }
    // last to first: each row goes in front of its slot's chain, so chains are ascending
    let dup = false;
    for (let top = rows; top > 0; top -= BUILD_STEP_ROWS) {
      dup = insertArray(offsets, slot, bits, next, top, Math.max(0, top - BUILD_STEP_ROWS)) || dup;
      yield;
    }
    return { offsets: k, span, inserted: analysis.count, slot, bits, next: dup ? next : null };
  } finally {
    releaseInt32(offsets);
  }
}

/** Rows top-1 .. bottom in front of their slot's chain; true when one found its slot taken (a duplicate key). */
function insertArray(offsets: Int32Array, slot: Int32Array, bits: Int32Array, next: Int32Array, top: number, bottom: number): boolean {
  let dup = false;
  for (let r = top - 1; r >= bottom; r--) {
    const o = offsets[r]!;
    if (o < 0) continue;
    const first = slot[o]!;
    dup ||= first !== 0;
    next[r] = first;
    slot[o] = r + 1;
    bits[o >>> 5] |= 1 << (o & 31);
  }
  return dup;
}

export const arrayLayout: HashMapLayout = {
  name: 'array',
  description: 'dense slot[key - min] + presence bits + next chain (one integer key, range <= 2^26), no hashing',
  unsupportedReason: (input) => analyzeArrayKeys(input).reason,
  estimateBytes: (input) => arrayTableBytes(analyzeArrayKeys(input), input.rows),
  build: (input) => new ArrayHashTable(input),
  *buildSteps(input) {
    return new ArrayHashTable(input, undefined, yield* arraySteps(input));
  },
  restore: (shared, input) => new ArrayHashTable({ ...input, hashes: new Uint32Array(0) }, undefined, shared.state as ArrayState),
};

/** What an array table's probe reads besides the keys (`share` / `restore`). */
interface ArrayState {
  readonly offsets: KeyOffsets;
  readonly span: number;
  readonly inserted: number;
  readonly slot: Int32Array;
  readonly bits: Int32Array;
  readonly next: Int32Array | null;
}
