/**
 * The Thrift compact protocol as Parquet footers use it, wire-type preserving: a struct read and
 * written back is byte-compatible with what the writer meant (an i8 stays an i8, an i16 an i16),
 * so a footer can be re-encoded with a few fields changed (parquet-subfile.ts builds sub-files,
 * and parquet-write.ts patches the footers it writes, this way). Values are kept untyped (`TStruct` = the fields in wire order);
 * the accessors below read one field by id. Every read is bounds-checked: a `ThriftError` says at
 * which footer byte the bytes stop making sense.
 */
export const T_STOP = 0;
export const T_TRUE = 1;
export const T_FALSE = 2;
export const T_BYTE = 3;
export const T_I16 = 4;
export const T_I32 = 5;
export const T_I64 = 6;
export const T_DOUBLE = 7;
export const T_BINARY = 8;
export const T_LIST = 9;
export const T_SET = 10;
export const T_MAP = 11;
export const T_STRUCT = 12;
export const T_UUID = 13;

export interface TList {
  readonly elemType: number;
  readonly items: TValue[];
}
export interface TMap {
  readonly keyType: number;
  readonly valType: number;
  readonly entries: TValue[]; // k0, v0, k1, v1, ...
}
export type TValue = boolean | number | bigint | Uint8Array | TList | TMap | TStruct;
export interface TField {
  readonly id: number;
  readonly type: number;
  readonly value: TValue;
}
export type TStruct = TField[];

export class ThriftError extends Error {}

export class ThriftReader {
  pos: number;
  readonly view: DataView;
  constructor(
    readonly bytes: Uint8Array,
    readonly start: number,
    readonly end: number,
  ) {
    this.pos = start;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  /** Position within the footer, for messages. */
  get at(): number {
    return this.pos - this.start;
  }
  fail(msg: string): never {
    throw new ThriftError(`footer byte ${this.at} of ${this.end - this.start}: ${msg}`);
  }
  need(n: number): void {
    if (this.pos + n > this.end) this.fail(`a ${n}-byte value runs past the end of the footer (corrupt or cut short)`);
  }
  u8(): number {
    this.need(1);
    return this.bytes[this.pos++]!;
  }
  varint32(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 5; i++) {
      const b = this.u8();
      result += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return result;
      mul *= 128;
    }
    this.fail('a 32-bit varint longer than 5 bytes');
  }
  varint64(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      const b = this.u8();
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
    this.fail('a 64-bit varint longer than 10 bytes');
  }
  zigzag32(): number {
    const n = this.varint32();
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }
  zigzag64(): bigint {
    const n = this.varint64();
    return (n >> 1n) ^ -(n & 1n);
  }
  value(type: number, depth: number, inContainer: boolean): TValue {
    switch (type) {
      case T_TRUE:
      case T_FALSE:
        // In a struct the value lives in the field header; in a list it is one byte (kept raw).
        return inContainer ? this.u8() : type === T_TRUE;
      case T_BYTE: {
        this.need(1);
        return this.view.getInt8(this.pos++);
      }
      case T_I16:
      case T_I32:
        return this.zigzag32();
      case T_I64:
        return this.zigzag64();
      case T_DOUBLE: {
        this.need(8);
        const v = this.view.getFloat64(this.pos, true);
        this.pos += 8;
        return v;
      }
      case T_BINARY: {
        const len = this.varint32();
        this.need(len);
        const v = this.bytes.subarray(this.pos, this.pos + len);
        this.pos += len;
        return v;
      }
      case T_UUID: {
        this.need(16);
        const v = this.bytes.subarray(this.pos, this.pos + 16);
        this.pos += 16;
        return v;
      }
      case T_LIST:
      case T_SET: {
        const h = this.u8();
        const elemType = h & 0x0f;
        let size = h >> 4;
        if (size === 15) size = this.varint32();
        if (size > this.end - this.pos) this.fail(`a list of ${size} elements cannot fit in the ${this.end - this.pos} bytes left`);
        const items: TValue[] = new Array(size);
        for (let i = 0; i < size; i++) items[i] = this.value(elemType, depth + 1, true);
        return { elemType, items };
      }
      case T_MAP: {
        const size = this.varint32();
        if (size > this.end - this.pos) this.fail(`a map of ${size} entries cannot fit in the ${this.end - this.pos} bytes left`);
        const kv = size > 0 ? this.u8() : 0;
        const keyType = kv >> 4;
        const valType = kv & 0x0f;
        const entries: TValue[] = [];
        for (let i = 0; i < size; i++) {
          entries.push(this.value(keyType, depth + 1, true), this.value(valType, depth + 1, true));
        }
        return { keyType, valType, entries };
      }
      case T_STRUCT:
        return this.struct(depth + 1);
      default:
        this.fail(`unknown Thrift field type ${type}`);
    }
  }
  struct(depth = 0): TStruct {
    if (depth > 64) this.fail('structs nested more than 64 deep');
    const fields: TStruct = [];
    let last = 0;
    for (;;) {
      const h = this.u8();
      const type = h & 0x0f;
      if (type === T_STOP) return fields;
      const delta = h >> 4;
      const id = delta !== 0 ? last + delta : this.zigzag32();
      last = id;
      fields.push({ id, type, value: this.value(type, depth, false) });
    }
  }
}

export class ThriftWriter {
  buf = new Uint8Array(4096);
  pos = 0;
  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }
  u8(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b & 0xff;
  }
  varint32(n: number): void {
    // n is an unsigned 32-bit value
    while (n >= 0x80) {
      this.u8((n & 0x7f) | 0x80);
      n = Math.floor(n / 128);
    }
    this.u8(n);
  }
  varint64(n: bigint): void {
    while (n >= 0x80n) {
      this.u8(Number(n & 0x7fn) | 0x80);
      n >>= 7n;
    }
    this.u8(Number(n));
  }
  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  value(type: number, v: TValue, inContainer: boolean): void {
    switch (type) {
      case T_TRUE:
      case T_FALSE:
        if (inContainer) this.u8(typeof v === 'number' ? v : v === true ? 1 : 2);
        return;
      case T_BYTE:
        this.u8(v as number);
        return;
      case T_I16:
      case T_I32: {
        const n = v as number;
        this.varint32(((n << 1) ^ (n >> 31)) >>> 0);
        return;
      }
      case T_I64: {
        const n = v as bigint;
        this.varint64(BigInt.asUintN(64, (n << 1n) ^ (n >> 63n)));
        return;
      }
      case T_DOUBLE: {
        this.ensure(8);
        new DataView(this.buf.buffer).setFloat64(this.pos, v as number, true);
        this.pos += 8;
        return;
      }
      case T_BINARY: {
        const b = v as Uint8Array;
        this.varint32(b.length);
        this.raw(b);
        return;
      }
      case T_UUID:
        this.raw(v as Uint8Array);
        return;
      case T_LIST:
      case T_SET: {
        const l = v as TList;
        if (l.items.length < 15) this.u8((l.items.length << 4) | l.elemType);
        else {
          this.u8(0xf0 | l.elemType);
          this.varint32(l.items.length);
        }
        for (const item of l.items) this.value(l.elemType, item, true);
        return;
      }
      case T_MAP: {
        const m = v as TMap;
        const size = m.entries.length / 2;
        this.varint32(size);
        if (size > 0) this.u8((m.keyType << 4) | m.valType);
        for (let i = 0; i < m.entries.length; i += 2) {
          this.value(m.keyType, m.entries[i]!, true);
          this.value(m.valType, m.entries[i + 1]!, true);
        }
        return;
      }
      case T_STRUCT:
        this.struct(v as TStruct);
        return;
      default:
        throw new ThriftError(`unknown thrift type ${type}`);
    }
  }
  struct(fields: TStruct): void {
    let last = 0;
    for (const f of fields) {
      const type = f.type === T_TRUE || f.type === T_FALSE ? (f.value === true ? T_TRUE : T_FALSE) : f.type;
      const delta = f.id - last;
      if (delta > 0 && delta <= 15) this.u8((delta << 4) | type);
      else {
        this.u8(type);
        this.varint32(((f.id << 1) ^ (f.id >> 31)) >>> 0);
      }
      this.value(type, f.value, false);
      last = f.id;
    }
    this.u8(T_STOP);
  }
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}

export function tget(s: TStruct | undefined, id: number): TValue | undefined {
  if (!s) return undefined;
  for (const f of s) if (f.id === id) return f.value;
  return undefined;
}
export function tstruct(s: TStruct | undefined, id: number): TStruct | undefined {
  const v = tget(s, id);
  return Array.isArray(v) ? v : undefined;
}
export function tlist(s: TStruct | undefined, id: number): TList | undefined {
  const v = tget(s, id);
  return v !== undefined && typeof v === 'object' && 'items' in v ? v : undefined;
}
export function tbytes(s: TStruct | undefined, id: number): Uint8Array | undefined {
  const v = tget(s, id);
  return v instanceof Uint8Array ? v : undefined;
}
export function ti64(s: TStruct | undefined, id: number): bigint | undefined {
  const v = tget(s, id);
  return typeof v === 'bigint' ? v : typeof v === 'number' ? BigInt(v) : undefined;
}
/** A copy of `s` with the given fields replaced (`null` removes); new fields are inserted by id. */
export function twith(s: TStruct, updates: ReadonlyArray<readonly [number, number, TValue | null]>): TStruct {
  const out = s.filter((f) => !updates.some(([id]) => id === f.id));
  for (const [id, type, value] of updates) if (value !== null) out.push({ id, type, value });
  out.sort((a, b) => a.id - b.id);
  return out;
}

