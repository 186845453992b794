/**
 * `star` suite: a star-schema query through `Engine.sql`, one, two and three dimensions deep —
 * how much of the fact table each dimension's filter lets the fact scan skip.
 *
 * Data: the experiment generator `starschema` (apps/experiments/generators.ts), written as
 * Parquet by DuckDB and cached like every generated data set (`os.tmpdir()/joinlab-data`): a fact
 * table of 20M rows (`--scale` multiplies) in row groups of 10240 (1954 at scale 1), sorted by
 * `date_key` (the days of 2024), with `customer_key` and `product_key` clustered by position (runs
 * of 4 and 2 row groups, each over one quarter of the keys); `date_dim` (2023–2025), `customer`
 * (100K keys, 20 regions of consecutive keys) and `product` (20K keys, 20 categories). So each
 * filter is needed to prune: the month's date keys find its row groups by the sort order (166 of
 * 1954 at scale 1), the region's key bounds rule out two thirds of those (54 left), the category's
 * about half of the rest (28) — counted from the fact's footer, i.e. what a scan filtered by every
 * join's dynamic filter at once can skip.
 *
 * Queries (plain columns: the SQL subset has no aggregates yet):
 *   q1  fact ⋈ date_dim                       WHERE d.year = 2024 AND d.month = 3
 *   q2  … ⋈ customer                          AND c.region = 'region-07'
 *   q3  … ⋈ product                           AND p.category = 'category-13'
 *
 * joinlab: `engine.sql(q, tables, { duck })` with `join: hash` (the time includes parsing the
 * text with the suite's DuckDB session — as DuckDB's own time includes its parse — and opening
 * the files); DuckDB (at joinlab's thread count, `--threads`): the same SQL over views of the same files, materialised
 * (`CREATE TEMP TABLE … AS`). Every joinlab run's row count is checked against DuckDB's (counted
 * once at setup): a wrong answer stops the suite. Facts: the fact scan's row groups pruned / total
 * and rows decoded (`SqlResult.scans`), which show each dimension's filter reaching the fact scan.
 */
import { Engine } from '../../composition.ts';
import type { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { generateTables } from '../../apps/experiments/generators.ts';
import { GENERATOR_PARAMS, type GeneratedDataSpec } from '../../apps/experiments/schema.ts';
import { scanOf, sqlScans } from '../../apps/experiments/sql-scans.ts';
import type { SqlResult } from '../../adapters/sql/run.ts';
import { caseConfig, type BenchCase, type SuiteOverrides } from '../harness.ts';

const RESULT = '__star_result';
const COLUMNS = 'f.date_key, f.customer_key, f.product_key, f.quantity, f.price';
const DATE = 'FROM fact f JOIN date_dim d ON f.date_key = d.date_key';
const CUSTOMER = 'JOIN customer c ON f.customer_key = c.customer_key';
const PRODUCT = 'JOIN product p ON f.product_key = p.product_key';
const MONTH = 'd.year = 2024 AND d.month = 3';
const REGION = "c.region = 'region-07'";
const CATEGORY = "p.category = 'category-13'";

export const STAR_QUERIES: readonly { readonly name: string; readonly label: string; readonly sql: string }[] = [
  { name: 'q1', label: 'fact x date_dim (one month)', sql: `SELECT ${COLUMNS} ${DATE} WHERE ${MONTH}` },
  { name: 'q2', label: '+ customer (one region)', sql: `SELECT ${COLUMNS}, c.segment ${DATE} ${CUSTOMER} WHERE ${MONTH} AND ${REGION}` },
  {
    name: 'q3',
    label: '+ product (one category)',
    sql: `SELECT ${COLUMNS}, c.segment, p.brand ${DATE} ${CUSTOMER} ${PRODUCT} WHERE ${MONTH} AND ${REGION} AND ${CATEGORY}`,
  },
];

/** Writes (once, cached) the star schema at `scale` and makes its tables DuckDB views of the same names. */
export async function starTables(duck: DuckDBSession, scale: number): Promise<Record<string, string>> {
  const spec = {
    kind: 'generator',
    generator: 'starschema',
    params: GENERATOR_PARAMS.starschema.parse({ factRows: Math.round(20_000_000 * scale) }),
    seed: 1,
    rowGroupSize: 10240,
  } as GeneratedDataSpec;
  const g = await generateTables(duck, spec);
  const tables = Object.fromEntries(Object.entries(g.tables).map(([name, f]) => [name, f.path]));
  for (const [name, path] of Object.entries(tables)) await duck.createViewOnParquet(name, path);
  return tables;
}

export async function starCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides = {}): Promise<BenchCase[]> {
  const tables = await starTables(duck, scale);
  const factRows = Math.round(20_000_000 * scale);
  const engine = await Engine.create(caseConfig({ join: 'hash' }, overrides));
  const cases: BenchCase[] = [];
  for (const q of STAR_QUERIES) {
    const expected = Number((await duck.queryRows(`SELECT count(*) FROM (${q.sql})`))[0]![0]);
    let last: SqlResult | null = null;
    const fact = () => ({ scan: scanOf(sqlScans(last!), 'fact')!.metrics });
    cases.push({
      name: `star ${q.name} ${q.label}, ${factRows / 1e6}M fact rows`,
      joinlab: async () => {
        last = await engine.sql(q.sql, tables, { duck });
        const rows = last.table.numRows;
        if (rows !== expected) throw new Error(`star ${q.name}: joinlab returned ${rows} rows, DuckDB ${expected}: ${q.sql}`);
        return rows;
      },
      duckdb: async () => {
        await duck.run(`CREATE OR REPLACE TEMP TABLE ${RESULT} AS ${q.sql}`);
        return Number((await duck.queryRows(`SELECT count(*) FROM ${RESULT}`))[0]![0]);
      },
      notes: () => {
        const { scan: s } = fact();
        const joinMs = last!.joins.reduce((t, j) => t + j.elapsedMs, 0);
        return (
          `fact row groups pruned ${s.containersPruned}/${s.containersTotal} (${((100 * s.containersPruned) / s.containersTotal).toFixed(1)}%), ` +
          `fact rows decoded ${s.rowsDecoded}, ${last!.joins.length} join${last!.joins.length === 1 ? '' : 's'} ${joinMs.toFixed(0)} ms`
        );
      },
      facts: () => {
        const { scan: s } = fact();
        return { factContainersPruned: s.containersPruned, factContainersTotal: s.containersTotal, factRowsDecoded: s.rowsDecoded };
      },
      close: async () => {
        await duck.run(`DROP TABLE IF EXISTS ${RESULT}`);
      },
    });
  }
  return cases;
}
