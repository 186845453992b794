/**
 * The Star Schema Benchmark data set (O'Neil, O'Neil, Chen, Revilak: "The Star Schema Benchmark
 * and Augmented Fact Table Indexing", TPCTC 2009; ssb-dbgen's build.c), written by DuckDB as SQL
 * over `range()` with the draws of sql-draw.ts.
 *
 * Row counts at scale factor SF: lineorder 1–7 lines for each of 1,500,000·SF orders (~6,000,000·SF),
 * customer 30,000·SF, supplier 2,000·SF, part 200,000·floor(1 + log2 SF) (200,000 below SF 2),
 * dwdate 2,556 days from 1992-01-01 (ssb-dbgen's count: 1998-12-31 is not among them). Types as
 * the paper: INTEGER keys and measures (prices in cents, as ssb-dbgen prints them), lo_orderdate
 * and lo_commitdate INTEGER yyyymmdd date keys into d_datekey, VARCHAR text, BOOLEAN flags.
 *
 * As ssb-dbgen:
 * - c_city / s_city: the nation's name cut or padded to 9 characters plus a digit 0..9
 *   ('UNITED KI1', 'CHINA    3'); c_nation / s_nation uniform over TPC-H's 25 nations and
 *   c_region / s_region theirs; phones `CC-LLL-LLL-LLLL` with CC = nation key + 10;
 * - p_mfgr 'MFGR#M' (1..5), p_category 'MFGR#MC' (C 1..5), p_brand1 'MFGR#MCB' with B 1..40
 *   unpadded ('MFGR#121', 'MFGR#1240'); p_type, p_container and p_size as TPC-H;
 * - lo_orderdate uniform over 1992-01-01 .. 1998-08-02 (as TPC-H's o_orderdate), lo_commitdate
 *   30..90 days later; lo_quantity 1..50, lo_discount 0..10, lo_tax 0..8 (percent);
 *   lo_extendedprice = quantity · price (TPC-H's retail price of the part, in cents); lo_revenue
 *   = extendedprice · (100 - discount) / 100; lo_supplycost = 6 · price / 10; lo_ordtotalprice the
 *   order's sum of extendedprice·(1-discount)·(1+tax) (integer cents, truncated per line);
 *   lo_orderkey sparse and lo_custkey never a multiple of 3, as TPC-H's orders; lo_shippriority '0';
 * - dwdate: d_yearmonth 'Dec1997', d_yearmonthnum 199712, d_weeknuminyear = daynuminyear / 7 + 1
 *   (integer division: days 1..6 are week 1), d_sellingseason by month (Winter Jan–Mar, Spring
 *   Apr, Summer May–Aug, Fall Sep–Oct, Christmas Nov–Dec), d_holidayfl on ssb-dbgen's 10 dates.
 *
 * Departures from ssb-dbgen:
 * - randomness is DuckDB's `hash()` (see sql-draw.ts), not ssb-dbgen's streams;
 * - ssb-dbgen's date-table bugs are not copied: its d_daynuminweek makes Saturday 1 and names it
 *   'Sunday', its month names read 'Augest' and 'Octorber', and d_lastdayinmonthfl is inverted;
 *   here Sunday is 1, names are spelt right and the flags mean what they say;
 * - p_name is two colour words and p_color a third (distinct), where ssb-dbgen splits the first
 *   colour of a TPC-H name off as p_color;
 * - addresses are hex digits.
 *
 * File order: lineorder by (lo_orderdate, lo_orderkey, lo_linenumber), the dimensions by key.
 */
import type { TableDef } from '../../adapters/datagen/cached-parquet.ts';
import type { WorkloadData } from './data.ts';
import { COLOURS, CONTAINER_SYLLABLES, HOLIDAYS, NATIONS, PRIORITIES, REGIONS, SEGMENTS, SHIP_MODES, TYPE_SYLLABLES } from './domains.ts';
import { dateKey, hasher, listLiteral, livingCustomerKey, numbered, orderLineRows, phone, pick, randomString, retailPriceCents, uniform, type Hasher } from './sql-draw.ts';

export const SSB_TABLES = ['dwdate', 'customer', 'supplier', 'part', 'lineorder'] as const;

/** Rows of each table at scale factor `sf` (lineorder: ~4 per order, not fixed). */
export function ssbCounts(sf: number): { customer: number; supplier: number; part: number; orders: number; days: number } {
  const n = (base: number) => Math.max(1, Math.floor(base * sf + 1e-9));
  return {
    customer: n(30_000),
    supplier: n(2_000),
    part: 200_000 * Math.max(1, Math.floor(1 + Math.log2(sf))),
    orders: n(1_500_000),
    days: DAYS,
  };
}

const DAYS = 2556;
const T = { dwdate: 11, customer: 12, supplier: 13, part: 14, lineorder: 15, orders: 16 } as const;
const by = (...columns: string[]) => columns.map((column) => ({ column }));

/** Nation, region and city of a customer or supplier whose nation index is `nk`. */
function place(nk: string, h: Hasher, prefix: 'c' | 's'): string {
  const nations = listLiteral(NATIONS.map(([name]) => name));
  const regions = `(${listLiteral(REGIONS)})[1 + ([${NATIONS.map(([, r]) => r).join(', ')}])[1 + ${nk}]]`;
  const nation = `(${nations})[1 + ${nk}]`;
  return (
    `rpad(left(${nation}, 9), 9, ' ') || ${uniform(h(4), 0, 9)}::VARCHAR AS ${prefix}_city, ${nation} AS ${prefix}_nation, ` +
    `${regions} AS ${prefix}_region, ${phone(nk, h, 5)} AS ${prefix}_phone`
  );
}

function customer(sf: number, seed: number): TableDef {
  const h = hasher(seed, T.customer, 'k');
  const sql =
    `SELECT k::INTEGER AS c_custkey, ${numbered('Customer#', 'k')} AS c_name, ${randomString(h, 50, 10, 40)} AS c_address, ` +
    `${place('nk', h, 'c')}, ${pick(SEGMENTS, h(2))} AS c_mktsegment ` +
    `FROM (SELECT k, ${uniform(h(1), 0, 24)} AS nk FROM range(1, ${ssbCounts(sf).customer + 1}) t(k)) ORDER BY c_custkey`;
  return { sql, order: by('c_custkey') };
}

function supplier(sf: number, seed: number): TableDef {
  const h = hasher(seed, T.supplier, 'k');
  const sql =
    `SELECT k::INTEGER AS s_suppkey, ${numbered('Supplier#', 'k')} AS s_name, ${randomString(h, 50, 10, 40)} AS s_address, ` +
    `${place('nk', h, 's')} ` +
    `FROM (SELECT k, ${uniform(h(1), 0, 24)} AS nk FROM range(1, ${ssbCounts(sf).supplier + 1}) t(k)) ORDER BY s_suppkey`;
  return { sql, order: by('s_suppkey') };
}

function part(sf: number, seed: number): TableDef {
  const h = hasher(seed, T.part, 'k');
  const start = uniform(h(1), 0, COLOURS.length - 1);
  const step = uniform(h(2), 1, 45); // 2 steps of at most 45 stay below 92: 3 distinct colours
  const colour = (j: number) => `(${listLiteral(COLOURS)})[1 + ((${start} + ${j} * ${step}) % ${COLOURS.length})::INTEGER]`;
  const sql =
    `SELECT k::INTEGER AS p_partkey, ${colour(1)} || ' ' || ${colour(2)} AS p_name, 'MFGR#' || m::VARCHAR AS p_mfgr, ` +
    `'MFGR#' || m::VARCHAR || c::VARCHAR AS p_category, 'MFGR#' || m::VARCHAR || c::VARCHAR || ${uniform(h(5), 1, 40)}::VARCHAR AS p_brand1, ` +
    `${colour(0)} AS p_color, ${TYPE_SYLLABLES.map((s, j) => pick(s, h(6 + j))).join(` || ' ' || `)} AS p_type, ` +
    `${uniform(h(9), 1, 50)}::INTEGER AS p_size, ${CONTAINER_SYLLABLES.map((s, j) => pick(s, h(10 + j))).join(` || ' ' || `)} AS p_container ` +
    `FROM (SELECT k, ${uniform(h(3), 1, 5)} AS m, ${uniform(h(4), 1, 5)} AS c FROM range(1, ${ssbCounts(sf).part + 1}) t(k)) ORDER BY p_partkey`;
  return { sql, order: by('p_partkey') };
}

function dwdate(): TableDef {
  const holiday = HOLIDAYS.map(([m, d]) => `(month(d) = ${m} AND day(d) = ${d})`).join(' OR ');
  const season =
    `CASE WHEN month(d) >= 11 THEN 'Christmas' WHEN month(d) >= 9 THEN 'Fall' WHEN month(d) >= 5 THEN 'Summer' ` +
    `WHEN month(d) = 4 THEN 'Spring' ELSE 'Winter' END`;
  const sql =
    `SELECT ${dateKey('d')} AS d_datekey, strftime(d, '%B %-d, %Y') AS d_date, dayname(d) AS d_dayofweek, monthname(d) AS d_month, ` +
    `year(d)::INTEGER AS d_year, (year(d) * 100 + month(d))::INTEGER AS d_yearmonthnum, strftime(d, '%b%Y') AS d_yearmonth, ` +
    `(dayofweek(d) + 1)::INTEGER AS d_daynuminweek, day(d)::INTEGER AS d_daynuminmonth, dayofyear(d)::INTEGER AS d_daynuminyear, ` +
    `month(d)::INTEGER AS d_monthnuminyear, (dayofyear(d) // 7 + 1)::INTEGER AS d_weeknuminyear, ${season} AS d_sellingseason, ` +
    `dayofweek(d) = 6 AS d_lastdayinweekfl, d = last_day(d) AS d_lastdayinmonthfl, (${holiday}) AS d_holidayfl, ` +
    `dayofweek(d) BETWEEN 1 AND 5 AS d_weekdayfl ` +
    `FROM (SELECT DATE '1992-01-01' + i::INTEGER AS d FROM range(${DAYS}) t(i)) ORDER BY d_datekey`;
  return { sql, order: by('d_datekey') };
}

function lineorder(sf: number, seed: number): TableDef {
  const c = ssbCounts(sf);
  const o = hasher(seed, T.orders, 'i');
  const l = hasher(seed, T.lineorder, 'i', 'ln');
  const lines = orderLineRows(o, c.orders, [`${livingCustomerKey(o(3), c.customer)} AS custkey`, `${pick(PRIORITIES, o(4))} AS priority`]);
  const draws =
    `SELECT *, ${uniform(l(1), 1, c.part)} AS partkey, ${uniform(l(2), 1, c.supplier)} AS suppkey, ${uniform(l(3), 1, 50)} AS qty, ` +
    `${uniform(l(4), 0, 10)} AS disc, ${uniform(l(5), 0, 8)} AS tax, odate + ${uniform(l(6), 30, 90)}::INTEGER AS commitdate, ` +
    `${pick(SHIP_MODES, l(7))} AS shipmode FROM (${lines})`;
  const priced = `SELECT *, ${retailPriceCents('partkey')} AS price, qty * ${retailPriceCents('partkey')} AS eprice FROM (${draws})`;
  const sql =
    `SELECT okey::INTEGER AS lo_orderkey, ln::INTEGER AS lo_linenumber, custkey::INTEGER AS lo_custkey, partkey::INTEGER AS lo_partkey, ` +
    `suppkey::INTEGER AS lo_suppkey, ${dateKey('odate')} AS lo_orderdate, priority AS lo_orderpriority, '0' AS lo_shippriority, ` +
    `qty::INTEGER AS lo_quantity, eprice::INTEGER AS lo_extendedprice, ` +
    `(sum((eprice * (100 - disc)) // 100 * (100 + tax) // 100) OVER (PARTITION BY i))::INTEGER AS lo_ordtotalprice, ` +
    `disc::INTEGER AS lo_discount, (eprice * (100 - disc) // 100)::INTEGER AS lo_revenue, (6 * price // 10)::INTEGER AS lo_supplycost, ` +
    `tax::INTEGER AS lo_tax, ${dateKey('commitdate')} AS lo_commitdate, shipmode AS lo_shipmode ` +
    `FROM (${priced}) ORDER BY lo_orderdate, lo_orderkey, lo_linenumber`;
  return { sql, order: by('lo_orderdate', 'lo_orderkey', 'lo_linenumber') };
}

/** Every SSB table's SELECT at scale factor `sf`, in SSB_TABLES order (no comment columns, so no text pool). */
export function ssbData(sf: number, seed: number): WorkloadData {
  const tables: Record<(typeof SSB_TABLES)[number], TableDef> = {
    dwdate: dwdate(),
    customer: customer(sf, seed),
    supplier: supplier(sf, seed),
    part: part(sf, seed),
    lineorder: lineorder(sf, seed),
  };
  return { tables, setup: [], teardown: [] };
}
