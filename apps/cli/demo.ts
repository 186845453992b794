/**
 * `joinlab demo` (what `npm start` runs until the experiment runner lands): generate the built-in
 * data set, run every registered join algorithm (`auto` too, labelled with what it chose) on every
 * join type (plus a residual filter, a range predicate and NOT IN), check each answer against
 * DuckDB on the same data and print one table. Returns false when any answer differs from DuckDB's.
 */
import type { Config } from '../../core/config/schema.ts';
import { Engine } from '../../composition.ts';
import { joinUnsupportedReason } from '../../core/join-planning.ts';
import { bindJoin } from '../../core/plan.ts';
import { JOIN } from '../../core/registry/slots.ts';
import { toJoinSpec, type JoinSpecInput } from '../../core/spec.ts';
import { JOIN_TYPES } from '../../core/types.ts';
import { demoData } from '../../adapters/datagen/demo-data.ts';
import { compareResults } from '../../adapters/duckdb/compare.ts';
import { joinToSql } from '../../adapters/duckdb/join-sql.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { formatTable } from './format.ts';
import { round } from './join-command.ts';

export function demoCases(): { label: string; spec: JoinSpecInput }[] {
  const on = 'customer_id=customer_id';
  return [
    ...JOIN_TYPES.map((type) => ({ label: type, spec: { type, on } })),
    { label: 'inner + filter', spec: { type: 'inner', on, filter: 'l.amount < r.credit AND r.region IS NOT NULL' } },
    { label: 'left-semi, null = null', spec: { type: 'left-semi', on, nullEqualsNull: true } },
    { label: 'left-anti NOT IN', spec: { type: 'left-anti', on, nullAware: true } },
    { label: 'inner range amount < credit', spec: { type: 'inner', range: 'amount < credit', filter: 'r.customer_id < 40' } },
  ];
}

export async function runDemo(config: Config, options: { rows: number; seed: number }): Promise<boolean> {
  const { orders, customers } = demoData(options.rows, options.seed);
  process.stdout.write(`joinlab demo: orders ${orders.numRows} rows x customers ${customers.numRows} rows (seed ${options.seed})\n\n`);
  const duck = await DuckDBSession.open({ threads: 1 });
  let allOk = true;
  try {
    await duck.loadTable('orders', orders);
    await duck.loadTable('customers', customers);
    const base = await Engine.create(config);
    const rows: unknown[][] = [];
    for (const algorithm of base.registry.names(JOIN)) {
      // an explicit-only algorithm (ASOF) answers another question than the demo's plain joins
      if (base.registry.resolve(JOIN, algorithm).explicitOnly === true) continue;
      const engine = await base.with({ join: algorithm });
      for (const c of demoCases()) {
        const spec = toJoinSpec(c.spec);
        // asked the way the engine asks: `auto` answers for the algorithm it chooses
        const unsupported = joinUnsupportedReason(engine.registry, algorithm, bindJoin(spec, orders.schema, customers.schema));
        if (unsupported) {
          rows.push([algorithm, c.label, undefined, undefined, undefined, 'n/a (unsupported)']);
          continue;
        }
        const { table, metrics } = await engine.join(spec, orders, customers);
        const sql = joinToSql(
          spec,
          { table: 'orders', columns: orders.schema.fields.map((f) => f.name) },
          { table: 'customers', columns: customers.schema.fields.map((f) => f.name) },
        );
        const t0 = performance.now();
        const expected = await duck.query(sql);
        const duckMs = performance.now() - t0;
        const cmp = compareResults(table, expected);
        allOk &&= cmp.equal;
        const label = metrics.chosenBy !== null ? `${algorithm} (${metrics.algorithm})` : algorithm;
        rows.push([label, c.label, table.numRows, round(metrics.elapsedMs), round(duckMs), cmp.equal ? '✓' : `✗ (${cmp.missing.length} missing, ${cmp.extra.length} extra)`]);
      }
    }
    process.stdout.write(`${formatTable(['algorithm', 'join', 'rows', 'joinlab ms', 'duckdb ms', 'parity'], rows)}\n\n`);
    process.stdout.write(allOk ? 'every answer matches DuckDB\n' : 'MISMATCH: some answers differ from DuckDB\n');
  } finally {
    await duck.close();
  }
  return allOk;
}
