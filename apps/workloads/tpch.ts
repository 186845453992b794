/**
 * The TPC-H data set (spec 3.0.1, clause 4.2; dbgen), written by DuckDB as SQL over `range()`.
 *
 * Row counts at scale factor SF (fractional SFs as dbgen: counts truncated): region 5, nation 25,
 * supplier 10,000·SF, customer 150,000·SF, part 200,000·SF, partsupp 4 per part, orders
 * 1,500,000·SF, lineitem 1–7 per order (~6,000,000·SF). Column names and types are those of
 * DuckDB's own `dbgen` (extension/tpch/dbgen/dbgen.cpp): BIGINT keys (INTEGER nation and region
 * keys), DECIMAL(15,2) money, quantity, discount and tax, DATE dates, VARCHAR text.
 *
 * As dbgen (clause 4.2.3 and build.c):
 * - keys 1..n (nation and region 0-based); o_orderkey sparse: the first 8 of every 32 keys;
 *   o_custkey never a multiple of 3 (a third of the customers has no orders: q13, q22);
 *   ps_suppkey and l_suppkey by dbgen's part-supplier bridge `(p + i·(S/4 + (p-1)/S)) mod S + 1`
 *   (i in 0..3), so every lineitem's (partkey, suppkey) is a partsupp row (q9, q20);
 * - p_name 5 distinct colour words of 92, p_mfgr `Manufacturer#M`, p_brand `Brand#MN` (N of the
 *   same M), p_type 6x5x5 syllables, p_container 5x8, p_size 1..50, p_retailprice from the key;
 * - c_phone / s_phone `CC-LLL-LLL-LLLL` with CC = nation key + 10 (q22), acctbal -999.99..9999.99,
 *   c_mktsegment of 5, o_orderpriority of 5, o_clerk `Clerk#` of SF·1000, o_shippriority 0;
 * - o_orderdate uniform over 1992-01-01 .. 1998-08-02 (ENDDATE - 151 days); l_shipdate =
 *   orderdate + 1..121 days, l_commitdate = orderdate + 30..90, l_receiptdate = shipdate + 1..30;
 *   l_returnflag R or A when receiptdate <= 1995-06-17 (CURRENTDATE), else N; l_linestatus O when
 *   shipdate > 1995-06-17, else F; o_orderstatus F when every line is F, O when every line is O,
 *   else P; l_quantity 1..50, l_discount 0.00..0.10, l_tax 0.00..0.08, l_extendedprice = quantity ·
 *   retailprice; o_totalprice the sum over its lines of extendedprice·(1-discount)·(1+tax) in
 *   dbgen's integer cents (truncating each product);
 * - s_comment: 5 in 10,000 suppliers carry `Customer … Complaints` and 5 `Customer … Recommends`
 *   (q16), overlaid on the comment as dbgen does.
 *
 * Departures from dbgen (none changes a query's predicates' value domains):
 * - randomness is DuckDB's `hash()` of (row, seed, column), not dbgen's per-column LCG streams,
 *   so values differ from dbgen's files and the official answer sets do not apply;
 * - o_custkey is uniform over the non-multiples of 3 (dbgen steps off a multiple of 3 to a
 *   neighbour, which slightly favours keys next to one);
 * - p_name's 5 distinct colours are `c, c+k, …, c+4k` (mod 92) for a random start c and step
 *   k in 1..18 rather than a uniform 5-subset: each colour still appears in 5/92 of the names
 *   (q9 '%green%'), and starts 1/92 of them (q20 'forest%');
 * - comments are substrings of a ~1 MB pool of dbgen-grammar sentences (sql-draw.ts), not of
 *   dbgen's 300 MB pool; addresses are hex digits (dbgen: letters, digits, comma, space).
 *
 * File order: lineitem by (l_shipdate, l_orderkey, l_linenumber), orders by (o_orderdate,
 * o_orderkey), so row-group min/max of the dates are narrow; the other tables by key (partsupp by
 * (ps_partkey, ps_suppkey) in dbgen's order of the 4 suppliers). Each file declares its order.
 */
import type { TableDef } from '../../adapters/datagen/cached-parquet.ts';
import type { WorkloadData } from './data.ts';
import { CONTAINER_SYLLABLES, COLOURS, NATIONS, PRIORITIES, REGIONS, SEGMENTS, SHIP_INSTRUCTIONS, SHIP_MODES, TYPE_SYLLABLES } from './domains.ts';
import {
  comment,
  hasher,
  listLiteral,
  livingCustomerKey,
  money,
  numbered,
  phone,
  pick,
  randomString,
  retailPriceCents,
  orderLineRows,
  textPool,
  uniform,
  type Hasher,
} from './sql-draw.ts';

export const TPCH_TABLES = ['region', 'nation', 'supplier', 'customer', 'part', 'partsupp', 'orders', 'lineitem'] as const;

/** Rows of each base table at scale factor `sf` (lineitem: ~4 per order, not fixed). */
export function tpchCounts(sf: number): { supplier: number; customer: number; part: number; orders: number } {
  const n = (base: number) => Math.max(1, Math.floor(base * sf + 1e-9));
  return { supplier: n(10_000), customer: n(150_000), part: n(200_000), orders: n(1_500_000) };
}

/** dbgen's CURRENTDATE, which splits returned / open lines. */
const CURRENT_DATE = "DATE '1995-06-17'";

const by = (...columns: string[]) => columns.map((column) => ({ column }));

/** Each table's number in its rows' hashes (sql-draw.ts `hasher`): row k of two tables draws differently. */
const T = { region: 1, nation: 2, supplier: 3, customer: 4, part: 5, partsupp: 6, orders: 7, lineitem: 8 } as const;

/** The supplier of part `p` numbered `i` (0..3): dbgen's PART_SUPP_BRIDGE over S suppliers. */
function partSupplier(p: string, i: string, suppliers: number): string {
  return `((${p}) + (${i}) * (${Math.floor(suppliers / 4)} + ((${p}) - 1) // ${suppliers})) % ${suppliers} + 1`;
}

/**
 * Every order line with the draws both lineitem and orders need: `SELECT i, okey, odate, ln,
 * partkey, suppkey, qty, disc, tax, shipdate, commitdate, receiptdate`. Orders are numbered i =
 * 0..O-1; line ln of order i draws from hash(i, ln, seed, stream), the order from hash(i, seed, stream).
 */
function orderLines(sf: number, seed: number): string {
  const c = tpchCounts(sf);
  const o = hasher(seed, T.orders, 'i');
  const l = hasher(seed, T.lineitem, 'i', 'ln');
  const lines = orderLineRows(o, c.orders);
  const draws =
    `SELECT i, okey, odate, ln, ${uniform(l(1), 1, c.part)} AS partkey, ${uniform(l(2), 0, 3)} AS supp, ${uniform(l(3), 1, 50)} AS qty, ` +
    `${uniform(l(4), 0, 10)} AS disc, ${uniform(l(5), 0, 8)} AS tax, odate + ${uniform(l(6), 1, 121)}::INTEGER AS shipdate, ` +
    `odate + ${uniform(l(7), 30, 90)}::INTEGER AS commitdate, ${uniform(l(8), 1, 30)}::INTEGER AS receiptdays FROM (${lines})`;
  return (
    `SELECT i, okey, odate, ln, partkey, ${partSupplier('partkey', 'supp', c.supplier)} AS suppkey, qty, disc, tax, ` +
    `shipdate, commitdate, shipdate + receiptdays AS receiptdate FROM (${draws})`
  );
}

function lineitem(sf: number, seed: number): TableDef {
  const l = hasher(seed, T.lineitem, 'i', 'ln');
  const text = comment('cm', l, 30, 10, 43);
  const sql =
    `WITH lines AS (${orderLines(sf, seed)}) ` +
    `SELECT okey::BIGINT AS l_orderkey, partkey::BIGINT AS l_partkey, suppkey::BIGINT AS l_suppkey, ln::BIGINT AS l_linenumber, ` +
    `qty::DECIMAL(15,2) AS l_quantity, ${money(`qty * ${retailPriceCents('partkey')}`)} AS l_extendedprice, ` +
    `${money('disc')} AS l_discount, ${money('tax')} AS l_tax, ` +
    `CASE WHEN receiptdate <= ${CURRENT_DATE} THEN ${pick(['R', 'A'], l(20))} ELSE 'N' END AS l_returnflag, ` +
    `CASE WHEN shipdate > ${CURRENT_DATE} THEN 'O' ELSE 'F' END AS l_linestatus, ` +
    `shipdate AS l_shipdate, commitdate AS l_commitdate, receiptdate AS l_receiptdate, ` +
    `${pick(SHIP_INSTRUCTIONS, l(21))} AS l_shipinstruct, ${pick(SHIP_MODES, l(22))} AS l_shipmode, ` +
    `${text.text} AS l_comment ` +
    `FROM lines ${text.join} ORDER BY l_shipdate, l_orderkey, l_linenumber`;
  return { sql, order: by('l_shipdate', 'l_orderkey', 'l_linenumber') };
}

function orders(sf: number, seed: number): TableDef {
  const c = tpchCounts(sf);
  const o = hasher(seed, T.orders, 'i');
  const text = comment('cm', o, 30, 19, 78);
  // dbgen: totalprice += ((eprice * (100 - discount)) / 100) * (100 + tax) / 100, in integer cents
  const lineTotal = `(qty * ${retailPriceCents('partkey')} * (100 - disc)) // 100 * (100 + tax) // 100`;
  const sums =
    `SELECT i, any_value(okey) AS okey, any_value(odate) AS odate, sum(${lineTotal}) AS total_cents, count(*) AS nlines, ` +
    `count(*) FILTER (WHERE shipdate > ${CURRENT_DATE}) AS open_lines FROM lines GROUP BY i`;
  const sql =
    `WITH lines AS (${orderLines(sf, seed)}), sums AS (${sums}) ` +
    `SELECT okey::BIGINT AS o_orderkey, ${livingCustomerKey(o(3), c.customer)}::BIGINT AS o_custkey, ` +
    `CASE WHEN open_lines = 0 THEN 'F' WHEN open_lines = nlines THEN 'O' ELSE 'P' END AS o_orderstatus, ` +
    `${money('total_cents')} AS o_totalprice, odate AS o_orderdate, ${pick(PRIORITIES, o(4))} AS o_orderpriority, ` +
    `${numbered('Clerk#', uniform(o(5), 1, Math.max(1, Math.floor(sf * 1000 + 1e-9))))} AS o_clerk, 0::INTEGER AS o_shippriority, ` +
    `${text.text} AS o_comment ` +
    `FROM sums ${text.join} ORDER BY o_orderdate, o_orderkey`;
  return { sql, order: by('o_orderdate', 'o_orderkey') };
}

function part(sf: number, seed: number): TableDef {
  const c = tpchCounts(sf);
  const h = hasher(seed, T.part, 'k');
  const start = uniform(h(1), 0, COLOURS.length - 1);
  const step = uniform(h(2), 1, 18); // 4 steps of at most 18 stay below 92: 5 distinct colours
  const colour = (j: number) => `(${listLiteral(COLOURS)})[1 + ((${start} + ${j} * ${step}) % ${COLOURS.length})::INTEGER]`;
  const name = [0, 1, 2, 3, 4].map(colour).join(` || ' ' || `);
  const text = comment('cm', h, 30, 5, 22);
  const sql =
    `SELECT k::BIGINT AS p_partkey, ${name} AS p_name, 'Manufacturer#' || m::VARCHAR AS p_mfgr, 'Brand#' || m::VARCHAR || ${uniform(h(4), 1, 5)}::VARCHAR AS p_brand, ` +
    `${TYPE_SYLLABLES.map((s, j) => pick(s, h(5 + j))).join(` || ' ' || `)} AS p_type, ${uniform(h(8), 1, 50)}::INTEGER AS p_size, ` +
    `${CONTAINER_SYLLABLES.map((s, j) => pick(s, h(9 + j))).join(` || ' ' || `)} AS p_container, ` +
    `${money(retailPriceCents('k'))} AS p_retailprice, ${text.text} AS p_comment ` +
    `FROM (SELECT k, ${uniform(h(3), 1, 5)} AS m FROM range(1, ${c.part + 1}) t(k)) ${text.join} ORDER BY p_partkey`;
  return { sql, order: by('p_partkey') };
}

function partsupp(sf: number, seed: number): TableDef {
  const c = tpchCounts(sf);
  const h = hasher(seed, T.partsupp, 'k', 'j');
  const text = comment('cm', h, 30, 49, 198);
  const sql =
    `SELECT k::BIGINT AS ps_partkey, (${partSupplier('k', 'j', c.supplier)})::BIGINT AS ps_suppkey, ` +
    `${uniform(h(1), 1, 9999)}::BIGINT AS ps_availqty, ${money(uniform(h(2), 100, 100_000))} AS ps_supplycost, ` +
    `${text.text} AS ps_comment ` +
    `FROM (SELECT k, unnest(range(4)) AS j FROM range(1, ${c.part + 1}) t(k)) ${text.join} ORDER BY k, j`;
  return { sql, order: by('ps_partkey') };
}

/**
 * `t` (a comment column of the FROM clause) with `Customer … Complaints` overlaid in 5 of 10,000
 * rows and `Customer … Recommends` in 5 (dbgen's S_CMNT_BBB), keeping its length where it fits.
 */
function supplierComment(h: Hasher): string {
  const bad = `${h(40)} % 10000`;
  const noise = uniform(h(41), 0, 10); // characters between 'Customer ' and the verdict
  const offset = uniform(h(42), 0, 15); // where 'Customer ' starts: 15 + 9 + 10 + 10 <= 44
  const overlay = (verdict: string) =>
    `left(t, ${offset}::INTEGER) || 'Customer ' || substr(t, ${offset} + 10, ${noise}) || '${verdict}' || substr(t, ${offset} + 10 + ${noise} + 10)`;
  return `CASE WHEN ${bad} < 5 THEN ${overlay('Complaints')} WHEN ${bad} < 10 THEN ${overlay('Recommends')} ELSE t END`;
}

/**
 * The columns supplier and customer share, of row `k` with nation key `nk`: key, name
 * (`Supplier#000000001`), address, nation key, phone and account balance (-999.99..9999.99).
 */
function party(p: 's' | 'c', key: string, tag: string, h: Hasher): string {
  return (
    `k::BIGINT AS ${p}_${key}, ${numbered(tag, 'k')} AS ${p}_name, ${randomString(h, 50, 10, 40)} AS ${p}_address, ` +
    `nk::INTEGER AS ${p}_nationkey, ${phone('nk', h, 3)} AS ${p}_phone, ${money(uniform(h(6), -99_999, 999_999))} AS ${p}_acctbal`
  );
}

function supplier(sf: number, seed: number): TableDef {
  const h = hasher(seed, T.supplier, 'k');
  const text = comment('cm', h, 30, 25, 100);
  const sql =
    `SELECT ${party('s', 'suppkey', 'Supplier#', h)}, ${supplierComment(h)} AS s_comment ` +
    `FROM (SELECT k, ${uniform(h(2), 0, 24)} AS nk, ${text.text} AS t FROM range(1, ${tpchCounts(sf).supplier + 1}) r(k) ${text.join}) ORDER BY s_suppkey`;
  return { sql, order: by('s_suppkey') };
}

function customer(sf: number, seed: number): TableDef {
  const h = hasher(seed, T.customer, 'k');
  const text = comment('cm', h, 30, 29, 116);
  const sql =
    `SELECT ${party('c', 'custkey', 'Customer#', h)}, ${pick(SEGMENTS, h(7))} AS c_mktsegment, ${text.text} AS c_comment ` +
    `FROM (SELECT k, ${uniform(h(2), 0, 24)} AS nk FROM range(1, ${tpchCounts(sf).customer + 1}) t(k)) ${text.join} ORDER BY c_custkey`;
  return { sql, order: by('c_custkey') };
}

function nation(seed: number): TableDef {
  const h = hasher(seed, T.nation, 'k');
  const text = comment('cm', h, 30, 31, 114);
  const rows = NATIONS.map(([name, region], k) => `(${k}, '${name}', ${region})`).join(', ');
  const sql =
    `SELECT k::INTEGER AS n_nationkey, name AS n_name, region::INTEGER AS n_regionkey, ${text.text} AS n_comment ` +
    `FROM (VALUES ${rows}) v(k, name, region) ${text.join} ORDER BY n_nationkey`;
  return { sql, order: by('n_nationkey') };
}

function region(seed: number): TableDef {
  const h = hasher(seed, T.region, 'k');
  const text = comment('cm', h, 30, 31, 115);
  const rows = REGIONS.map((name, k) => `(${k}, '${name}')`).join(', ');
  const sql =
    `SELECT k::INTEGER AS r_regionkey, name AS r_name, ${text.text} AS r_comment ` +
    `FROM (VALUES ${rows}) v(k, name) ${text.join} ORDER BY r_regionkey`;
  return { sql, order: by('r_regionkey') };
}

/** Every TPC-H table's SELECT at scale factor `sf`, in TPCH_TABLES order, and the text pool they read. */
export function tpchData(sf: number, seed: number): WorkloadData {
  const pool = textPool(seed);
  const tables: Record<(typeof TPCH_TABLES)[number], TableDef> = {
    region: region(seed),
    nation: nation(seed),
    supplier: supplier(sf, seed),
    customer: customer(sf, seed),
    part: part(sf, seed),
    partsupp: partsupp(sf, seed),
    orders: orders(sf, seed),
    lineitem: lineitem(sf, seed),
  };
  return { tables, setup: pool.create, teardown: pool.drop };
}
