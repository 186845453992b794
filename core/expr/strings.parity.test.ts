/**
 * substring / substr, `||` and concat against DuckDB, row by row: random strings of one- to
 * four-byte characters (with NULLs and ''), every start and length in -8..8 (and none), constant
 * or read from integer columns (NULLs too), on a plain and a dictionary-encoded column; `||` and
 * concat over strings, integers, dates and booleans with NULLs in every position. The column holds
 * non-ASCII strings, so DuckDB takes its general `SubstringUnicode` (see string-nodes.ts for the
 * ASCII-only path's different answers off the string's ends).
 */
import { Bool, DateDay, Dictionary, Int32, Int64, makeData, makeVector, type RecordBatch, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { ExpressionError } from '../errors.ts';
import { Rng } from '../random.ts';
import { call, col, type Expr, lit } from './ast.ts';
import { compileProjection } from './project.ts';
import { exprToSql } from './sql.ts';

const CHARS = ['a', 'b', 'c', 'é', '€', '𝄞', ' ', 'Z'];

let duck: DuckDBSession;
let batch: RecordBatch;
const N = 120;

beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
  const rng = new Rng(424242);
  const s = Array.from({ length: N }, (_, i) => {
    if (i < 4) return ['', 'é', 'hello', null][i]!;
    if (rng.chance(0.07)) return null;
    let v = '';
    for (let k = rng.int(0, 9); k > 0; k--) v += rng.pick(CHARS);
    return v;
  });
  const int = (lo: number, hi: number) => Array.from({ length: N }, () => (rng.chance(0.08) ? null : rng.int(lo, hi)));
  const days = Int32Array.from({ length: N }, () => rng.int(-20000, 30000));
  const dNulls = new Uint8Array(Math.ceil(N / 8)).fill(0xff);
  dNulls[1] = 0xfe; // row 8 NULL
  const t = new Table({
    rid: vectorFromArray(Array.from({ length: N }, (_, i) => i), new Int32()),
    s: vectorFromArray(s, new Utf8()),
    o: vectorFromArray(int(-8, 8).map((v) => (v === null ? null : BigInt(v))), new Int64()),
    n: vectorFromArray(int(-8, 8), new Int32()),
    i: vectorFromArray(int(-1000, 1000), new Int32()),
    b: vectorFromArray(Array.from({ length: N }, () => (rng.chance(0.1) ? null : rng.chance(0.5))), new Bool()),
    d: makeVector(makeData({ type: new DateDay(), length: N, nullCount: 1, nullBitmap: dNulls, data: days })),
  });
  await duck.loadTable('strs', t);
  await duck.run('ALTER TABLE strs ADD COLUMN sd VARCHAR');
  await duck.run('UPDATE strs SET sd = s');
  const dict = vectorFromArray(s, new Dictionary(new Utf8(), new Int32()));
  const columns: Record<string, ReturnType<typeof makeVector>> = { sd: dict };
  for (const f of t.schema.fields) columns[f.name] = t.getChildAt(t.schema.fields.indexOf(f))!;
  batch = new Table(columns).batches[0]!;
});
afterAll(async () => {
  await duck.close();
});

function joinlabValues(e: Expr): unknown[] {
  return [...makeVector(compileProjection(e, batch.schema).evaluate(batch))].map((v) => (v === undefined ? null : v));
}

async function same(es: readonly Expr[]): Promise<void> {
  const rows = await duck.queryRows(`SELECT ${es.map((e) => exprToSql(e, 'l')).join(', ')} FROM strs AS l ORDER BY l.rid`);
  es.forEach((e, i) => {
    expect(joinlabValues(e), exprToSql(e, 'l')).toEqual(rows.map((r) => r[i] ?? null));
  });
}

/** The same expression with the plain column `s` replaced by its dictionary-encoded copy. */
function onDictionary(e: Expr): Expr {
  if (e.kind === 'column') return e.name === 's' ? col('left', 'sd') : e;
  if (e.kind === 'call') return { ...e, args: e.args.map(onDictionary) };
  return e;
}

const s = col('left', 's');

describe('substring against DuckDB', () => {
  it('every constant start and length in -8..8, and no length', async () => {
    const es: Expr[] = [];
    for (let start = -8; start <= 8; start++) {
      es.push(call('substring', s, lit(start)));
      for (let len = -8; len <= 8; len++) es.push(call(len % 2 === 0 ? 'substring' : 'substr', s, lit(start), lit(len)));
    }
    for (let k = 0; k < es.length; k += 60) await same(es.slice(k, k + 60));
    // the dictionary column gives the same values (each entry cut once)
    for (const e of es.slice(0, 40)) expect(joinlabValues(onDictionary(e))).toEqual(joinlabValues(e));
  });

  it('starts and lengths from columns, NULLs included', async () => {
    const o = col('left', 'o');
    const n = col('left', 'n');
    await same([call('substring', s, o), call('substring', s, o, n), call('substring', s, lit(2), n), call('substring', s, n, lit(3)), call('substring', onDictionary(s), o, n)]);
  });

  it('NULL arguments; an out-of-range start raises only for rows that matter', async () => {
    await same([call('substring', s, lit(null)), call('substring', s, lit(1), lit(null)), call('substring', lit(null), lit(1))]);
    expect(() => joinlabValues(call('substring', s, lit(5_000_000_000)))).toThrow(/Substring offset outside of supported range/);
    expect(() => compileProjection(call('substring', s, lit(1.5)), batch.schema)).toThrow(ExpressionError);
    expect(() => compileProjection(call('substring', lit(1), lit(1)), batch.schema)).toThrow(ExpressionError);
  });
});

describe('|| and concat against DuckDB', () => {
  it('strings, integers, dates, booleans; NULLs propagate through || and are skipped by concat', async () => {
    const i = col('left', 'i');
    const d = col('left', 'd');
    const b = col('left', 'b');
    await same([
      call('||', s, s),
      call('||', s, lit('-x')),
      call('||', lit('<'), call('||', s, lit('>'))),
      call('||', s, i),
      call('||', d, s),
      call('||', b, lit('!')),
      call('||', s, lit(null)),
      call('concat', s, i, d, b),
      call('concat', lit(null), s, lit(null)),
      call('concat', s),
      call('concat', lit('a'), lit(1)),
      call('||', onDictionary(s), s),
      call('substring', call('||', s, s), lit(2), lit(3)),
    ]);
  });
});
