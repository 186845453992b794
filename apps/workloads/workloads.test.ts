/**
 * The SSB and TPC-H generators at a small scale factor: the specs' row counts and key
 * relationships, the value domains the queries' predicates depend on, the files' declared order,
 * determinism across DuckDB thread counts, the cache, and the query texts (every one parses and
 * runs in DuckDB on the generated data).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../core/errors.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { ParquetScan } from '../../adapters/io/parquet-scan.ts';
import type { GeneratedTables } from '../../adapters/datagen/cached-parquet.ts';
import { ssbCounts } from './ssb.ts';
import { tpchCounts } from './tpch.ts';
import { checkScaleFactor, generateWorkload, queryText, selectQueries, WORKLOADS, type WorkloadName } from './workloads.ts';

const SF = 0.01;
let root: string;
let duck: DuckDBSession;
const data: Partial<Record<WorkloadName, GeneratedTables>> = {};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'joinlab-workloads-'));
  duck = await DuckDBSession.open({ threads: 2 });
  for (const w of ['ssb', 'tpch'] as const) {
    data[w] = await generateWorkload(duck, { workload: w, sf: SF, rowGroupSize: 10_000 }, { root });
    for (const [name, f] of Object.entries(data[w]!.tables)) await duck.createViewOnParquet(`${w}_${name}`, f.path);
  }
});
afterAll(async () => {
  duck.close();
  await rm(root, { recursive: true, force: true });
});

async function one(sql: string): Promise<number[]> {
  const [row] = await duck.queryRows(sql);
  return row!.map((v) => Number(v));
}

describe('tpch', () => {
  it('has the spec row counts and key relationships', async () => {
    const c = tpchCounts(SF);
    const rows = Object.fromEntries(Object.entries(data.tpch!.tables).map(([n, f]) => [n, f.rows]));
    expect(rows).toMatchObject({ region: 5, nation: 25, supplier: c.supplier, customer: c.customer, part: c.part, partsupp: 4 * c.part, orders: c.orders });
    expect(rows.lineitem).toBeGreaterThan(3.8 * c.orders);
    expect(rows.lineitem).toBeLessThan(4.2 * c.orders);
    // every line's (part, supplier) is a partsupp row; every order has 1..7 lines numbered 1..n
    expect(await one('SELECT count(*) FROM tpch_lineitem LEFT JOIN tpch_partsupp ON ps_partkey = l_partkey AND ps_suppkey = l_suppkey WHERE ps_partkey IS NULL')).toEqual([0]);
    expect(await one('SELECT count(*), count(DISTINCT (ps_partkey, ps_suppkey)) FROM tpch_partsupp')).toEqual([4 * c.part, 4 * c.part]);
    expect(
      await one('SELECT min(n), max(n), count(*) FILTER (WHERE mx <> n) FROM (SELECT l_orderkey, count(*) AS n, max(l_linenumber) AS mx FROM tpch_lineitem GROUP BY l_orderkey)'),
    ).toEqual([1, 7, 0]);
    // sparse order keys (the first 8 of every 32), customers never a multiple of 3
    expect(await one('SELECT count(*) FILTER (WHERE (o_orderkey - 1) % 32 >= 8), count(*) FILTER (WHERE o_custkey % 3 = 0), max(o_custkey) <= ' + c.customer + ' FROM tpch_orders')).toEqual([0, 0, 1]);
    expect(await one('SELECT count(*) FROM tpch_orders o ANTI JOIN tpch_lineitem l ON l_orderkey = o_orderkey')).toEqual([0]);
  });

  it('derives statuses, flags, prices and dates as dbgen', async () => {
    // o_orderstatus from the lines; o_totalprice their sum in dbgen's truncated cents
    expect(
      await one(`SELECT count(*) FROM tpch_orders JOIN (SELECT l_orderkey, bool_and(l_linestatus = 'F') AS f, bool_and(l_linestatus = 'O') AS o,
        sum(floor(floor(l_extendedprice * 100 * (100 - l_discount * 100) / 100) * (100 + l_tax * 100) / 100)) / 100 AS total
        FROM tpch_lineitem GROUP BY l_orderkey) ON l_orderkey = o_orderkey
        WHERE o_orderstatus <> CASE WHEN f THEN 'F' WHEN o THEN 'O' ELSE 'P' END OR o_totalprice <> total`),
    ).toEqual([0]);
    expect(
      await one(`SELECT count(*) FROM tpch_lineitem JOIN tpch_orders ON o_orderkey = l_orderkey JOIN tpch_part ON p_partkey = l_partkey WHERE
        l_shipdate NOT BETWEEN o_orderdate + 1 AND o_orderdate + 121 OR l_commitdate NOT BETWEEN o_orderdate + 30 AND o_orderdate + 90
        OR l_receiptdate NOT BETWEEN l_shipdate + 1 AND l_shipdate + 30
        OR l_linestatus <> CASE WHEN l_shipdate > DATE '1995-06-17' THEN 'O' ELSE 'F' END
        OR (l_returnflag = 'N') <> (l_receiptdate > DATE '1995-06-17')
        OR l_extendedprice <> l_quantity * p_retailprice
        OR l_quantity NOT BETWEEN 1 AND 50 OR l_discount NOT BETWEEN 0 AND 0.10 OR l_tax NOT BETWEEN 0 AND 0.08`),
    ).toEqual([0]);
    expect(await one("SELECT min(o_orderdate) >= DATE '1992-01-01', max(o_orderdate) <= DATE '1998-08-02' FROM tpch_orders")).toEqual([1, 1]);
    expect(await one("SELECT count(DISTINCT l_returnflag), count(DISTINCT l_linestatus), count(DISTINCT l_shipmode), count(DISTINCT l_shipinstruct) FROM tpch_lineitem")).toEqual([3, 2, 7, 4]);
  });

  it('draws the value domains the queries depend on', async () => {
    expect(await one('SELECT count(DISTINCT p_type), count(DISTINCT p_container), count(DISTINCT p_brand), count(DISTINCT p_mfgr), min(p_size), max(p_size) FROM tpch_part')).toEqual([150, 40, 25, 5, 1, 50]);
    expect(await one("SELECT count(*) FILTER (WHERE p_brand <> 'Brand#' || substr(p_mfgr, 14) || substr(p_brand, 8)) FROM tpch_part")).toEqual([0]);
    // 5 distinct colour words per name; green in ~5/92 of them
    expect(await one("SELECT count(*) FILTER (WHERE len(list_distinct(string_split(p_name, ' '))) <> 5) FROM tpch_part")).toEqual([0]);
    const [green] = await one("SELECT avg((p_name LIKE '%green%')::INTEGER) FROM tpch_part");
    expect(green).toBeGreaterThan(0.03);
    expect(green).toBeLessThan(0.08);
    // q22: country code = nation key + 10; q13: special requests in ~1% of order comments
    expect(await one('SELECT count(*) FILTER (WHERE substring(c_phone, 1, 2) <> (c_nationkey + 10)::VARCHAR) FROM tpch_customer')).toEqual([0]);
    const [special] = await one("SELECT avg((o_comment LIKE '%special%requests%')::INTEGER) FROM tpch_orders");
    expect(special).toBeGreaterThan(0.003);
    expect(special).toBeLessThan(0.03);
    expect(await one("SELECT min(strlen(l_comment)) >= 10, max(strlen(l_comment)) <= 43, min(strlen(ps_comment)) >= 49 FROM tpch_lineitem, (SELECT min(ps_comment) AS ps_comment FROM tpch_partsupp)")).toEqual([1, 1, 1]);
    const types = await duck.queryRows("SELECT column_name, column_type FROM (DESCRIBE tpch_lineitem) WHERE column_name IN ('l_orderkey', 'l_quantity', 'l_shipdate', 'l_comment') ORDER BY 1");
    expect(types).toEqual([
      ['l_comment', 'VARCHAR'],
      ['l_orderkey', 'BIGINT'],
      ['l_quantity', 'DECIMAL(15,2)'],
      ['l_shipdate', 'DATE'],
    ]);
  });
});

describe('ssb', () => {
  it('has the paper row counts and value domains', async () => {
    const c = ssbCounts(SF);
    const rows = Object.fromEntries(Object.entries(data.ssb!.tables).map(([n, f]) => [n, f.rows]));
    expect(rows).toMatchObject({ dwdate: 2556, customer: c.customer, supplier: c.supplier, part: 200_000 });
    expect(rows.lineorder).toBeGreaterThan(3.8 * c.orders);
    expect(await one('SELECT count(*) FROM ssb_lineorder ANTI JOIN ssb_dwdate ON d_datekey = lo_orderdate')).toEqual([0]);
    expect(await one('SELECT count(*) FROM ssb_lineorder ANTI JOIN ssb_dwdate ON d_datekey = lo_commitdate')).toEqual([0]);
    expect(await one(`SELECT min(lo_discount), max(lo_discount), min(lo_quantity), max(lo_quantity),
      count(*) FILTER (WHERE lo_revenue <> lo_extendedprice * (100 - lo_discount) // 100) FROM ssb_lineorder`)).toEqual([0, 10, 1, 50, 0]);
    expect(await one("SELECT count(DISTINCT p_category), count(DISTINCT p_brand1), count(*) FILTER (WHERE NOT starts_with(p_brand1, p_category)) FROM ssb_part")).toEqual([25, 1000, 0]);
    expect(await one("SELECT count(*) FILTER (WHERE c_city NOT LIKE rpad(left(c_nation, 9), 9, ' ') || '_') FROM ssb_customer")).toEqual([0]);
    const dates = await duck.queryRows("SELECT d_datekey, d_date, d_yearmonth, d_yearmonthnum, d_weeknuminyear, d_dayofweek, d_daynuminweek FROM ssb_dwdate WHERE d_datekey IN (19920101, 19971231) ORDER BY 1");
    expect(dates.map((r) => r.map((v) => (typeof v === 'bigint' ? Number(v) : v)))).toEqual([
      [19920101, 'January 1, 1992', 'Jan1992', 199201, 1, 'Wednesday', 4],
      [19971231, 'December 31, 1997', 'Dec1997', 199712, 53, 'Wednesday', 4],
    ]);
  });
});

describe('files', () => {
  it('declare the order they are written in, fact tables by date', async () => {
    const cases: [WorkloadName, string, string[]][] = [
      ['tpch', 'lineitem', ['l_shipdate', 'l_orderkey', 'l_linenumber']],
      ['tpch', 'orders', ['o_orderdate', 'o_orderkey']],
      ['tpch', 'customer', ['c_custkey']],
      ['ssb', 'lineorder', ['lo_orderdate', 'lo_orderkey', 'lo_linenumber']],
      ['ssb', 'dwdate', ['d_datekey']],
    ];
    for (const [w, table, columns] of cases) {
      const f = data[w]!.tables[table]!;
      const scan = await ParquetScan.open(f.path);
      // a ParquetScan claims the declared order's prefix that the row groups' min/max prove
      expect(scan.sortedOn?.[0]?.column, `${w} ${table}`).toBe(columns[0]);
      if (f.rows > 10_000) expect(f.rowGroups, `${w} ${table}: several row groups`).toBeGreaterThan(1);
      const order = columns.join(', ');
      const [unsorted] = await one(`SELECT count(*) FROM (SELECT (${order}) AS k, lag((${order})) OVER () AS prev FROM ${w}_${table}) WHERE prev > k`);
      expect(unsorted, `${w} ${table} in order`).toBe(0);
    }
  });

  it('are the same whatever DuckDB thread count wrote them, and cached', async () => {
    const again = await DuckDBSession.open({ threads: 1 });
    const root2 = await mkdtemp(join(tmpdir(), 'joinlab-workloads-'));
    try {
      const g = await generateWorkload(again, { workload: 'tpch', sf: SF, rowGroupSize: 10_000 }, { root: root2 });
      expect(g.cached).toBe(false);
      for (const table of ['lineitem', 'orders', 'part']) {
        // rows and their order: the hash of every row with its position in the file
        const digest = async (path: string) => (await duck.queryRows(`SELECT sum(hash(t)) FROM read_parquet('${path}', file_row_number = true) t`))[0]![0];
        expect(await digest(g.tables[table]!.path), table).toBe(await digest(data.tpch!.tables[table]!.path));
      }
      const cached = await generateWorkload(again, { workload: 'tpch', sf: SF, rowGroupSize: 10_000 }, { root: root2 });
      expect(cached.cached).toBe(true);
      expect(cached.dir).toBe(g.dir);
    } finally {
      again.close();
      await rm(root2, { recursive: true, force: true });
    }
  });
});

describe('queries', () => {
  it('every query text runs in DuckDB on the generated data', async () => {
    for (const w of ['ssb', 'tpch'] as const) {
      for (const [name, f] of Object.entries(data[w]!.tables)) await duck.createViewOnParquet(name, f.path);
      for (const q of WORKLOADS[w].queries) {
        const t = await duck.query(await queryText(w, q));
        expect(t.numCols, `${w} ${q}`).toBeGreaterThan(0);
      }
    }
  });

  it('selects queries by name and refuses bad names and scale factors', () => {
    expect(selectQueries('ssb', 'q1.1, 2.1')).toEqual(['q1.1', 'q2.1']);
    expect(selectQueries('tpch')).toHaveLength(22);
    expect(() => selectQueries('tpch', 'q23')).toThrow(UsageError);
    expect(() => selectQueries('tpch', 'q1,q1')).toThrow(/twice/);
    expect(() => selectQueries('tpch', ',')).toThrow(UsageError);
    expect(() => checkScaleFactor('tpch', 0)).toThrow(/scale factor/);
    expect(() => checkScaleFactor('ssb', Number.NaN)).toThrow(UsageError);
    expect(checkScaleFactor('tpch', 0.5)).toBe(0.5);
  });
});
