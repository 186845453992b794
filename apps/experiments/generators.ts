/**
 * The built-in experiment data sets, written as Parquet by DuckDB.
 *
 * Why DuckDB writes them: it is the fastest Parquet writer at hand, it controls the row-group size
 * (the unit a dynamic filter can skip, so the unit every pushdown experiment is about), and the
 * same engine then reads the same files for the baseline. Why seeded hashes instead of `random()`:
 * `hash(row, seed, stream)` is a pure function of its arguments, so a data set is reproducible
 * whatever DuckDB's thread count or scan order. The files are cached under
 * `os.tmpdir()/joinlab-data/<generator>-<hash>/` where the hash covers the generator, its
 * parameters, the seed, the row-group size, the DuckDB version (its `hash()` may change between
 * versions) and `GENERATOR_VERSION` (bumped when the SQL below changes). Each file is written to
 * a temporary name and renamed, so an interrupted run never leaves a half-written file that a
 * later run would mistake for a cached one (adapters/datagen/cached-parquet.ts does both, for the
 * SSB and TPC-H workloads too).
 *
 * The data sets (left is always the larger, probed side; right the build side):
 * - `star`: left `orders(order_id, customer_id, amount, status, order_date)`, sorted by
 *   `customer_id`; right the *selected* customers `(customer_id, name, region, segment, credit)`:
 *   `selectivity` of all customers, in runs of `clusterSize` consecutive ids scattered over the
 *   key range (region = 'EMEA': the dimension filter already applied, as a planner would push it
 *   into the build scan). Min/max bounds span nearly every order; a membership filter can skip
 *   the order row groups holding none of the selected customers. Join: `customer_id=customer_id`.
 * - `sparse`: left `(k, v)`, `rowsPerKey` rows per key over 0..probeRows/rowsPerKey, sorted by
 *   `k`; right `(k, bv)` with the keys `k % period < islandWidth` (as bench/suites/parquet-pruning.ts).
 *   Join: `k=k`.
 * - `skewed`: left `(id, k, v)` in row order with `hotShare` of the rows on `hotKeys` keys and the
 *   rest uniform over the build keys; right `(k, label)`: unique keys 0..buildRows-1, shuffled.
 *   Join: `k=k`.
 * - `unsorted`: left `(i, k, v)` in row order, row group g of G holding only keys
 *   `k ≡ g (mod G)` (`distinctPerRowGroup` of them, each ~rowGroupSize/distinct times): every row
 *   group's min/max spans the whole key range, so min/max prunes nothing, but each row group's
 *   dictionary-encoded `k` carries a Bloom filter (DuckDB writes one per dictionary-encoded
 *   column chunk) that rules out the keys of other row groups; right `(k)`: `buildKeys` random
 *   keys of that domain. Join: `k=k`.
 * - `range`: left `(id, v, payload)` with `v` uniform in [0, 1M), right `(id, v, tag)` with `v`
 *   uniform in [(1-overlap)·1M, (2-overlap)·1M): `l.v > r.v` can only hold inside the overlap
 *   (about overlap²/2 of all pairs). `sorted: true` writes both sides sorted by `v`.
 * - `starschema` (four tables, for `sql:` data sets): `fact(date_key, customer_key, product_key,
 *   quantity, price)` of `factRows` rows sorted by `date_key` (yyyymmdd INTEGER, the 366 days of
 *   2024 in equal shares); `date_dim(date_key, date, year, quarter, month, day, day_name)` for
 *   2023–2025; `customer(customer_key, name, region, segment)` with 20 regions
 *   `region-00`..`region-19` of consecutive keys (5% each); `product(product_key, name,
 *   category, brand, list_price)` with 20 categories `category-00`..`category-19` likewise. The
 *   fact's keys are clustered by position so that every dimension's filter prunes row groups of
 *   its own: in runs of `customerRunRows` rows (default 4 row groups of 10240) a row's customer
 *   comes from one quarter of the customer keys (5 regions; uniform inside it), the quarters in
 *   the order 0,1,2,3,2,1,0,… (so a row group straddling two runs spans two neighbouring
 *   quarters, never all of them); its product likewise from runs of `productRunRows` rows
 *   (default 2 row groups) over the product quarters. So one month's fact row groups are found by
 *   `date_key` alone; the key bounds of one region (`region-07`: quarter 1, a third of the runs)
 *   then skip about two thirds of them, and those of one category (`category-13`: quarter 2)
 *   about half of what is left (measured at 20M rows: 166, 54 and 28 of 1954 row groups kept).
 *   Every dimension is sorted by its key.
 * - `h2o` (four tables, for `sql:` data sets and the `h2o` bench suite): the h2o.ai db-benchmark
 *   join task by the rules of its generator (`_data/join-datagen.R`), with seeded hashes in place
 *   of R's `sample`. For N = `rows` and each key level j (n = N/1e6, N/1e3, N), `split_xlr(n)`
 *   permutes the keys 1..1.1n and splits them into the common keys x (the first 0.9n), the
 *   left-only keys l (the next 0.1n) and the right-only keys r (the last 0.1n); `sample_all(S,
 *   size)` is S plus size-|S| draws from S with replacement, permuted (every key of S occurs).
 *   `x(id1, id2, id3, id4, id5, id6, v1)`: N rows, idj = sample_all(x ∪ l of level j, N);
 *   `small(id1, id4, v2)`: N/1e6 rows; `medium(id1, id2, id4, id5, v2)`: N/1e3 rows; `big(id1,
 *   id2, id3, id4, id5, id6, v2)`: N rows; on the right idj = sample_all(x ∪ r of level j, n),
 *   so the right table's last id column is unique (each row of `x` matches at most one row, 90%
 *   of them one). id4..id6 are `'id' || id1..id3` (VARCHAR), id1..id3 INTEGER, v1/v2 uniform in
 *   [0, 100) rounded to 6 decimals (`round(runif(n, max=100), 6)`). Below 1e6 rows a level keeps
 *   at least one key. Files are in row order (nothing declared).
 *
 * Each file declares the order its ORDER BY gives it (`generatorOrder`) as Parquet
 * `sorting_columns` — DuckDB's COPY writes none, so the footer of the temp file is patched
 * (`declareParquetSortOrder`) before the rename — and a `ParquetScan` of it claims that order
 * (`sortedOn`), which the sort-merge join can use instead of sorting. DuckDB keeps a query's
 * ORDER BY in the file it writes (`preserve_insertion_order`, on by default); were it not kept,
 * the join's row-by-row check would fail with a typed error, never a wrong answer.
 */
import { ConfigError } from '../../core/errors.ts';
import type { SortColumnInput } from '../../core/scan/sort-order.ts';
import { cacheDir, defaultDataRoot, writeCachedTables, type GeneratedTables, type FileInfo } from '../../adapters/datagen/cached-parquet.ts';
import type { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { GENERATOR_TABLES, type GeneratedDataSpec, type GeneratorParams } from './schema.ts';

export { defaultDataRoot, duckdbVersion, parquetInfo, type FileInfo, type GeneratedTables } from '../../adapters/datagen/cached-parquet.ts';

/** Bump when the SQL of any generator changes, so old caches are not reused. */
export const GENERATOR_VERSION = 2; // 2: files declare their order (sorting_columns)

export interface GeneratedFiles {
  readonly dir: string;
  readonly left: FileInfo;
  readonly right: FileInfo;
  /** True when both files were already in the cache. */
  readonly cached: boolean;
}

/** The two SELECT statements (left, right) of a generated data set. */
export function generatorSql(spec: GeneratedDataSpec): { left: string; right: string } {
  const s = Math.trunc(spec.seed);
  switch (spec.generator) {
    case 'star':
      return starSql(spec.params as GeneratorParams['star'], s);
    case 'sparse':
      return sparseSql(spec.params as GeneratorParams['sparse'], s);
    case 'skewed':
      return skewedSql(spec.params as GeneratorParams['skewed'], s);
    case 'unsorted':
      return unsortedSql(spec.params as GeneratorParams['unsorted'], s, spec.rowGroupSize);
    case 'range':
      return rangeSql(spec.params as GeneratorParams['range'], s);
    case 'starschema':
    case 'h2o':
      throw new ConfigError(`generator ${spec.generator} writes the tables ${GENERATOR_TABLES[spec.generator].join(', ')}, not left and right: use it in a sql: data set (tables:)`);
  }
}

/** Each table's SELECT and declared order, by table name (`GENERATOR_TABLES[spec.generator]`). */
export function generatorTables(spec: GeneratedDataSpec): Record<string, { readonly sql: string; readonly order: SortColumnInput[] }> {
  if (spec.generator === 'starschema') return starSchemaTables(spec.params as GeneratorParams['starschema'], Math.trunc(spec.seed));
  if (spec.generator === 'h2o') return h2oTables(spec.params as GeneratorParams['h2o'], Math.trunc(spec.seed));
  const sql = generatorSql(spec);
  const order = generatorOrder(spec);
  return { left: { sql: sql.left, order: order.left }, right: { sql: sql.right, order: order.right } };
}

/** The order each file's ORDER BY writes it in (empty: none worth declaring), as `sorting_columns`. */
export function generatorOrder(spec: GeneratedDataSpec): { left: SortColumnInput[]; right: SortColumnInput[] } {
  const by = (...columns: string[]): SortColumnInput[] => columns.map((column) => ({ column }));
  switch (spec.generator) {
    case 'star':
      return { left: by('customer_id', 'order_id'), right: by('customer_id') };
    case 'sparse':
      return { left: by('k'), right: by('k') }; // left: ORDER BY i, and k = i // rowsPerKey
    case 'skewed':
      return { left: by('id'), right: [] };
    case 'unsorted':
      return { left: by('i'), right: [] };
    case 'range':
      return (spec.params as GeneratorParams['range']).sorted ? { left: by('v', 'id'), right: by('v', 'id') } : { left: by('id'), right: by('id') };
    case 'starschema':
    case 'h2o':
      return { left: [], right: [] }; // no left/right (generatorTables has its tables' orders)
  }
}

/** `yyyymmdd` of a DATE expression, as an INTEGER (a star schema's usual date key). */
const dateKey = (d: string): string => `(year(${d}) * 10000 + month(${d}) * 100 + day(${d}))::INTEGER`;

/**
 * The key quarter (0..3) of row `i` in runs of `run` rows, as a triangle wave 0,1,2,3,2,1,0,…: a
 * row group that straddles two runs holds two neighbouring quarters, so its min/max still rules
 * out the other two (a 3 -> 0 step would span every key).
 */
const quarter = (i: string, run: number): string => `(CASE WHEN (${i} // ${run}) % 6 <= 3 THEN (${i} // ${run}) % 6 ELSE 6 - (${i} // ${run}) % 6 END)`;

function starSchemaTables(p: GeneratorParams['starschema'], seed: number): Record<string, { sql: string; order: SortColumnInput[] }> {
  const n = p.factRows;
  const cq = p.customers / 4;
  const pq = p.products / 4;
  const fact =
    `SELECT ${dateKey('d')} AS date_key, ` +
    `(${quarter('i', p.customerRunRows)} * ${cq} + (hash(i, ${seed}, 1) % ${cq})::BIGINT)::INTEGER AS customer_key, ` +
    `(${quarter('i', p.productRunRows)} * ${pq} + (hash(i, ${seed}, 2) % ${pq})::BIGINT)::INTEGER AS product_key, ` +
    `(1 + hash(i, ${seed}, 3) % 10)::INTEGER AS quantity, ((hash(i, ${seed}, 4) % 100000) / 100.0)::DOUBLE AS price ` +
    `FROM (SELECT i, DATE '2024-01-01' + ((i * 366) // ${n})::INTEGER AS d FROM range(${n}) t(i)) ORDER BY i`;
  const dateDim =
    `SELECT ${dateKey('d')} AS date_key, d AS date, year(d)::INTEGER AS year, quarter(d)::INTEGER AS quarter, ` +
    `month(d)::INTEGER AS month, day(d)::INTEGER AS day, dayname(d) AS day_name ` +
    `FROM (SELECT DATE '2023-01-01' + i::INTEGER AS d FROM range(1096) t(i)) ORDER BY date_key`;
  const customer =
    `SELECT c::INTEGER AS customer_key, 'customer-' || c AS name, 'region-' || lpad(((c * 20) // ${p.customers})::VARCHAR, 2, '0') AS region, ` +
    `(['consumer', 'corporate', 'small business'])[1 + (hash(c, ${seed}, 5) % 3)::INTEGER] AS segment ` +
    `FROM range(${p.customers}) t(c) ORDER BY c`;
  const product =
    `SELECT q::INTEGER AS product_key, 'product-' || q AS name, 'category-' || lpad(((q * 20) // ${p.products})::VARCHAR, 2, '0') AS category, ` +
    `'brand-' || (hash(q, ${seed}, 6) % 50) AS brand, ((hash(q, ${seed}, 7) % 100000) / 100.0)::DOUBLE AS list_price ` +
    `FROM range(${p.products}) t(q) ORDER BY q`;
  const by = (column: string): SortColumnInput[] => [{ column }];
  return {
    fact: { sql: fact, order: by('date_key') },
    date_dim: { sql: dateDim, order: by('date_key') },
    customer: { sql: customer, order: by('customer_key') },
    product: { sql: product, order: by('product_key') },
  };
}

/** The key counts of one h2o key level of n keys: all (1.1n), common (0.9n), common + left-only (n). */
function h2oLevel(n: number): { all: number; common: number; lhs: number } {
  const lhs = Math.max(1, Math.round(n));
  return { all: Math.max(lhs, Math.round(lhs * 1.1)), common: Math.max(1, Math.round(lhs * 0.9)), lhs };
}

/**
 * One id column of an h2o table: `sample_all(keys of level j on side, size)` as `(pos, k)` with pos
 * 0..size-1. The level's keys 1..all are permuted by `hash(k, seed, j)` (split_xlr: positions
 * 1..common are x, ..lhs are l, the rest r); the chosen set S is numbered 0..|S|-1, the
 * size-|S| extra rows pick S[hash(i) % |S|], and the union is permuted by a hash of its row id.
 */
function h2oColumn(j: number, n: number, side: 'lhs' | 'rhs', size: number, seed: number, stream: number): string {
  const lv = h2oLevel(n);
  const inSet = side === 'lhs' ? `pos <= ${lv.lhs}` : `(pos <= ${lv.common} OR pos > ${lv.lhs})`;
  const count = side === 'lhs' ? lv.lhs : lv.common + (lv.all - lv.lhs);
  const keys = `SELECT k, row_number() OVER (ORDER BY hash(k, ${seed}, ${j}), k) AS pos FROM range(1, ${lv.all + 1}) t(k)`;
  const set = `SELECT k, row_number() OVER (ORDER BY pos) - 1 AS idx FROM (${keys}) WHERE ${inSet}`;
  const extra = Math.max(0, size - count);
  const union =
    `SELECT 0 AS src, idx AS i, k FROM s${stream} UNION ALL ` +
    `SELECT 1 AS src, e.i, s${stream}.k FROM range(${extra}) e(i) JOIN s${stream} ON s${stream}.idx = (hash(e.i, ${seed}, ${stream}) % ${count})::BIGINT`;
  return (
    `s${stream} AS (${set}), ` +
    `c${stream} AS (SELECT row_number() OVER (ORDER BY hash(src, i, ${seed}, ${stream + 1}), src, i) - 1 AS pos, k::INTEGER AS k FROM (${union}))`
  );
}

/**
 * The four h2o tables: each id column generated on its own (h2oColumn), joined by position; the
 * string ids derived from the ints, the measure from a hash of the position.
 */
function h2oTables(p: GeneratorParams['h2o'], seed: number): Record<string, { sql: string; order: SortColumnInput[] }> {
  const N = p.rows;
  const levels = [N / 1e6, N / 1e3, N];
  const table = (t: number, side: 'lhs' | 'rhs', size: number, ids: number, measure: string): string => {
    const cols = Array.from({ length: ids }, (_, c) => h2oColumn(c + 1, levels[c]!, side, size, seed, 10 * (4 * t + c + 1)));
    const streams = cols.map((_, c) => `c${10 * (4 * t + c + 1)}`);
    const pick = [
      ...streams.map((c, i) => `${c}.k AS id${i + 1}`),
      ...streams.map((c, i) => `'id' || ${c}.k AS id${i + 4}`),
      `round((hash(${streams[0]}.pos, ${seed}, ${200 + t}) % 100000000) / 1000000.0, 6)::DOUBLE AS ${measure}`,
    ];
    const from = streams.slice(1).reduce((acc, c) => `${acc} JOIN ${c} ON ${c}.pos = ${streams[0]}.pos`, streams[0]!);
    return `WITH ${cols.join(', ')} SELECT ${pick.join(', ')} FROM ${from} ORDER BY ${streams[0]}.pos`;
  };
  const small = Math.max(1, Math.round(levels[0]!));
  const medium = Math.max(1, Math.round(levels[1]!));
  return {
    x: { sql: table(0, 'lhs', N, 3, 'v1'), order: [] },
    small: { sql: table(1, 'rhs', small, 1, 'v2'), order: [] },
    medium: { sql: table(2, 'rhs', medium, 2, 'v2'), order: [] },
    big: { sql: table(3, 'rhs', N, 3, 'v2'), order: [] },
  };
}

function starSql(p: GeneratorParams['star'], seed: number): { left: string; right: string } {
  const blocks = Math.ceil(p.customers / p.clusterSize);
  const selected = Math.min(blocks, Math.max(1, Math.round((p.selectivity * p.customers) / p.clusterSize)));
  const left =
    `SELECT i::BIGINT AS order_id, (hash(i, ${seed}, 1) % ${p.customers})::BIGINT AS customer_id, ` +
    `((hash(i, ${seed}, 2) % 1000000) / 100.0)::DOUBLE AS amount, ` +
    `(['pending', 'shipped', 'delivered', 'returned', 'cancelled'])[1 + (hash(i, ${seed}, 3) % 5)::INTEGER] AS status, ` +
    `(DATE '2024-01-01' + (hash(i, ${seed}, 4) % 365)::INTEGER) AS order_date ` +
    `FROM range(${p.orders}) t(i) ORDER BY customer_id, order_id`;
  const right =
    `WITH chosen AS (SELECT b FROM range(${blocks}) t(b) ORDER BY hash(b, ${seed}, 5), b LIMIT ${selected}) ` +
    `SELECT c::BIGINT AS customer_id, 'customer-' || c AS name, 'EMEA' AS region, ` +
    `(['retail', 'wholesale', 'online'])[1 + (hash(c, ${seed}, 6) % 3)::INTEGER] AS segment, ` +
    `((hash(c, ${seed}, 7) % 100000) / 10.0)::DOUBLE AS credit ` +
    `FROM range(${p.customers}) t(c) WHERE c // ${p.clusterSize} IN (SELECT b FROM chosen) ORDER BY c`;
  return { left, right };
}

function sparseSql(p: GeneratorParams['sparse'], seed: number): { left: string; right: string } {
  const keys = Math.ceil(p.probeRows / p.rowsPerKey);
  return {
    left: `SELECT (i // ${p.rowsPerKey})::BIGINT AS k, (hash(i, ${seed}) % 1000000000)::BIGINT AS v FROM range(${p.probeRows}) t(i) ORDER BY i`,
    right: `SELECT k::BIGINT AS k, (k * 2)::BIGINT AS bv FROM range(${keys}) t(k) WHERE k % ${p.period} < ${p.islandWidth} ORDER BY k`,
  };
}

function skewedSql(p: GeneratorParams['skewed'], seed: number): { left: string; right: string } {
  const hot = Math.min(p.hotKeys, p.buildRows);
  const stride = Math.floor(p.buildRows / hot);
  const share = Math.round(p.hotShare * 1_000_000);
  return {
    left:
      `SELECT i::BIGINT AS id, (CASE WHEN hash(i, ${seed}, 1) % 1000000 < ${share} ` +
      `THEN (hash(i, ${seed}, 2) % ${hot}) * ${stride} ELSE hash(i, ${seed}, 3) % ${p.buildRows} END)::BIGINT AS k, ` +
      `(hash(i, ${seed}, 4) % 1000)::BIGINT AS v FROM range(${p.probeRows}) t(i) ORDER BY i`,
    right: `SELECT k::BIGINT AS k, 'b' || k AS label FROM range(${p.buildRows}) t(k) ORDER BY hash(k, ${seed}, 5), k`,
  };
}

function unsortedSql(p: GeneratorParams['unsorted'], seed: number, rowGroupSize: number): { left: string; right: string } {
  const groups = Math.max(1, Math.ceil(p.probeRows / rowGroupSize));
  const d = p.distinctPerRowGroup;
  return {
    left:
      `SELECT i::BIGINT AS i, ((hash(i, ${seed}, 1) % ${d}) * ${groups} + i // ${rowGroupSize})::BIGINT AS k, ` +
      `(hash(i, ${seed}, 2) % 1000)::BIGINT AS v FROM range(${p.probeRows}) t(i) ORDER BY i`,
    right:
      `SELECT DISTINCT ((hash(j, ${seed}, 3) % ${d}) * ${groups} + hash(j, ${seed}, 4) % ${groups})::BIGINT AS k ` +
      `FROM range(${p.buildKeys}) t(j) ORDER BY k`,
  };
}

const RANGE_SPAN = 1_000_000;

function rangeSql(p: GeneratorParams['range'], seed: number): { left: string; right: string } {
  const shift = Math.round((1 - p.overlap) * RANGE_SPAN);
  const order = p.sorted ? 'ORDER BY v, id' : 'ORDER BY id';
  return {
    left: `SELECT i::BIGINT AS id, (hash(i, ${seed}, 1) % ${RANGE_SPAN})::BIGINT AS v, (hash(i, ${seed}, 2) % 100)::BIGINT AS payload FROM range(${p.leftRows}) t(i) ${order}`,
    right: `SELECT i::BIGINT AS id, (${shift} + hash(i, ${seed}, 3) % ${RANGE_SPAN})::BIGINT AS v, 't' || (hash(i, ${seed}, 4) % 10) AS tag FROM range(${p.rightRows}) t(i) ${order}`,
  };
}

/** The cache key of a data set (besides the row-group size and DuckDB's version, which cacheDir adds). */
function cacheKey(spec: GeneratedDataSpec): unknown {
  return { v: GENERATOR_VERSION, generator: spec.generator, params: spec.params, seed: spec.seed };
}

/** The cache directory of one data set: `<root>/<generator>-<16 hex digits>`. */
export function dataDir(spec: GeneratedDataSpec, duckdbVersion: string, root = defaultDataRoot()): string {
  return cacheDir(spec.generator, cacheKey(spec), spec.rowGroupSize, duckdbVersion, root);
}

/**
 * Writes (or finds in the cache) every Parquet file of a generated data set: `<table>.parquet`
 * for each of `GENERATOR_TABLES[spec.generator]`. `root` defaults to `os.tmpdir()/joinlab-data`.
 */
export async function generateTables(duck: DuckDBSession, spec: GeneratedDataSpec, options: { root?: string } = {}): Promise<GeneratedTables> {
  return writeCachedTables(
    duck,
    {
      name: spec.generator,
      key: cacheKey(spec),
      rowGroupSize: spec.rowGroupSize,
      tables: generatorTables(spec),
      meta: { generator: spec.generator, params: spec.params, seed: spec.seed },
    },
    { root: options.root },
  );
}

/** Writes (or finds in the cache) the left and right Parquet files of a two-sided generated data set. */
export async function generateData(duck: DuckDBSession, spec: GeneratedDataSpec, options: { root?: string } = {}): Promise<GeneratedFiles> {
  generatorSql(spec); // a schema generator (no left/right) fails here, before anything is written
  const g = await generateTables(duck, spec, options);
  return { dir: g.dir, left: g.tables.left!, right: g.tables.right!, cached: g.cached };
}

