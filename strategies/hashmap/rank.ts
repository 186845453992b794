/**
 * `rank`: a perfect hash for ONE integer key over a range too sparse for `array` — a bitmap with
 * one bit per value of [min, max], and each key's index among the distinct keys (its RANK: how many
 * set bits precede its own) as the slot number. No hashing and no key compare, on either side.
 *
 *   dir    (Int32Array, two words per 32 values of the range, interleaved)
 *          dir[2i]     = bits of values min + 32i .. min + 32i + 31 (bit b set: that key exists)
 *          dir[2i + 1] = set bits in all words before i (the rank of the word's first key)
 *   first  (Int32Array, one per distinct key, in key order)   first build row + 1 with that key
 *   next   (Int32Array, one per build row; dropped when no key repeats)
 *          next build row + 1 with r's key (0 = end); rows are inserted last to first, so chains
 *          are ASCENDING, the order the contract wants and the order a resumed probe relies on.
 *
 * Why (1M unique int64 keys, multiples of 10 over [0, 10M), 10M probes uniform over [0, 20M)):
 * `array` would need 40 MB of slots (density 0.1), and `swiss` must hash every probe row and
 * read a group word and, for ~11% of rows, a slot. Here the directory is range/4 bytes (2.5 MB),
 * a probe row costs a range test and one directory read — bits and rank base share a cache line —
 * and only the hits (5%) read `first`. The join skips hashing the probe side
 * (`needsProbeHashes = false`), and so does the `map` pushdown filter. bench/hashmap-micro.ts:
 * probe ~80 ms vs swiss ~119 ms (plus ~60 ms there to hash the probe keys, which swiss needs), build
 * ~20 ms vs ~50 ms, 6 MB vs 18 MB.
 *
 * A probe window (windowed-probe.ts) is resolved in passes with no branch on the data (half of a
 * uniform probe falls outside the range: a branchy test mispredicts on about every other row):
 *  1. SELECT: a hit mask per 32 rows (range test and bit test: key-offsets.ts, shared with array);
 *  2. EXPAND: the set bits' rows, in order (all true hits);
 *  3. RANK: per hit, base + popcount(bits below the key's bit), then a separate gather of
 *     `first[rank]` (two loops: the loads of each are independent, so their misses overlap).
 *
 * Key arithmetic is key-offsets.ts's (int32 offsets relative to min, no BigInt), over array.ts's
 * analysis of the build keys. Usable for the keys `array` takes — one int/uint column of 1 or 2
 * words, or bool — with a span of at most 2^30 values (a 256 MB directory); `auto` picks it after
 * `array` while the directory is at most AUTO_RANK_BYTES_PER_ROW (6) bytes per row, i.e. range
 * <= ~24 x rows (auto.ts has the measurements). NULLs: under null-equals-nothing NULL build rows are skipped and NULL probe rows
 * miss; NULL = NULL with a NULL build key is refused (a NULL has no bit), like `array`. An empty
 * build has span 0 and matches nothing.
 */
import { popcount32 } from '../../core/bitset.ts';
import { BUILD_STEP_ROWS, runSteps, type BuildInput, type HashMapLayout, type JoinHashTable, type ProbeCursor, type ProbeInput, type SharedTable } from '../../core/hashmap.ts';
import { shareView } from '../../core/parallel/wire.ts';
import type { FixedKeyColumn, KeyColumn } from '../../core/keys/types.ts';
import { releaseInt32, takeInt32 } from '../../core/memory/buffer-cache.ts';
import { analyzeArrayKeys, formatSpan, type ArrayKeyAnalysis } from './array.ts';
import { checkBuildInput, checkProbeArgs, checkProbeKeys, ReleaseGuard } from './table-support.ts';
import { buildOffsets, expandHits, keyOffsets, offsetAt, selectHits, type KeyOffsets } from './key-offsets.ts';

/** What a rank table's probe reads besides the keys (`share` / `restore`). */
interface RankState {
  readonly offsets: KeyOffsets;
  readonly span: number;
  readonly inserted: number;
  readonly distinctKeys: number;
  readonly dir: Int32Array;
  readonly first: Int32Array;
  readonly next: Int32Array | null;
}
import { containsWindows, probeWindows, WINDOW, type WindowMatches } from './windowed-probe.ts';

/** Largest span (max - min + 1) the rank layout indexes: 2^30 values = a 256 MB directory. */
export const RANK_MAX_SPAN = 2 ** 30;

/** Why the rank layout cannot index these keys, or null. */
export function rankUnsupportedReason(input: BuildInput): string | null {
  return rankReason(analyzeArrayKeys(input));
}

function rankReason(a: ArrayKeyAnalysis): string | null {
  if (a.keyReason !== null) return `the rank layout ${a.keyReason}`;
  if (a.span > RANK_MAX_SPAN) return `the rank layout needs a key range of at most 2^30 values, got ~${formatSpan(a.span)}`;
  return null;
}

/** Bytes of the directory for a key span (what `auto` weighs against the rows). */
export function rankDirectoryBytes(span: number): number {
  return 8 * Math.ceil(span / 32);
}

/** Window scratch (probes are synchronous): matches as windowed-probe.ts wants them. */
const MATCHES: WindowMatches = { rows: new Int32Array(WINDOW), firsts: new Int32Array(WINDOW) };

export class RankHashTable implements JoinHashTable {
  readonly layout = 'rank';
  readonly inserted: number;
  readonly memoryBytes: number;
  readonly needsProbeHashes = false;
  /** Distinct non-NULL keys (set bits). */
  readonly distinctKeys: number;
  /** max - min + 1. */
  readonly span: number;
  readonly hasDuplicates: boolean;
  readonly #dir: Int32Array;
  readonly #first: Int32Array;
  readonly #next: Int32Array | null;
  readonly #keys: readonly KeyColumn[];
  readonly #offsets: KeyOffsets;
  readonly #live = new ReleaseGuard('rank');
  /** Restored over another table's shared arrays: it never gives them to the buffer cache. */
  readonly #restored: boolean;

  /**
   * Over `state`: a table `rankSteps` just built (`built`), or a shared table's arrays (share /
   * restore: never released); without it, the table built here in one call.
   */
  constructor(input: BuildInput, analysis?: ArrayKeyAnalysis, state?: RankState, built = false) {
    if (state === undefined) {
      state = runSteps(rankSteps(input, analysis));
      built = true;
    }
    this.#restored = !built;
    this.#keys = input.keys;
    this.#offsets = state.offsets;
    this.span = state.span;
    this.inserted = state.inserted;
    this.distinctKeys = state.distinctKeys;
    this.hasDuplicates = state.next !== null;
    this.#dir = state.dir;
    this.#first = state.first;
    this.#next = state.next;
    this.memoryBytes = state.dir.byteLength + state.first.byteLength + (state.next === null ? 0 : state.next.byteLength);
  }

  /** Gives the table's arrays to the buffer cache; the table refuses to probe afterwards. */
  release(): void {
    if (this.#live.release() && !this.#restored) releaseInt32(this.#dir, this.#first, this.#next);
  }

  /** Directory, first rows and chain in shared memory (copied there unless allocated shared). */
  share(): SharedTable {
    this.#live.check();
    const state: RankState = {
      offsets: this.#offsets,
      span: this.span,
      inserted: this.inserted,
      distinctKeys: this.distinctKeys,
      dir: shareView(this.#dir),
      first: shareView(this.#first),
      next: this.#next === null ? null : shareView(this.#next),
    };
    return { layout: 'rank', state };
  }

  probe(input: ProbeInput, cursor: ProbeCursor, outProbe: Int32Array, outBuild: Int32Array, capacity: number): number {
    this.#live.check();
    checkProbeArgs(input, this.#keys, outProbe, outBuild, capacity, false);
    return probeWindows(input.rows, cursor, this.#next, outProbe, outBuild, capacity, (list, from, to) => this.#resolve(input, list, from, to), MATCHES);
  }

  contains(input: ProbeInput, out: Uint8Array, rows: Int32Array | null): void {
    this.#live.check();
    checkProbeKeys(input, this.#keys, false);
    containsWindows(rows === null ? input.rows : rows.length, rows, out, (list, from, to) => this.#resolve(input, list, from, to), MATCHES);
  }

  /** The window's matching rows, in row order, each with its first build row + 1, into MATCHES. */
  #resolve(input: ProbeInput, list: Int32Array | null, from: number, to: number): number {
    const p = input.keys[0] as FixedKeyColumn;
    selectHits(this.#offsets, this.#dir, 1, p.words, p.nulls, list, from, to);
    const c = expandHits(list, from, to, MATCHES.rows);
    rankHits(this.#offsets, this.#dir, this.#first, p.words, c);
    return c;
  }
}

/** The most a rank table over this analysis takes: directory, one first row per key, `next` if kept. */
export function rankTableBytes(a: ArrayKeyAnalysis, rows: number): number {
  return rankDirectoryBytes(a.span) + 4 * a.count + 4 * rows;
}

export function buildRankTable(input: BuildInput, analysis?: ArrayKeyAnalysis): RankHashTable {
  return new RankHashTable(input, analysis);
}

/**
 * The build as steps (core/hashmap.ts `buildSteps`), `BUILD_STEP_ROWS` rows a step: offsets and
 * directory bits, the rank counts, then rows inserted last to first.
 */
function* rankSteps(input: BuildInput, analysis?: ArrayKeyAnalysis): Generator<void, RankState> {
  analysis ??= analyzeArrayKeys(input);
  checkBuildInput(input);
  const reason = rankReason(analysis);
  if (reason !== null) throw new RangeError(reason);
  const col = input.keys[0] as FixedKeyColumn;
  const { rows } = input;
  const k = keyOffsets(analysis);
  const shared = input.shared === true;
  const dir = takeInt32(2 * Math.ceil(analysis.span / 32), true, shared);
  const offsets = takeInt32(rows, false);
  try {
    for (let from = 0; from < rows; from += BUILD_STEP_ROWS) {
      const to = Math.min(rows, from + BUILD_STEP_ROWS);
      buildOffsets(k, col.words, col.nulls, to, offsets, from);
      for (let r = from; r < to; r++) {
        const o = offsets[r]!;
        if (o >= 0) dir[(o >>> 5) << 1] |= 1 << (o & 31);
      }
      yield;
    }
    let distinct = 0;
    for (let i = 0; i < dir.length; i += 2) {
      dir[i + 1] = distinct;
      distinct += popcount32(dir[i]!);
    }
    yield;
    const first = takeInt32(distinct, true, shared);
    const next = takeInt32(rows, true, shared);
    let dup = false;
    for (let top = rows; top > 0; top -= BUILD_STEP_ROWS) {
      dup = insertRanked(offsets, dir, first, next, top, Math.max(0, top - BUILD_STEP_ROWS)) || dup;
      yield;
    }
    if (!dup) releaseInt32(next);
    return { offsets: k, span: analysis.span, inserted: analysis.count, distinctKeys: distinct, dir, first, next: dup ? next : null };
  } finally {
    releaseInt32(offsets);
  }
}

/** Rows top-1 .. bottom in front of their key's chain; true when one found a chain already started (a duplicate key). */
function insertRanked(offsets: Int32Array, dir: Int32Array, first: Int32Array, next: Int32Array, top: number, bottom: number): boolean {
  let dup = false;
  for (let r = top - 1; r >= bottom; r--) {
    const o = offsets[r]!;
    if (o < 0) continue;
    const i = (o >>> 5) << 1;
    const rank = dir[i + 1]! + popcount32(dir[i]! & ~(-1 << (o & 31)));
    const f = first[rank]!;
    dup ||= f !== 0;
    next[r] = f;
    first[rank] = r + 1;
  }
  return dup;
}

export const rankLayout: HashMapLayout = {
  name: 'rank',
  description: 'bitmap over the key range + per-word rank counts: a perfect hash for one integer key (range <= 2^30), no hashing',
  unsupportedReason: rankUnsupportedReason,
  estimateBytes: (input) => rankTableBytes(analyzeArrayKeys(input), input.rows),
  build: (input) => new RankHashTable(input),
  *buildSteps(input) {
    return new RankHashTable(input, undefined, yield* rankSteps(input), true);
  },
  restore: (shared, input) => new RankHashTable({ ...input, hashes: new Uint32Array(0) }, undefined, shared.state as RankState),
};

// --- probe ---------------------------------------------------------------------------------------

/**
 * Pass 3 (RANK): MATCHES.firsts[i] = first[rank of row i's key] for the c hit rows: the ranks
 * first, then the gather — two loops whose loads are each independent, so their misses overlap
 * (one fused loop made the whole probe ~8% slower).
 */
function rankHits(k: KeyOffsets, dir: Int32Array, first: Int32Array, pw: Int32Array, c: number): void {
  const rows = MATCHES.rows;
  const out = MATCHES.firsts;
  for (let i = 0; i < c; i++) {
    const o = offsetAt(k, pw, rows[i]!);
    const w = (o >>> 5) << 1;
    out[i] = dir[w + 1]! + popcount32(dir[w]! & ~(-1 << (o & 31)));
  }
  for (let i = 0; i < c; i++) out[i] = first[out[i]!]!;
}
