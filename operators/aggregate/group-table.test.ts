/**
 * The group table on its own: group ids against a reference grouping (a Map of key strings — test
 * only), with real hashes and with forced collisions (every row the same hash, or two bits of it),
 * so that the key comparison — NULL flags, words, bytes, dictionary codes — decides every lookup,
 * across several batches and past the first capacity of slots and groups.
 */
import { Table } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { hashKeys } from '../../core/keys/hash.ts';
import { normalizeKeyColumn } from '../../core/keys/normalize.ts';
import { keyKindOf } from '../../core/keys/resolve.ts';
import { MemoryPool } from '../../core/memory/pool.ts';
import { Rng } from '../../core/random.ts';
import { randomColumn, type LogicalType } from '../../adapters/datagen/random-tables.ts';
import { GroupTable } from './group-table.ts';

const KEY_SETS: readonly (readonly LogicalType[])[] = [
  ['int64'],
  ['utf8'],
  ['dict-utf8', 'int8'],
  ['float64', 'bool', 'decimal'],
  ['large-utf8', 'binary', 'ts-ns', 'uint64'],
  ['int32', 'int32'],
];

function referenceKey(t: Table, c: number, i: number): string {
  const v = t.getChildAt(c)!.get(i);
  if (v === null) return 'NULL';
  if (typeof v === 'number') return Object.is(v, -0) || v === 0 ? 'n0' : Number.isNaN(v) ? 'nan' : `n${v}`;
  if (v instanceof Uint8Array) return `b${Array.from(v).join(',')}`;
  return `${typeof v}:${String(v)}`;
}

describe('group table', () => {
  for (const mode of ['real', 'two-bit', 'constant'] as const) {
    it(`assigns first-appearance group ids (${mode} hashes)`, () => {
      const rng = new Rng(mode.length * 7919);
      for (const types of KEY_SETS) {
        const n = mode === 'constant' ? 1500 : 4000;
        const domain = mode === 'constant' ? 40 : 3000;
        const cols = types.map((type, k) => randomColumn(rng, { name: `k${k}`, type, domain, nullRate: 0.1, skew: 0.2 }, n));
        const t = new Table(Object.fromEntries(cols.map((v, k) => [`k${k}`, v])));
        const kinds = t.schema.fields.map((f) => keyKindOf(f.type, f.name));
        const pool = new MemoryPool();
        const res = pool.reservation('test');
        const table = new GroupTable(kinds, res, 'test');
        const ref = new Map<string, number>();
        // feed the rows in three slices (three "batches")
        const cuts = [0, Math.floor(n / 3), Math.floor((2 * n) / 3), n];
        for (let p = 0; p < 3; p++) {
          const slice = t.slice(cuts[p]!, cuts[p + 1]!);
          const m = slice.numRows;
          const keys = slice.schema.fields.map((f, c) => normalizeKeyColumn(slice.getChildAt(c)!, kinds[c]!, f.name));
          const hashes = hashKeys(keys, 17);
          if (mode === 'constant') hashes.fill(12345);
          if (mode === 'two-bit') for (let i = 0; i < m; i++) hashes[i] = hashes[i]! & 3;
          const out = new Int32Array(m);
          const created = new Int32Array(m);
          const before = table.groups;
          const made = table.findOrCreate(keys, hashes, null, m, out, created);
          for (let i = 0; i < m; i++) {
            const key = types.map((_, c) => referenceKey(slice, c, i)).join('|');
            let g = ref.get(key);
            if (g === undefined) {
              g = ref.size;
              ref.set(key, g);
              expect(created[g - before], `${types} row ${i}: creator of group ${g}`).toBe(i);
            }
            if (out[i] !== g) throw new Error(`${types.join(',')} (${mode}): row ${cuts[p]! + i} key ${key} got group ${out[i]}, expected ${g}`);
          }
          expect(made).toBe(ref.size - before);
        }
        expect(table.groups).toBe(ref.size);
        expect(res.size).toBe(table.bytes);
        res.free();
      }
    });
  }

  it('looks up a selection of rows only', () => {
    const rng = new Rng(4);
    const v = randomColumn(rng, { name: 'k', type: 'int32', domain: 50, nullRate: 0 }, 1000);
    const kind = keyKindOf(v.type, 'k');
    const keys = [normalizeKeyColumn(v, kind, 'k')];
    const table = new GroupTable([kind], new MemoryPool().reservation('t'), 't');
    const sel = Int32Array.from({ length: 500 }, (_, k) => 2 * k + 1);
    const out = new Int32Array(500);
    const rows = new Int32Array(500);
    const made = table.findOrCreate(keys, hashKeys(keys, 3), sel, 500, out, rows);
    const seen = new Map<number, number>();
    for (let k = 0; k < 500; k++) {
      const x = v.get(sel[k]!) as number;
      if (!seen.has(x)) seen.set(x, seen.size);
      expect(out[k]).toBe(seen.get(x));
    }
    expect(made).toBe(seen.size);
    for (let j = 0; j < made; j++) expect(rows[j]! % 2).toBe(1);
  });
});
