/**
 * The sqllogictest file format: statements with and without expected errors, queries with every
 * sort mode, tab- and space-separated results, hashed results, comments, skipif/onlyif, nested
 * loop/foreach expansion, require, mode skip, halt, unknown commands reported as skips, and
 * malformed files rejected with the file and line.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../core/errors.ts';
import { parseSltFile, sltRecords } from './parse.ts';

const FILE = `# name: test/example.test
# group: [joins]

require parquet

statement ok
CREATE TABLE t AS SELECT range AS k FROM range(3)

statement error
SELECT * FROM missing
----
Catalog Error

query II rowsort
SELECT a.k, b.k
FROM t a JOIN t b ON a.k = b.k
----
0	0
1	1
2 2

query T nosort label1
SELECT 'x y'
----
x y

query I valuesort
SELECT k FROM t
----
3 values hashing to 0123456789abcdef

skipif duckdb
query I
SELECT 1
----
1

onlyif duckdb
statement ok
SELECT 2

mode skip

query I
SELECT 3
----
3

mode unskip

load some.db

hash-threshold 10

halt

statement ok
SELECT 'after halt'
`;

describe('parseSltFile', () => {
  const f = parseSltFile(FILE, 'example.test');

  it('reads statements, queries, expected rows and hashes', () => {
    expect(f.requires).toEqual(['parquet']);
    const [create, bad, join, label, hashed] = f.records;
    expect(create).toMatchObject({ kind: 'statement', expect: 'ok', sql: 'CREATE TABLE t AS SELECT range AS k FROM range(3)', error: null, line: 6 });
    expect(bad).toMatchObject({ kind: 'statement', expect: 'error', sql: 'SELECT * FROM missing', error: 'Catalog Error' });
    expect(join).toMatchObject({ kind: 'query', types: 'II', sort: 'rowsort', sql: 'SELECT a.k, b.k\nFROM t a JOIN t b ON a.k = b.k', expected: { rows: [['0', '0'], ['1', '1'], ['2', '2']] } });
    // a one-column value with a space stays one value
    expect(label).toMatchObject({ kind: 'query', types: 'T', sort: 'nosort', label: 'label1', expected: { rows: [['x y']] } });
    expect(hashed).toMatchObject({ kind: 'query', sort: 'valuesort', expected: { values: 3, hash: '0123456789abcdef' } });
  });

  it('skipif / onlyif, mode skip, unknown commands, halt', () => {
    const rest = f.records.slice(5);
    expect(rest.map((r) => (r.kind === 'skip' ? `skip: ${r.reason}` : r.kind))).toEqual(['skip: skipif/onlyif', 'statement', 'skip: mode skip', "skip: command 'load' is not supported"]);
  });

  it('expands nested loop and foreach with ${var} substituted', () => {
    const g = parseSltFile(`loop i 0 2
foreach t INTEGER <signed>
statement ok
CREATE TABLE x_\${i} (v \${t})

endloop
endloop
`);
    const sqls = g.records.map((r) => (r.kind === 'statement' ? r.sql : ''));
    expect(sqls).toHaveLength(2 * 6);
    expect(sqls[0]).toBe('CREATE TABLE x_0 (v INTEGER)');
    expect(sqls[1]).toBe('CREATE TABLE x_0 (v tinyint)');
    expect(sqls[6]).toBe('CREATE TABLE x_1 (v INTEGER)');
  });

  it('rejects malformed files with the file and line', () => {
    const bad = (text: string) => () => parseSltFile(text, 'bad.test');
    expect(bad('loop i 0 3\nstatement ok\nSELECT 1\n')).toThrow(/bad\.test:1: loop without endloop/);
    expect(bad('endloop\n')).toThrow(/bad\.test:1: endloop without loop/);
    expect(bad('loop i 5 1\nendloop\n')).toThrow(/integer bounds/);
    expect(bad('statement maybe_not\nSELECT 1\n')).toThrow(/expected ok, error or maybe/);
    expect(bad('query 1\nSELECT 1\n----\n1\n')).toThrow(/column types/);
  });

  it('a query without ---- has no expected block; a record written wrongly is an invalid record and the rest still parses', () => {
    expect(parseSltFile('query I\nSELECT 1\n\nquery I\nSELECT 2\n----\n2\n').records).toMatchObject([
      { kind: 'query', sql: 'SELECT 1', expected: null, line: 1 },
      { kind: 'query', sql: 'SELECT 2', expected: { rows: [['2']] }, line: 4 },
    ]);
    const rs = [...sltRecords('statement maybe_not\nSELECT 1\n\nquery 1\nSELECT 1\n----\n1\n\nstatement ok\nSELECT 3\n', 'bad.test')];
    expect(rs.map((r) => r.kind)).toEqual(['invalid', 'invalid', 'statement']);
  });
});
