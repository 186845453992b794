/**
 * LIKE / NOT LIKE / ILIKE / NOT ILIKE (with and without ESCAPE), prefix / suffix / contains against
 * DuckDB: random strings and random patterns over an alphabet full of what can go wrong — the
 * wildcards, escape characters, upper and lower case, two-, three- and four-byte characters,
 * characters whose lowercase has another length ('Ⱥ' -> 'ⱥ'), NULLs, the empty string — on a
 * plain Utf8 column and on the same values dictionary-encoded, every row compared. A pattern that
 * ends in an escape must raise exactly when DuckDB does. And `lower()` of every code point of
 * planes 0–2 agrees with DuckDB's (the case folding ILIKE uses).
 */
import { Dictionary, Int32, makeVector, RecordBatch, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { ExpressionError, UnsupportedExpressionError } from '../errors.ts';
import { Rng } from '../random.ts';
import { call, col, type Expr, lit } from './ast.ts';
import { lowerCapacity, lowerUtf8 } from './case-fold.ts';
import { compileProjection } from './project.ts';
import { exprToSql } from './sql.ts';

const ALPHABET = ['a', 'b', 'A', 'B', '%', '_', '\\', '#', 'é', 'É', '€', '𝄞', 'ß', 'Ⱥ', 'ⱥ', 'Σ', 'ς', 'σ', ' '];

let duck: DuckDBSession;
beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(async () => {
  await duck.close();
});

function randomString(rng: Rng, max: number, alphabet = ALPHABET): string {
  let s = '';
  for (let i = rng.int(0, max); i > 0; i--) s += rng.pick(alphabet);
  return s;
}

function strings(rng: Rng, n: number, alphabet = ALPHABET): (string | null)[] {
  const out: (string | null)[] = ['', 'a', 'ab', 'é', '%', '_', '\\'];
  while (out.length < n) out.push(rng.chance(0.08) ? null : randomString(rng, 7, alphabet));
  return out;
}

/** A batch with `s` plain and `d` dictionary-encoded (the same values). */
function batchOf(values: (string | null)[]): RecordBatch {
  const s = vectorFromArray(values, new Utf8());
  const d = vectorFromArray(values, new Dictionary(new Utf8(), new Int32()));
  return new Table({ s, d }).batches[0]!;
}

function joinlabValues(e: Expr, batch: RecordBatch): unknown[] {
  const p = compileProjection(e, batch.schema);
  return [...makeVector(p.evaluate(batch))].map((v) => (v === null || v === undefined ? null : v));
}

/** DuckDB's values of `es` over table `t` (loaded from the batch), or the error each raises. */
async function duckValues(es: readonly Expr[], table: string): Promise<(unknown[] | Error)[]> {
  const sql = (e: Expr) => exprToSql(e, 'l');
  try {
    const rows = await duck.queryRows(`SELECT ${es.map(sql).join(', ')} FROM ${table} AS l ORDER BY l.rid`);
    return es.map((_, i) => rows.map((r) => r[i] ?? null));
  } catch {
    // some expression raises: ask one at a time
    const out: (unknown[] | Error)[] = [];
    for (const e of es) {
      try {
        out.push((await duck.queryRows(`SELECT ${sql(e)} FROM ${table} AS l ORDER BY l.rid`)).map((r) => r[0] ?? null));
      } catch (err) {
        out.push(err as Error);
      }
    }
    return out;
  }
}

async function load(name: string, values: (string | null)[]): Promise<RecordBatch> {
  const batch = batchOf(values);
  await duck.loadTable(name, new Table({ rid: vectorFromArray(values.map((_, i) => i), new Int32()), s: batch.getChild('s')! }));
  return batch;
}

async function compare(es: readonly Expr[], batch: RecordBatch, table: string): Promise<number> {
  const expected = await duckValues(es, table);
  let compared = 0;
  for (let i = 0; i < es.length; i++) {
    const e = es[i]!;
    const want = expected[i]!;
    for (const column of ['s', 'd']) {
      const onColumn = column === 's' ? e : renameColumn(e, 'd');
      let got: unknown[] | Error;
      try {
        got = joinlabValues(onColumn, batch);
      } catch (err) {
        if (err instanceof UnsupportedExpressionError) throw err;
        if (!(err instanceof ExpressionError)) throw err;
        got = err;
      }
      const what = `${exprToSql(onColumn, 'l')}`;
      if (want instanceof Error) {
        expect(got instanceof Error, `${what}: DuckDB raised ${want.message}, joinlab did not`).toBe(true);
      } else {
        expect(got instanceof Error ? got.message : got, what).toEqual(want);
      }
      compared++;
    }
  }
  return compared;
}

function renameColumn(e: Expr, name: string): Expr {
  if (e.kind === 'column') return col('left', name);
  if (e.kind === 'call') return { ...e, args: e.args.map((a) => renameColumn(a, name)) };
  return e;
}

const LIKES = ['~~', '!~~', '~~*', '!~~*'] as const;
const ESCAPED = ['like_escape', 'not_like_escape', 'ilike_escape', 'not_ilike_escape'] as const;

function randomPattern(rng: Rng): string {
  const parts = ['%', '%', '_', 'a', 'b', 'A', 'é', 'É', '€', '𝄞', '\\', '#', 'ß', 'Ⱥ', 'σ', 'Σ', '%a%', '_b'];
  let p = '';
  for (let i = rng.int(0, 5); i > 0; i--) p += rng.pick(parts);
  return p;
}

describe('LIKE and its kin against DuckDB', () => {
  it('random patterns on random strings, plain and dictionary-encoded', async () => {
    const rng = new Rng(20260826);
    const batch = await load('likes', strings(rng, 160));
    let compared = 0;
    for (let round = 0; round < 12; round++) {
      const es: Expr[] = [];
      for (let i = 0; i < 30; i++) {
        const pattern = randomPattern(rng);
        if (rng.chance(0.5)) es.push(call(rng.pick(LIKES), col('left', 's'), lit(pattern)));
        else es.push(call(rng.pick(ESCAPED), col('left', 's'), lit(pattern), lit(rng.pick(['\\', '#', '', 'a', '_']))));
      }
      compared += await compare(es, batch, 'likes');
    }
    expect(compared).toBe(12 * 30 * 2);
  });

  it('fixed patterns: prefix, suffix, contains, segments, exact, escapes, empty', async () => {
    const rng = new Rng(7);
    const batch = await load('likes2', [...strings(rng, 60), 'special requests', 'xspecialyrequestsz', 'requests special', 'abc%', 'a_c', 'a\\', 'ab\\']);
    const s = col('left', 's');
    const patterns = ['', '%', '%%', '_', '__', 'a%', '%a', '%a%', '%special%requests%', 'a%b%c', 'a_c', '_%_', '%_', 'é%', '%€_', 'abc\\%', 'a\\_c', '%b\\%'];
    const es: Expr[] = [];
    for (const p of patterns) {
      for (const f of LIKES) es.push(call(f, s, lit(p)));
      es.push(call('like_escape', s, lit(p), lit('\\')));
      es.push(call('ilike_escape', s, lit(p), lit('')));
    }
    for (const f of ['prefix', 'starts_with', 'suffix', 'ends_with', 'contains']) for (const x of ['', 'a', 'é', '%', '_', 'ab']) es.push(call(f, s, lit(x)));
    await compare(es, batch, 'likes2');
  });

  it('a pattern ending in an escape raises only when a row reaches it', async () => {
    const s = col('left', 's');
    const batchShort = await load('likes3', ['a', '', null, 'b']);
    // 'a' matches 'a' with nothing left: false, no error; 'b' fails at once
    await compare([call('like_escape', s, lit('a\\'), lit('\\')), call('like_escape', s, lit('%\\'), lit('\\')), call('not_ilike_escape', s, lit('_\\'), lit('\\'))], batchShort, 'likes3');
    const batchLong = await load('likes4', ['ab', 'x']);
    await compare([call('like_escape', s, lit('a\\'), lit('\\'))], batchLong, 'likes4');
  });

  it('an ASCII-only column (DuckDB takes its ASCII ILIKE then) gives the same answers', async () => {
    const rng = new Rng(99);
    const batch = await load('ascii', strings(rng, 80, ['a', 'b', 'A', 'B', '%', '_', '\\', 'z', 'Z']));
    const s = col('left', 's');
    const es = Array.from({ length: 40 }, () => call(rng.pick(LIKES), s, lit(randomPattern(rng))));
    await compare(es, batch, 'ascii');
  });

  it('a NUL byte: literal in LIKE, the escape of an empty ESCAPE (DuckDB 1.5)', async () => {
    const values = ['a\u0000b', 'ab', 'a_b', 'A_b', 'a\u0000_b', ''];
    const batch = await load('nul', values);
    const s = col('left', 's');
    // DuckDB's parser reads SQL text as a C string: build the NUL with chr(0) on its side
    const cases: [Expr, string][] = [
      [call('~~', s, lit('a\u0000b')), `l.s LIKE ('a' || chr(0) || 'b')`],
      [call('like_escape', s, lit('a\u0000b'), lit('')), `like_escape(l.s, 'a' || chr(0) || 'b', '')`],
      [call('like_escape', s, lit('a\u0000_b'), lit('')), `like_escape(l.s, 'a' || chr(0) || '_b', '')`],
      [call('not_ilike_escape', s, lit('a\u0000_b'), lit('')), `not_ilike_escape(l.s, 'a' || chr(0) || '_b', '')`],
    ];
    for (const [e, sql] of cases) {
      const want = (await duck.queryRows(`SELECT ${sql} FROM nul AS l ORDER BY l.rid`)).map((r) => r[0]);
      expect(joinlabValues(e, batch), sql).toEqual(want);
    }
  });

  it('NULL patterns and escapes give NULL; constant-only patterns; refused forms', async () => {
    const batch = await load('likes5', ['a', null]);
    const s = col('left', 's');
    await compare([call('~~', s, lit(null)), call('like_escape', s, lit('a'), lit(null)), call('~~*', lit(null), lit('a'))], batch, 'likes5');
    expect(() => compileProjection(call('~~', s, s), batch.schema)).toThrow(UnsupportedExpressionError);
    expect(() => compileProjection(call('like_escape', s, lit('a'), lit('%')), batch.schema)).toThrow(UnsupportedExpressionError);
    expect(() => compileProjection(call('~~*', s, lit('İ%')), batch.schema)).toThrow(UnsupportedExpressionError);
    expect(() => compileProjection(call('like_escape', s, lit('a'), lit('ab')), batch.schema)).toThrow(/Invalid escape string/);
    expect(() => compileProjection(call('~~', lit(1), lit('1')), batch.schema)).toThrow(ExpressionError);
  });
});

describe('case folding', () => {
  it("lowers every code point of planes 0–2 as DuckDB's lower() does", async () => {
    const cps: number[] = [];
    for (let cp = 1; cp < 0x30000; cp++) if (cp < 0xd800 || cp > 0xdfff) cps.push(cp);
    const text = cps.map((cp) => String.fromCodePoint(cp));
    await duck.loadTable('cps', new Table({ rid: vectorFromArray(cps, new Int32()), s: vectorFromArray(text, new Utf8()) }));
    const rows = await duck.queryRows('SELECT lower(s) FROM cps ORDER BY rid');
    const enc = new TextEncoder();
    const dec = new TextDecoder('utf-8', { ignoreBOM: true }); // exact: U+FEFF is a value here
    const out = new Uint8Array(lowerCapacity(4));
    const wrong: string[] = [];
    for (let i = 0; i < cps.length; i++) {
      const bytes = enc.encode(text[i]!);
      const mine = dec.decode(out.subarray(0, lowerUtf8(bytes, 0, bytes.length, out)));
      if (mine !== rows[i]![0]) wrong.push(`U+${cps[i]!.toString(16)}: joinlab ${JSON.stringify(mine)}, DuckDB ${JSON.stringify(rows[i]![0])}`);
    }
    expect(wrong.slice(0, 20)).toEqual([]);
  });
});
