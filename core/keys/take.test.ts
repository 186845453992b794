/**
 * takeKeyRows: the taken rows hash and compare exactly like the originals, for every key
 * representation (1-, 2-, 3-word fixed keys with NULLs, plain and dictionary strings), and a
 * reused scratch gives correct columns call after call.
 */
import { Dictionary, Int32, Int64, Uint64, Utf8, vectorFromArray } from 'apache-arrow';
import type { DataType } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { hashKeys } from './hash.ts';
import { normalizeKeyColumn } from './normalize.ts';
import { keyKindOf, resolveKeyKind } from './resolve.ts';
import { KeyRowsScratch, takeKeyRows } from './take.ts';
import type { KeyColumn } from './types.ts';

const norm = (type: DataType, values: readonly unknown[]): KeyColumn => normalizeKeyColumn(vectorFromArray(values as never[], type as never), keyKindOf(type, 'k'));

describe('takeKeyRows', () => {
  const cols: KeyColumn[] = [
    norm(new Int32(), [1, null, 3, 4, null, 6]),
    norm(new Int64(), [10n, 20n, null, -40n, 50n, 2n ** 40n]),
    norm(new Utf8(), ['a', null, '', 'dd', 'héllo', 'ff']),
    norm(new Dictionary(new Utf8(), new Int32()), ['x', 'y', 'x', null, 'z', 'y']),
    // a 3-word HUGEINT (an int64 key joined with a uint64 one)
    normalizeKeyColumn(vectorFromArray([null, 1n, -2n, 3n, 2n ** 62n, 5n], new Int64()), resolveKeyKind(new Int64(), new Uint64(), 'a', 'b')),
  ];
  const all = hashKeys(cols, 7);

  it('taken rows hash like the rows they came from, with or without a reused scratch', () => {
    const scratch = new KeyRowsScratch();
    for (const rows of [[5, 0, 3], [1, 2, 4, 4], [0, 1, 2, 3, 4, 5], []]) {
      const ids = Int32Array.from(rows);
      for (const s of [undefined, scratch]) {
        const taken = takeKeyRows(cols, ids, s);
        expect(taken.every((c) => c.length === rows.length)).toBe(true);
        if (rows.length > 0) expect(Array.from(hashKeys(taken, 7))).toEqual(rows.map((r) => all[r]));
      }
    }
  });

  it('keeps a dictionary column dictionary-encoded and copies a plain one', () => {
    const [, , plain, dict] = takeKeyRows(cols, Int32Array.from([4, 3]));
    expect(plain!.kind.width).toBe(0);
    expect((plain as { codes: unknown }).codes).toBeNull();
    expect((dict as { codes: Int32Array | null }).codes).not.toBeNull();
  });
});
