/**
 * A DATE compared with a TIMESTAMP constant (what `date 'x' + interval …` folds to): joinlab
 * compares days (compile.ts, `dateAgainstTimestamp`) where DuckDB casts each date to a timestamp;
 * every operator, both operand orders, constants at midnight and a microsecond, a second or a day
 * either side of it, before 1970 too, in every timestamp unit, on dates with NULLs and ±infinity —
 * row by row against DuckDB.
 */
import { DateDay, Int32, makeData, makeVector, Table, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { cast, cmp, col, type CompareOp, type Expr, lit } from './ast.ts';
import { compileProjection } from './project.ts';
import { exprToSql } from './sql.ts';

const DAYS = [null, -1, 0, 1, 9131, 9132, 9133, -36525, 2147483647, -2147483647, 12000];

let duck: DuckDBSession;
beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(async () => {
  await duck.close();
});

describe('DATE against a TIMESTAMP constant', () => {
  it('every operator, both orders, at and around midnight, in every unit', async () => {
    const valid = new Uint8Array(2);
    DAYS.forEach((d, i) => {
      if (d !== null) valid[i >> 3]! |= 1 << (i & 7);
    });
    const d = makeVector(makeData({ type: new DateDay(), length: DAYS.length, nullCount: 1, nullBitmap: valid, data: Int32Array.from(DAYS, (v) => v ?? 0) }));
    const t = new Table({ rid: vectorFromArray(DAYS.map((_, i) => i), new Int32()), d });
    await duck.loadTable('dates', t);
    const batch = t.batches[0]!;
    const stamps = ['1995-01-01 00:00:00', '1995-01-01 00:00:00.000001', '1994-12-31 23:59:59.999999', '1995-01-01 12:00:00', '1970-01-01 00:00:00', '1969-12-31 23:59:59', '1969-12-31 00:00:00.5'];
    const es: Expr[] = [];
    for (const s of stamps) {
      for (const unit of ['TIMESTAMP', 'TIMESTAMP_MS', 'TIMESTAMP_NS', 'TIMESTAMP_S']) {
        if (unit === 'TIMESTAMP_S' && s.includes('.')) continue;
        if (unit === 'TIMESTAMP_MS' && /\.\d{4,}/.test(s)) continue;
        const k = cast(lit(s), unit);
        for (const op of ['=', '<>', '<', '<=', '>', '>='] as CompareOp[]) es.push(cmp(op, col('left', 'd'), k), cmp(op, k, col('left', 'd')));
      }
    }
    const rows = await duck.queryRows(`SELECT ${es.map((e) => exprToSql(e, 'l')).join(', ')} FROM dates AS l ORDER BY l.rid`);
    es.forEach((e, i) => {
      const got = [...makeVector(compileProjection(e, batch.schema).evaluate(batch))].map((v) => v ?? null);
      expect(got, exprToSql(e, 'l')).toEqual(rows.map((r) => r[i] ?? null));
    });
  });
});
