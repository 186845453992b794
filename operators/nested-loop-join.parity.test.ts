/**
 * Differential test of the nested-loop oracle against DuckDB on random tables: every join type,
 * NULLs, duplicates, skew, widened and mixed key types, multi-column keys, strings, floats with
 * -0.0/NaN, range predicates, residual filters, NOT IN, and batch sizes 1..64. Seeded, so a
 * failure reproduces; fast-check shrinks it to a small case.
 */
import fc from 'fast-check';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../core/engine.ts';
import { Rng } from '../core/random.ts';
import { toJoinSpec, type JoinSpecInput } from '../core/spec.ts';
import { JOIN_TYPES } from '../core/types.ts';
import { COMPATIBLE_KEY_PAIRS, randomTable, type ColumnGen } from '../bench/data/random-tables.ts';
import { compareResults, formatComparison } from '../adapters/duckdb/compare.ts';
import { joinToSql } from '../adapters/duckdb/join-sql.ts';
import { DuckDBSession } from '../adapters/duckdb/session.ts';

const FILTERS = [undefined, 'l.v < r.v', 'l.v + r.w > 0 OR r.w IS NULL', "NOT (l.s = 'a') AND r.w <> 2", 'l.v = r.v OR l.v IS NULL'];

interface Case {
  keyPairs: number[]; // indexes into COMPATIBLE_KEY_PAIRS
  useRange: boolean;
  rangeOp: '<' | '<=' | '>' | '>=';
  leftRows: number;
  rightRows: number;
  leftBatch: number;
  rightBatch: number;
  outBatch: number;
  nullRate: number;
  skew: number;
  domain: number;
  type: (typeof JOIN_TYPES)[number];
  nullEqualsNull: boolean;
  nullAware: boolean;
  filter: number;
  seed: number;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  keyPairs: fc.array(fc.nat(COMPATIBLE_KEY_PAIRS.length - 1), { minLength: 1, maxLength: 2 }),
  useRange: fc.boolean(),
  rangeOp: fc.constantFrom('<', '<=', '>', '>='),
  leftRows: fc.nat(40),
  rightRows: fc.nat(40),
  leftBatch: fc.integer({ min: 1, max: 64 }),
  rightBatch: fc.integer({ min: 1, max: 64 }),
  outBatch: fc.integer({ min: 1, max: 64 }),
  nullRate: fc.constantFrom(0, 0.1, 0.4),
  skew: fc.constantFrom(0, 0.5),
  domain: fc.integer({ min: 1, max: 12 }),
  type: fc.constantFrom(...JOIN_TYPES),
  nullEqualsNull: fc.boolean(),
  nullAware: fc.boolean(),
  filter: fc.nat(FILTERS.length - 1),
  seed: fc.integer({ min: 1, max: 1 << 30 }),
});

function buildCase(c: Case): { left: Table; right: Table; spec: JoinSpecInput } {
  const rng = new Rng(c.seed);
  const pairs = c.keyPairs.map((i) => COMPATIBLE_KEY_PAIRS[i]!);
  const gen = (side: 0 | 1): ColumnGen[] => [
    ...pairs.map((p, k) => ({ name: `k${k}`, type: p[side], domain: c.domain, nullRate: c.nullRate, skew: c.skew })),
    { name: 'v', type: 'float64', domain: 8, nullRate: c.nullRate },
    side === 0 ? { name: 's', type: 'utf8', domain: 4, nullRate: c.nullRate } : { name: 'w', type: 'int32', domain: 6, nullRate: c.nullRate },
  ];
  const left = randomTable(rng, gen(0), c.leftRows, c.leftBatch);
  const right = randomTable(rng, gen(1), c.rightRows, c.rightBatch);
  const isAnti = c.type === 'left-anti' || c.type === 'right-anti';
  const nullAware = c.nullAware && isAnti && pairs.length === 1 && !c.useRange;
  const spec: JoinSpecInput = c.useRange
    ? { type: c.type, range: `k0 ${c.rangeOp} k0`, filter: FILTERS[c.filter] }
    : {
        type: c.type,
        on: pairs.map((_, k) => `k${k}=k${k}`).join(','),
        filter: FILTERS[c.filter],
        nullEqualsNull: c.nullEqualsNull && !nullAware,
        nullAware,
      };
  return { left, right, spec };
}

describe('nested-loop join vs DuckDB (random tables)', () => {
  let duck: DuckDBSession;
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
  });
  afterAll(async () => {
    await duck?.close();
  });

  it('matches DuckDB on every join type, key type, NULL rule and batch size', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const { left, right, spec } = buildCase(c);
        const engine = await Engine.create({ join: 'nested-loop', batchSize: c.outBatch });
        const joinSpec = toJoinSpec(spec);
        const { table } = await engine.join(joinSpec, left, right);
        const lt = `l${n}`;
        const rt = `r${n++}`;
        await duck.loadTable(lt, left);
        await duck.loadTable(rt, right);
        try {
          const sql = joinToSql(
            joinSpec,
            { table: lt, columns: left.schema.fields.map((f) => f.name) },
            { table: rt, columns: right.schema.fields.map((f) => f.name) },
          );
          const expected = await duck.query(sql);
          const cmp = compareResults(table, expected);
          if (!cmp.equal) throw new Error(`${JSON.stringify(spec)}\n${sql}\n${formatComparison(cmp)}`);
        } finally {
          await duck.run(`DROP TABLE ${lt}; DROP TABLE ${rt};`);
        }
      }),
      { seed: 20261130, numRuns: 400 },
    );
    expect(n).toBeGreaterThan(0);
  });
});
