#!/usr/bin/env node
// `node bench/duckdb-once.mjs DIR "SQL" [threads|default]`: DuckDB as a one-off process, the way
// bench/workload-cold.ts times joinlab's CLI — open an in-memory DuckDB, a view on every Parquet
// file of DIR (named by its stem), run the query, print its row count. Plain JavaScript (no tsx):
// DuckDB's own start-up is what is measured, not a TypeScript compiler's.
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const [dir, sql, threads] = process.argv.slice(2);
if (dir === undefined || sql === undefined) {
  process.stderr.write('usage: node bench/duckdb-once.mjs DIR "SQL" [threads|default]\n');
  process.exit(2);
}
const db = await DuckDBInstance.create(':memory:', threads === undefined || threads === 'default' ? {} : { threads: String(threads) });
const c = await db.connect();
for (const f of readdirSync(dir).filter((x) => x.endsWith('.parquet'))) {
  const path = join(dir, f).replaceAll("'", "''");
  await c.run(`CREATE VIEW "${basename(f, '.parquet')}" AS SELECT * FROM read_parquet('${path}')`);
}
const r = await c.runAndReadAll(sql);
process.stdout.write(`${r.getRows().length} rows\n`);
