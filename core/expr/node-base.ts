/**
 * The evaluator's building blocks shared by `evaluate.ts` and `numeric-nodes.ts`: the evaluation
 * context, the per-kind vectors a node returns, scratch-buffer helpers and the node base class.
 * See `evaluate.ts` for the overall design.
 */
import type { RecordBatch } from 'apache-arrow';
import type { CompareOp } from './ast.ts';
import type { ExactVec } from './exact.ts';
import type { NumType } from './numeric-types.ts';

export type { ExactVec } from './exact.ts';

export type TemporalUnit = 'day' | 'date-ms' | 's' | 'ms' | 'us' | 'ns';

/** A node's compile-time type. */
export type VClass =
  | { readonly c: 'num'; readonly sql: string; readonly t: NumType }
  | { readonly c: 'bool' | 'str' | 'bin' | 'null'; readonly sql: string }
  | { readonly c: 'time'; readonly sql: string; readonly unit: TemporalUnit; readonly tz?: string };

export const BOOLEAN: VClass = { c: 'bool', sql: 'BOOLEAN' };
export const NULL_CLASS: VClass = { c: 'null', sql: 'NULL' };

/** One evaluation: the pair batch. */
export interface Ctx {
  readonly left: RecordBatch;
  readonly leftRows: Int32Array;
  readonly right: RecordBatch;
  readonly rightRows: Int32Array;
  readonly n: number;
  /**
   * Pairs whose value still matters (1), or null for all: an AND/OR argument after the first is
   * evaluated for every pair, but an overflow or a failed cast raises only for a live pair — one
   * the earlier arguments left undecided (SQL short-circuit, as DuckDB evaluates a conjunction).
   * (CASE and COALESCE instead evaluate a branch over a compacted batch of just its rows, with
   * `leftRows` / `rightRows` gathered and no live mask: conditional-nodes.ts.)
   */
  readonly live: Uint8Array | null;
}

/** An exact column read in place (see `Node.denseExact`). */
export type DenseExact =
  | { readonly kind: 'ints'; readonly values: Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array; readonly nulls: Uint8Array | null }
  | { readonly kind: 'words'; readonly words: Uint32Array; readonly stride: number; readonly nulls: Uint8Array | null };

/** A FLOAT or DOUBLE vector (FLOAT values are float32 values held in doubles). */
export interface NumVec {
  readonly values: Float64Array;
  readonly nulls: Uint8Array | null;
}

export interface StrVec {
  readonly offsets: Int32Array;
  readonly bytes: Uint8Array;
  /** Entry (offsets index) per pair. */
  readonly idx: Int32Array;
  readonly nulls: Uint8Array | null;
  /** Number of entries (offsets.length - 1). */
  readonly entries: number;
}

/**
 * Row lists that are 0, 1, 2, … over their whole length (`identity` in string-format.ts makes
 * them): a gather through one reads rows 0 .. n - 1 in order, so readers copy a prefix of the
 * column with `TypedArray.set` (a native conversion) instead of a loop whose element reads turn
 * slow once the loop has seen several typed-array classes (measured: 1.6 ns a row monomorphic,
 * 5.4 polymorphic).
 */
export const DENSE_ROWS = new WeakSet<Int32Array>();

// Node-owned buffers are reused across calls (evaluate is synchronous and never re-entered) and
// only grow; kernels look at the first `n` elements. While an evaluation runs under a meter
// (scratch.ts), every growth is announced to it BEFORE the new buffer exists — a refused growth
// allocates nothing and leaves the node's old buffer in place — and the new buffer is marked as
// scratch, so that `dropScratch` may later take it back from the node.

/** What an evaluation reports its scratch growth to (scratch.ts's ScratchMeter); null: nothing counts. */
export interface ScratchSink {
  grew(bytes: number): void;
}

let sink: ScratchSink | null = null;

/** Buffers counted as scratch (each counted at its full size while a node holds it). */
const SCRATCH = new WeakSet<ArrayBufferView>();

/** Marks an object a node holds whose typed-array fields are scratch too (a string writer). */
export const SCRATCH_HOLDER: unique symbol = Symbol('scratch holder');

/** Makes `s` the sink of the evaluation about to run; returns the previous one (restore it after). */
export function swapScratchSink(s: ScratchSink | null): ScratchSink | null {
  const prev = sink;
  sink = s;
  return prev;
}

/**
 * A node's buffer `old` is about to be replaced by a new one of `newBytes` (the old one becomes
 * garbage): the new bytes count, less the old buffer's when it was counted. The meter may refuse
 * by throwing (scratch.ts); then nothing changed.
 */
function replacing(old: ArrayBufferView | undefined, newBytes: number): void {
  if (sink === null) return;
  const had = old !== undefined && SCRATCH.has(old) ? old.byteLength : 0;
  if (newBytes > had) sink.grew(newBytes - had);
  if (had > 0) SCRATCH.delete(old!);
}

function made<T extends ArrayBufferView>(buf: T): T {
  if (sink !== null) SCRATCH.add(buf);
  return buf;
}

/**
 * `bytes` more of a buffer that is not a helper's (grown in place by its node and never dropped,
 * e.g. CASE's string bytes): counted the same way, before allocating.
 */
export function scratchGrewBy(bytes: number): void {
  if (sink !== null && bytes > 0) sink.grew(bytes);
}

export function f64(buf: Float64Array | undefined, n: number): Float64Array {
  if (buf !== undefined && buf.length >= n) return buf;
  replacing(buf, 8 * n);
  return made(new Float64Array(n));
}
export function u8(buf: Uint8Array | undefined, n: number): Uint8Array {
  if (buf !== undefined && buf.length >= n) return buf;
  replacing(buf, n);
  return made(new Uint8Array(n));
}
export function u32(buf: Uint32Array | undefined, n: number): Uint32Array {
  if (buf !== undefined && buf.length >= n) return buf;
  replacing(buf, 4 * n);
  return made(new Uint32Array(n));
}
export function i32(buf: Int32Array | undefined, n: number): Int32Array {
  if (buf !== undefined && buf.length >= n) return buf;
  replacing(buf, 4 * n);
  return made(new Int32Array(n));
}

/** Every node of the tree under `root` and the scratch holders they reference (field walk, cycles skipped). */
function holdersOf(root: Node): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const seen = new Set<object>();
  const stack: object[] = [root];
  while (stack.length > 0) {
    const obj = stack.pop()!;
    if (seen.has(obj)) continue;
    seen.add(obj);
    out.push(obj as Record<string, unknown>);
    for (const v of Object.values(obj)) {
      if (typeof v !== 'object' || v === null || ArrayBuffer.isView(v)) continue;
      if (v instanceof Node || SCRATCH_HOLDER in v) stack.push(v);
      else if (Array.isArray(v)) for (const x of v) if (x instanceof Node) stack.push(x);
    }
  }
  return out;
}

/** How many nodes the tree under `root` has (scratch.ts sizes its floor by it). */
export function nodeCount(root: Node): number {
  let n = 0;
  for (const h of holdersOf(root)) if (h instanceof Node) n++;
  return n;
}

/**
 * Takes the scratch buffers back from every node of the tree under `root` (and the writers they
 * hold): each field holding one gets an empty array of its type, which every helper above grows
 * again on the next call. Returns the bytes dropped (what their meter had counted for them).
 * A walk over the fields, once per evaluation under memory pressure (scratch.ts), never per row.
 */
export function dropScratch(root: Node): number {
  let freed = 0;
  for (const obj of holdersOf(root)) {
    for (const key of Object.keys(obj)) {
      const v = obj[key];
      if (!ArrayBuffer.isView(v) || !SCRATCH.has(v)) continue;
      SCRATCH.delete(v);
      freed += v.byteLength;
      obj[key] = new (v.constructor as new (n: number) => ArrayBufferView)(0);
    }
  }
  return freed;
}

/** `u8` for a buffer whose every byte is `fill` (constants, all-NULL masks): filled once, when it grows. */
export function u8Filled(buf: Uint8Array | undefined, n: number, fill: number): Uint8Array {
  return buf !== undefined && buf.length >= n ? buf : u8(buf, n).fill(fill);
}
/** `f64` for a buffer whose every element is `fill`: filled once, when it grows. */
export function f64Filled(buf: Float64Array | undefined, n: number, fill: number): Float64Array {
  return buf !== undefined && buf.length >= n ? buf : f64(buf, n).fill(fill);
}

/** `a | b` over null masks; `null` stands for "no NULLs". */
export function mergeNulls(a: Uint8Array | null, b: Uint8Array | null, n: number, buf: Uint8Array): Uint8Array | null {
  if (a === null) return b;
  if (b === null) return a;
  for (let k = 0; k < n; k++) buf[k] = a[k]! | b[k]!;
  return buf;
}

/** Whether pair k's value matters: not NULL and live. */
export function matters(nulls: Uint8Array | null, live: Uint8Array | null, k: number): boolean {
  return (nulls === null || nulls[k] === 0) && (live === null || live[k] === 1);
}

/** Comparison outcome index: 0 = less, 1 = equal, 2 = greater; LUT maps it to 0/1 per operator. */
export const COMPARE_LUT: Record<CompareOp, Uint8Array> = {
  '=': Uint8Array.of(0, 1, 0),
  '<>': Uint8Array.of(1, 0, 1),
  '<': Uint8Array.of(1, 0, 0),
  '<=': Uint8Array.of(1, 1, 0),
  '>': Uint8Array.of(0, 0, 1),
  '>=': Uint8Array.of(0, 1, 1),
};

export abstract class Node {
  /** The value when this node is an integer literal (literals adapt their type, see numeric-types.ts). */
  readonly intLiteral: bigint | null = null;
  /** Whether evaluating this node can raise (an overflow or a failed cast somewhere below it). Compile time only. */
  get mayRaise(): boolean {
    return false;
  }
  constructor(
    readonly cls: VClass,
    readonly label: string,
  ) {}
  num(_ctx: Ctx): NumVec {
    throw new Error(`bug: ${this.label} has no float form`);
  }
  exact(_ctx: Ctx): ExactVec {
    throw new Error(`bug: ${this.label} has no exact form`);
  }
  bool(_ctx: Ctx): Uint8Array {
    throw new Error(`bug: ${this.label} has no boolean form`);
  }
  str(_ctx: Ctx): StrVec {
    throw new Error(`bug: ${this.label} has no string form`);
  }
  /**
   * A constant's exact value as a double when it is one below 2^53 in magnitude (what `exact`
   * would repeat for every pair); null otherwise. Lets a comparison test a column against it
   * without materialising either side.
   */
  get exactScalar(): number | null {
    return null;
  }
  /**
   * The exact column this node reads, in place, when the pairs are its rows 0 .. n - 1 in order:
   * narrow integers and Date32 as their typed array, decimals as 32-bit words (`stride` per row),
   * plus the NULL mask; null when the node is not such a column or the rows are not dense.
   */
  denseExact(_ctx: Ctx): DenseExact | null {
    return null;
  }
  /** NULL mask (1 = NULL) or `null` for none; used by IS [NOT] NULL. */
  nulls(ctx: Ctx): Uint8Array | null {
    switch (this.cls.c) {
      case 'num':
        return this.cls.t.k === 'int' || this.cls.t.k === 'dec' ? this.exact(ctx).nulls : this.num(ctx).nulls;
      case 'time':
        return this.exact(ctx).nulls;
      case 'str':
      case 'bin':
        return this.str(ctx).nulls;
      default:
        throw new Error(`bug: nulls() on ${this.cls.c}`);
    }
  }
}

export abstract class CompareNode extends Node {
  protected buf?: Uint8Array;
  protected nullBuf?: Uint8Array;
  protected readonly lut: Uint8Array;

  constructor(
    op: CompareOp,
    protected readonly a: Node,
    protected readonly b: Node,
    label: string,
  ) {
    super(BOOLEAN, label);
    this.lut = COMPARE_LUT[op];
  }

  override get mayRaise(): boolean {
    return this.a.mayRaise || this.b.mayRaise;
  }
}
