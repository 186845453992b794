/**
 * The DuckDB bridge and the parity comparison see strings exactly and columns by position:
 * - a leading U+FEFF is data (node-api's VARCHAR decoder and Arrow JS's Utf8 getter both drop it;
 *   session.ts and compare.ts read the bytes), in both directions through DuckDB;
 * - `'\uFEFFa'` and `'a'` are different values to `compareResults`;
 * - a DuckDB result with two columns of one name converts (Arrow JS's `new RecordBatch` merged
 *   them by name and `new Table` threw) and compares column by column; loading such a table into
 *   DuckDB is a UsageError (its names are unique, case-insensitively).
 */
import { Float32, Float64, Int32, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8At } from '../../core/arrow/utf8.ts';
import { UsageError } from '../../core/errors.ts';
import { compareResults } from './compare.ts';
import { DuckDBSession } from './session.ts';

let duck: DuckDBSession;
beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(() => duck.close());

const texts = (t: Table, c = 0): (string | null)[] => {
  const d = t.getChildAt(c)!.data[0]!;
  return Array.from({ length: d.length }, (_, i) => (d.getValid(i) ? utf8At(d, i) : null));
};

describe('U+FEFF through DuckDB', () => {
  it('a query result keeps a leading U+FEFF', async () => {
    const t = await duck.query(`SELECT chr(65279) || 'a' AS s UNION ALL SELECT chr(65279) UNION ALL SELECT 'b' || chr(65279) ORDER BY s`);
    expect(texts(t).sort()).toEqual(['\uFEFF', '\uFEFFa', 'b\uFEFF'].sort());
  });

  it('a loaded table keeps it: DuckDB measures the same lengths', async () => {
    await duck.loadTable('bom', new Table({ s: vectorFromArray(['\uFEFFa', '\uFEFF', 'a'], new Utf8()) }));
    const t = await duck.query('SELECT length(s)::INTEGER AS n FROM bom');
    expect([...t.getChildAt(0)!]).toEqual([2, 1, 1]);
  });

  it("compareResults tells '\\uFEFFa' from 'a'", () => {
    const a = new Table({ s: vectorFromArray(['\uFEFFa'], new Utf8()) });
    const b = new Table({ s: vectorFromArray(['a'], new Utf8()) });
    expect(compareResults(a, b).equal).toBe(false);
    expect(compareResults(a, a).equal).toBe(true);
  });
});

describe('result columns that share a name', () => {
  it('convert with their own types, in order, and compare by position', async () => {
    const t = await duck.query(`SELECT 1 AS k, 'x' AS k, 2.5::FLOAT AS k, 0.25::DOUBLE AS K`);
    expect(t.schema.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual(['k:Int32', 'k:Utf8', 'k:Float32', 'K:Float64']);
    expect(t.batches[0]!.schema.fields.map((f) => String(f.type))).toEqual(['Int32', 'Utf8', 'Float32', 'Float64']);
    expect(t.getChildAt(0)!.get(0)).toBe(1);
    expect(texts(t, 1)).toEqual(['x']);
    const same = await duck.query(`SELECT 1 AS k, 'x' AS k, 2.5::FLOAT AS k, 0.25::DOUBLE AS K`);
    expect(compareResults(t, same).equal).toBe(true);
    const swapped = await duck.query(`SELECT 1 AS k, 'y' AS k, 2.5::FLOAT AS k, 0.25::DOUBLE AS K`);
    expect(compareResults(t, swapped).equal).toBe(false);
    expect([Int32, Utf8, Float32, Float64].every((T, i) => t.schema.fields[i]!.type instanceof T)).toBe(true);
  });

  it('cannot be loaded into one DuckDB table: a UsageError, not a DuckDB catalog error', async () => {
    const t = await duck.query(`SELECT 1 AS k, 'x' AS K`);
    await expect(duck.loadTable('dup', t)).rejects.toThrow(UsageError);
  });
});
