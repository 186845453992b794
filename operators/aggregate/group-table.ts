/**
 * The group table of the hash aggregate: an open-addressing hash table from a tuple of normalised
 * key values (core/keys/normalize.ts) to a dense group id 0, 1, 2, … in order of first appearance.
 * The same table dedupes (group, value) pairs for DISTINCT aggregates.
 *
 * Layout (everything a typed array; no object per group or per row):
 *  - `slots`: a power-of-two number of slots, linear probing, load <= 1/2, each slot
 *    `[group id + 1, hash]` (0 = empty) in one Int32Array, so a probe step is one cache line —
 *    the hash is compared before any key and rehashing never reads a key. A table over one
 *    two-word key (BIGINT, DOUBLE, DATE, TIMESTAMP, narrower ints: the common GROUP BY) keeps the
 *    key in the slot too, `[±(group id + 1), hash, low word, high word]` with the sign of the
 *    first entry the NULL flag, so finding an existing group touches one slot and nothing else;
 *  - per group: its key values, column by column, in the normalised representation —
 *    fixed-width kinds as `width` words per group plus a NULL byte, bytes kinds (strings) as one
 *    append-only byte arena with `offsets[g] .. offsets[g + 1]`.
 * Equality is the normalised one: ints of any width, decimals at one scale, -0.0 = 0.0, every NaN
 * equal, dictionary and plain strings by their bytes. NULL is a value of its own here (GROUP BY
 * keeps NULL keys together, unlike `=`): a NULL row has all-zero words (normalize.ts guarantees
 * it) and its NULL flag set, so NULL never equals a real value and equals every other NULL.
 *
 * Lookup (general case) is columnar, as DuckDB's `GroupedAggregateHashTable::FindOrCreateGroups`
 * (src/execution/aggregate_hashtable.cpp) does it: a chunk of at most 2048 rows goes through
 * rounds; in each round every pending row walks its probe sequence until it meets an empty slot
 * (it creates its group there, and later rows of the chunk find it) or a group with an equal
 * hash (a candidate); then the candidates' keys are compared one key column at a time (a tight
 * loop per column and kind), and the rows whose candidate was a hash collision continue at the
 * next slot in the next round. Rows never skip a slot holding their key: slots are never freed,
 * so everything before a key's slot in its probe sequence was occupied when it was inserted.
 * Such a row creates its group (if its key is new) a round late, after later rows of the chunk
 * created theirs; when that happened the chunk's new groups are renumbered by creator row, so
 * group ids follow the order of first appearance exactly (32-bit hash collisions are rare but
 * real: `bytesKeyHash` gives '日本197' and '日本118' the same hash).
 * Before each chunk the table is grown (slots and per-group arrays, reserved in the memory pool
 * first) so that even a chunk of all-new groups keeps the load at or below 1/2.
 */
import { UnsupportedTypeError } from '../../core/errors.ts';
import type { BytesKeyColumn, FixedKeyColumn, KeyColumn, KeyKind } from '../../core/keys/types.ts';
import type { Reservation } from '../../core/memory/pool.ts';

/** Rows looked up together (DuckDB's vector size). */
export const CHUNK = 2048;
const MIN_SLOTS = 1024;
const MAX_ARENA = 0x7fffffff;

interface FixedStore {
  readonly bytes: false;
  readonly width: number;
  words: Int32Array;
  nulls: Uint8Array;
}

interface BytesStore {
  readonly bytes: true;
  /** offsets[g] .. offsets[g + 1]: group g's bytes in `arena` (capacity + 1 entries). */
  offsets: Int32Array;
  arena: Uint8Array;
  nulls: Uint8Array;
}

type Store = FixedStore | BytesStore;

export class GroupTable {
  /** Groups created so far; ids are 0 .. groups - 1. */
  groups = 0;
  private slots: Int32Array = new Int32Array(0);
  private mask = -1;
  /** Int32 entries per slot: 2, or 4 when the one two-word key is kept in the slot. */
  private readonly stride: number;
  private capacity = 0;
  private readonly stores: Store[];
  private reservedBytes = 0;

  // per-chunk scratch (CHUNK entries each)
  private readonly pend = new Int32Array(CHUNK);
  private readonly pendSlot = new Int32Array(CHUNK);
  private readonly cmpPos = new Int32Array(CHUNK);
  private readonly cmpGroup = new Int32Array(CHUNK);
  private readonly cmpSlot = new Int32Array(CHUNK);
  private readonly match = new Uint8Array(CHUNK);
  /** Per group created in the current chunk: its creator's position in `sel`, and its slot. */
  private readonly creators = new Int32Array(CHUNK);
  private readonly creatorSlots = new Int32Array(CHUNK);

  constructor(
    readonly kinds: readonly KeyKind[],
    private readonly reservation: Reservation,
    private readonly what: string,
  ) {
    this.stores = kinds.map((k): Store =>
      k.width === 0
        ? { bytes: true, offsets: new Int32Array(1), arena: new Uint8Array(0), nulls: new Uint8Array(0) }
        : { bytes: false, width: k.width, words: new Int32Array(0), nulls: new Uint8Array(0) },
    );
    this.stride = kinds.length === 1 && kinds[0]!.width === 2 ? 4 : 2;
    this.reserve(8 * CHUNK * 4);
    this.growSlots(MIN_SLOTS);
  }

  /** Bytes this table holds (slots, per-group arrays, arenas, scratch). */
  get bytes(): number {
    return this.reservedBytes;
  }

  /**
   * Group ids of the selected rows: `out[k]` for row `sel[k]` (row k when `sel` is null),
   * k < count; rows with keys not seen before create groups. `hashes` = `hashKeys(keys, seed)`
   * per row (one seed for the table's life). Returns how many groups were created; the row that
   * created group `groupsBefore + j` is `newRows[j]` (its row index, not its position in `sel`).
   */
  findOrCreate(keys: readonly KeyColumn[], hashes: Uint32Array, sel: Int32Array | null, count: number, out: Int32Array, newRows: Int32Array | null): number {
    if (keys.length !== this.stores.length) throw new RangeError(`${this.what}: ${keys.length} key columns for a table of ${this.stores.length}`);
    const before = this.groups;
    const single = this.stride === 4 ? (keys[0] as FixedKeyColumn) : null;
    for (let start = 0; start < count; start += CHUNK) {
      const len = Math.min(CHUNK, count - start);
      this.ensureCapacity(this.groups + len);
      if (single !== null) this.chunkSingle(single, hashes, sel, start, len, out, newRows, before);
      else this.chunk(keys, hashes, sel, start, len, out, newRows, before);
    }
    return this.groups - before;
  }

  private chunk(
    keys: readonly KeyColumn[],
    hashes: Uint32Array,
    sel: Int32Array | null,
    start: number,
    len: number,
    out: Int32Array,
    newRows: Int32Array | null,
    before: number,
  ): void {
    const { pend, pendSlot, cmpPos, cmpGroup, cmpSlot, match } = this;
    const slots = this.slots;
    const mask = this.mask;
    const chunkBefore = this.groups;
    let np = len;
    for (let k = 0; k < len; k++) {
      const pos = start + k;
      pend[k] = pos;
      pendSlot[k] = hashes[sel === null ? pos : sel[pos]!]! & mask;
    }
    while (np > 0) {
      // phase 1: walk each pending row's probe sequence to an empty slot or an equal hash
      let nc = 0;
      for (let k = 0; k < np; k++) {
        const pos = pend[k]!;
        const row = sel === null ? pos : sel[pos]!;
        const h = hashes[row]!;
        let s = pendSlot[k]!;
        for (;;) {
          const e = slots[2 * s]!;
          if (e === 0) {
            const g = this.groups++;
            slots[2 * s] = g + 1;
            slots[2 * s + 1] = h;
            this.storeKeys(keys, row, g);
            out[pos] = g;
            this.creators[g - chunkBefore] = pos;
            this.creatorSlots[g - chunkBefore] = s;
            break;
          }
          if (slots[2 * s + 1] === (h | 0)) {
            cmpPos[nc] = pos;
            cmpGroup[nc] = e - 1;
            cmpSlot[nc] = s;
            nc++;
            break;
          }
          s = (s + 1) & mask;
        }
      }
      if (nc === 0) break;
      // phase 2: compare the candidates' keys, one column at a time
      match.fill(1, 0, nc);
      for (let c = 0; c < keys.length; c++) {
        const st = this.stores[c]!;
        const col = keys[c]!;
        if (st.bytes) compareBytes(st, col as BytesKeyColumn, sel, cmpPos, cmpGroup, nc, match);
        else compareFixed(st, col as FixedKeyColumn, sel, cmpPos, cmpGroup, nc, match);
      }
      // phase 3: matches are done; hash collisions continue at the next slot
      np = 0;
      for (let k = 0; k < nc; k++) {
        if (match[k] === 1) out[cmpPos[k]!] = cmpGroup[k]!;
        else {
          pend[np] = cmpPos[k]!;
          pendSlot[np] = (cmpSlot[k]! + 1) & mask;
          np++;
        }
      }
    }
    const made = this.groups - chunkBefore;
    if (made === 0) return;
    let ordered = true;
    for (let j = 1; j < made && ordered; j++) ordered = this.creators[j - 1]! < this.creators[j]!;
    if (!ordered) this.renumber(chunkBefore, made, start, len, out);
    if (newRows !== null) for (let j = 0; j < made; j++) newRows[chunkBefore - before + j] = sel === null ? this.creators[j]! : sel[this.creators[j]!]!;
  }

  /**
   * Restore first-appearance order among the `made` groups the chunk created: a row whose probe
   * met a hash collision creates its group a round later than the rows after it that did not.
   * Renumbers them by creator row — their hashes, keys, slots and the chunk's `out` entries — so
   * group ids always follow the input order of first appearance (rare: it needs a collision).
   */
  private renumber(base: number, made: number, start: number, len: number, out: Int32Array): void {
    const order = new Float64Array(made);
    for (let j = 0; j < made; j++) order[j] = this.creators[j]! * CHUNK + j;
    order.sort();
    const perm = new Int32Array(made); // old index -> new index
    const creators = new Int32Array(made);
    for (let t = 0; t < made; t++) {
      const j = order[t]! % CHUNK;
      perm[j] = t;
      creators[t] = this.creators[j]!;
    }
    this.creators.set(creators);
    for (let j = 0; j < made; j++) this.slots[2 * this.creatorSlots[j]!] = base + perm[j]! + 1;
    for (const st of this.stores) {
      const nulls = st.nulls.slice(base, base + made);
      for (let j = 0; j < made; j++) st.nulls[base + perm[j]!] = nulls[j]!;
      if (!st.bytes) {
        const w = st.width;
        const words = st.words.slice(base * w, (base + made) * w);
        for (let j = 0; j < made; j++) st.words.set(words.subarray(j * w, j * w + w), (base + perm[j]!) * w);
        continue;
      }
      const from = st.offsets[base]!;
      const to = st.offsets[base + made]!;
      const bytes = st.arena.slice(from, to);
      const offsets = st.offsets.slice(base, base + made + 1);
      let at = from;
      for (let t = 0; t < made; t++) {
        const j = order[t]! % CHUNK;
        const a = offsets[j]! - from;
        const n = offsets[j + 1]! - offsets[j]!;
        st.arena.set(bytes.subarray(a, a + n), at);
        at += n;
        st.offsets[base + t + 1] = at;
      }
    }
    for (let pos = start; pos < start + len; pos++) {
      const g = out[pos]!;
      if (g >= base) out[pos] = base + perm[g - base]!;
    }
  }

  /**
   * One two-word key column (BIGINT, DOUBLE, DATE, TIMESTAMP and every narrower integer — the
   * common GROUP BY): each row probes to its group or an empty slot in one pass, the key compared
   * inline. Rows are resolved in order, so groups are created in order of first appearance.
   */
  private chunkSingle(
    col: FixedKeyColumn,
    hashes: Uint32Array,
    sel: Int32Array | null,
    start: number,
    len: number,
    out: Int32Array,
    newRows: Int32Array | null,
    before: number,
  ): void {
    const slots = this.slots;
    const mask = this.mask;
    const st = this.stores[0] as FixedStore;
    const gw = st.words;
    const gn = st.nulls;
    const kw = col.words;
    const kn = col.nulls;
    for (let pos = start; pos < start + len; pos++) {
      const row = sel === null ? pos : sel[pos]!;
      const h = hashes[row]! | 0;
      const lo = kw[2 * row]!;
      const hi = kw[2 * row + 1]!;
      const isNull = kn === null ? 0 : kn[row]!;
      let s = h & mask;
      for (;;) {
        const o = 4 * s;
        const e = slots[o]!;
        if (e === 0) {
          const g = this.groups++;
          slots[o] = isNull === 0 ? g + 1 : -(g + 1);
          slots[o + 1] = h;
          slots[o + 2] = lo;
          slots[o + 3] = hi;
          gw[2 * g] = lo;
          gw[2 * g + 1] = hi;
          gn[g] = isNull;
          out[pos] = g;
          if (newRows !== null) newRows[g - before] = row;
          break;
        }
        if (slots[o + 1] === h && slots[o + 2] === lo && slots[o + 3] === hi && e < 0 === (isNull !== 0)) {
          out[pos] = e < 0 ? -e - 1 : e - 1;
          break;
        }
        s = (s + 1) & mask;
      }
    }
  }

  private storeKeys(keys: readonly KeyColumn[], row: number, g: number): void {
    for (let c = 0; c < keys.length; c++) {
      const st = this.stores[c]!;
      const col = keys[c]!;
      const isNull = col.nulls !== null && col.nulls[row] !== 0;
      st.nulls[g] = isNull ? 1 : 0;
      if (!st.bytes) {
        const w = st.width;
        const src = (col as FixedKeyColumn).words;
        for (let j = 0; j < w; j++) st.words[g * w + j] = src[row * w + j]!;
        continue;
      }
      const b = col as BytesKeyColumn;
      const at = st.offsets[g]!;
      if (isNull) {
        st.offsets[g + 1] = at;
        continue;
      }
      const e = b.codes === null ? row : b.codes[row]!;
      const from = b.offsets[e]!;
      const n = b.offsets[e + 1]! - from;
      if (at + n > st.arena.length) this.growArena(st, at + n);
      st.arena.set(b.bytes.subarray(from, from + n), at);
      st.offsets[g + 1] = at + n;
    }
  }

  private reserve(bytes: number): void {
    this.reservation.grow(bytes);
    this.reservedBytes += bytes;
  }

  private growArena(st: BytesStore, need: number): void {
    if (need > MAX_ARENA) {
      throw new UnsupportedTypeError(this.what, 'VARCHAR/BLOB', `with more than 2^31-1 bytes of distinct key values`);
    }
    const size = Math.min(MAX_ARENA, Math.max(need, 2 * st.arena.length, 4096));
    this.reserve(size - st.arena.length);
    const arena = new Uint8Array(size);
    arena.set(st.arena);
    st.arena = arena;
  }

  /** Per-group arrays for `groups` groups and slots for twice that (both doubling). */
  private ensureCapacity(groups: number): void {
    if (groups > this.capacity) {
      let cap = Math.max(this.capacity * 2, CHUNK);
      while (cap < groups) cap *= 2;
      this.growGroups(cap);
    }
    const slotCount = this.slots.length / this.stride;
    if (2 * groups > slotCount) {
      let n = slotCount * 2;
      while (n < 2 * groups) n *= 2;
      this.growSlots(n);
    }
  }

  private growGroups(cap: number): void {
    let perGroup = 0;
    for (const st of this.stores) perGroup += 1 + (st.bytes ? 4 : 4 * st.width);
    this.reserve((cap - this.capacity) * perGroup);
    for (const st of this.stores) {
      const nulls = new Uint8Array(cap);
      nulls.set(st.nulls.subarray(0, this.groups));
      st.nulls = nulls;
      if (st.bytes) {
        const offsets = new Int32Array(cap + 1);
        offsets.set(st.offsets.subarray(0, this.groups + 1));
        st.offsets = offsets;
      } else {
        const words = new Int32Array(cap * st.width);
        words.set(st.words.subarray(0, this.groups * st.width));
        st.words = words;
      }
    }
    this.capacity = cap;
  }

  /** Rehash every group into `n` slots (from the old slots' hashes; no key is read). */
  private growSlots(n: number): void {
    const stride = this.stride;
    this.reserve(4 * stride * n - this.slots.byteLength);
    const slots = new Int32Array(stride * n);
    const mask = n - 1;
    const old = this.slots;
    for (let o = 0; o < old.length; o += stride) {
      if (old[o] === 0) continue;
      let s = old[o + 1]! & mask;
      while (slots[stride * s] !== 0) s = (s + 1) & mask;
      for (let j = 0; j < stride; j++) slots[stride * s + j] = old[o + j]!;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

function compareFixed(st: FixedStore, col: FixedKeyColumn, sel: Int32Array | null, cmpPos: Int32Array, cmpGroup: Int32Array, nc: number, match: Uint8Array): void {
  const gw = st.words;
  const gn = st.nulls;
  const kw = col.words;
  const kn = col.nulls;
  const w = st.width;
  if (w === 2) {
    for (let k = 0; k < nc; k++) {
      if (match[k] === 0) continue;
      const pos = cmpPos[k]!;
      const r = sel === null ? pos : sel[pos]!;
      const g = cmpGroup[k]!;
      if (gw[2 * g] !== kw[2 * r] || gw[2 * g + 1] !== kw[2 * r + 1] || gn[g] !== (kn === null ? 0 : kn[r])) match[k] = 0;
    }
    return;
  }
  if (w === 1) {
    for (let k = 0; k < nc; k++) {
      if (match[k] === 0) continue;
      const pos = cmpPos[k]!;
      const r = sel === null ? pos : sel[pos]!;
      const g = cmpGroup[k]!;
      if (gw[g] !== kw[r] || gn[g] !== (kn === null ? 0 : kn[r])) match[k] = 0;
    }
    return;
  }
  for (let k = 0; k < nc; k++) {
    if (match[k] === 0) continue;
    const pos = cmpPos[k]!;
    const r = sel === null ? pos : sel[pos]!;
    const g = cmpGroup[k]!;
    if (gn[g] !== (kn === null ? 0 : kn[r])) {
      match[k] = 0;
      continue;
    }
    for (let j = 0; j < w; j++) {
      if (gw[g * w + j] !== kw[r * w + j]) {
        match[k] = 0;
        break;
      }
    }
  }
}

function compareBytes(st: BytesStore, col: BytesKeyColumn, sel: Int32Array | null, cmpPos: Int32Array, cmpGroup: Int32Array, nc: number, match: Uint8Array): void {
  const go = st.offsets;
  const ga = st.arena;
  const gn = st.nulls;
  const { offsets, bytes, codes, nulls } = col;
  for (let k = 0; k < nc; k++) {
    if (match[k] === 0) continue;
    const pos = cmpPos[k]!;
    const r = sel === null ? pos : sel[pos]!;
    const g = cmpGroup[k]!;
    const rowNull = nulls === null ? 0 : nulls[r]!;
    if (gn[g] !== rowNull) {
      match[k] = 0;
      continue;
    }
    if (rowNull === 1) continue;
    const e = codes === null ? r : codes[r]!;
    const p = offsets[e]!;
    const n = offsets[e + 1]! - p;
    const q = go[g]!;
    if (go[g + 1]! - q !== n) {
      match[k] = 0;
      continue;
    }
    for (let j = 0; j < n; j++) {
      if (ga[q + j] !== bytes[p + j]) {
        match[k] = 0;
        break;
      }
    }
  }
}
