/**
 * SQL fragments (DuckDB's dialect) that draw the columns of the SSB and TPC-H tables.
 *
 * Why every draw is a hash of the row's identity: DuckDB's `hash()` is a pure function of its
 * arguments, so a generated table does not depend on DuckDB's thread count, its scan order or how
 * a query is planned (`random()` would) — the same scale factor, seed and DuckDB version always
 * write the same bytes. Each column draws from its own `stream` number as
 * `hash(xor(hash(row…, seed), stream))`, not `hash(row…, seed, stream)`: DuckDB combines the
 * hashes of several arguments as `(h(a) * C) ^ h(b)`, so `hash(i, s1)` and `hash(i, s2)` differ
 * by the constant `h(s1) ^ h(s2)` — their low bits are the same bits flipped, and `% 2^k` of two
 * streams would be fully dependent (measured: 3 draws meant to give 17.8M combinations gave
 * ~560K). Hashing the XOR again mixes every bit. `x % n` of a 64-bit hash is uniform to within
 * n / 2^64.
 *
 * Weighted lists (dbgen's `pick_str`) are expanded into a list literal with each word repeated
 * `weight` times, so one list index draws a word with probability weight / total.
 *
 * Comment text (`textPool`, `comment`): dbgen makes every comment column a substring of one large
 * pool of sentences generated from its grammar (dists.dss: noun phrase, verb phrase, prepositional
 * phrase, terminator), at a random offset and of a random length — so comments start and end in
 * the middle of words, and the rate of, e.g., `%special%requests%` is that of the grammar. This
 * does the same with a smaller pool: `POOL_CHUNKS` chunks of `SENTENCES_PER_CHUNK` grammar
 * sentences each (~1 KB a chunk, at least ~260 characters); a comment is a substring of one chunk.
 * (Substrings of one ~1 MB string would make DuckDB's UTF-8-aware `substr` walk the string up to
 * the offset on every row.)
 */
import { quoteString } from '../../core/expr/sql.ts';
import { GRAMMAR_WORDS, NOUN_PHRASES, SENTENCES, VERB_PHRASES, type Weighted } from './domains.ts';

/** A hash expression (UBIGINT) per stream number, for one row. */
export type Hasher = (stream: number) => string;

/**
 * The hasher of a row of table number `table` (so that row 1 of two tables draws differently)
 * identified by the SQL expressions `row` (e.g. `['i']`, `['i', 'ln']`).
 */
export function hasher(seed: number, table: number, ...row: string[]): Hasher {
  return (stream) => `hash(xor(hash(${row.join(', ')}, ${Math.trunc(seed)}, ${table}), ${stream}::UBIGINT))`;
}

/** A BIGINT uniform in [lo, hi] (dbgen's RANDOM(lo, hi)). */
export function uniform(h: string, lo: number, hi: number): string {
  return `(${lo} + (${h} % ${hi - lo + 1})::BIGINT)`;
}

export function listLiteral(values: readonly string[]): string {
  return `[${values.map(quoteString).join(', ')}]`;
}

/** One of `values`, uniformly. */
export function pick(values: readonly string[], h: string): string {
  return `(${listLiteral(values)})[1 + (${h} % ${values.length})::INTEGER]`;
}

/** `w` expanded: each word repeated `weight` times. */
export function expand(w: Weighted): string[] {
  return w.flatMap(([word, weight]) => Array.from({ length: weight }, () => word));
}

/** One of `w`'s words with probability weight / total, from the list column `list` (an expanded list). */
function pickFrom(list: string, size: number, h: string): string {
  return `${list}[1 + (${h} % ${size})::INTEGER]`;
}

/** CASE over `w`'s items with probability weight / total, each rendered by `render`. */
function weightedCase(w: Weighted, h: string, render: (item: string, index: number) => string): string {
  const total = w.reduce((s, [, n]) => s + n, 0);
  let cum = 0;
  const arms = w.slice(0, -1).map(([item, n], i) => {
    cum += n;
    return `WHEN ${h} % ${total} < ${cum} THEN ${render(item, i)}`;
  });
  return `(CASE ${arms.join(' ')} ELSE ${render(w[w.length - 1]![0], w.length - 1)} END)`;
}

/** `'Customer#' || lpad(key, 9, '0')`: dbgen's names of numbered things. */
export function numbered(tag: string, key: string): string {
  return `(${quoteString(tag)} || lpad((${key})::VARCHAR, 9, '0'))`;
}

/** dbgen's phone number `CC-LLL-LLL-LLLL`, country code = nation key + 10 (TPC-H 4.2.2.9). */
export function phone(nationKey: string, h: Hasher, stream: number): string {
  return (
    `((${nationKey} + 10)::VARCHAR || '-' || ${uniform(h(stream), 100, 999)}::VARCHAR || '-' || ` +
    `${uniform(h(stream + 1), 100, 999)}::VARCHAR || '-' || ${uniform(h(stream + 2), 1000, 9999)}::VARCHAR)`
  );
}

/** A random string of [minLen, maxLen] characters (dbgen's V_STR; here hex digits), from streams stream, stream + 1, …. */
export function randomString(h: Hasher, stream: number, minLen: number, maxLen: number): string {
  const parts = Math.ceil(maxLen / 32);
  const hex = Array.from({ length: parts }, (_, k) => `md5(${h(stream + 1 + k)}::VARCHAR)`).join(' || ');
  return `left(${hex}, ${uniform(h(stream), minLen, maxLen)}::INTEGER)`;
}

/**
 * Cents (an integer expression, |x| < 10^13) as DECIMAL(15,2), exactly. DECIMAL(13,0) x
 * DECIMAL(2,2) is a DECIMAL(15,2) DuckDB multiplies in 64 bits; `x * 0.01` would widen the
 * integer to DECIMAL(18,0) and multiply in 128 bits (several times slower).
 */
export function money(cents: string): string {
  return `((${cents})::DECIMAL(13,0) * 0.01::DECIMAL(2,2))::DECIMAL(15,2)`;
}

/** dbgen's retail price of part `p` in cents (TPC-H 4.2.3: (90000 + ((p/10) mod 20001) + 100 * (p mod 1000)) / 100). */
export function retailPriceCents(p: string): string {
  return `(90000 + ((${p}) // 10) % 20001 + 100 * ((${p}) % 1000))`;
}

/**
 * dbgen's sparse order keys: of every 32 keys only the first 8 are used (ez_sparse with
 * SPARSE_BITS 2, SPARSE_KEEP 3), so the order with index i (0-based) has key
 * (i // 8) * 32 + i % 8 + 1.
 */
export function sparseOrderKey(i: string): string {
  return `((${i}) // 8 * 32 + (${i}) % 8 + 1)`;
}

/** Orders are dated 1992-01-01 + 0..ORDER_DAYS-1, up to 1998-08-02 (dbgen: STARTDATE .. ENDDATE - 151 days). */
export const ORDER_DAYS = 2406;

/**
 * Every line of `orders` orders numbered i = 0..orders-1: `SELECT i, okey, odate, nlines, <extra>,
 * ln` with dbgen's sparse order key, an order date and 1..7 lines numbered ln = 1..nlines (the
 * order's draws from `o`, streams 1 and 2; `extra` are more columns of the order, streams from 3).
 */
export function orderLineRows(o: Hasher, orders: number, extra: readonly string[] = []): string {
  const columns = [
    'i',
    `${sparseOrderKey('i')} AS okey`,
    `DATE '1992-01-01' + ${uniform(o(1), 0, ORDER_DAYS - 1)}::INTEGER AS odate`,
    `${uniform(o(2), 1, 7)} AS nlines`,
    ...extra,
  ];
  return `SELECT *, unnest(range(1, nlines + 1)) AS ln FROM (SELECT ${columns.join(', ')} FROM range(${orders}) t(i))`;
}

/**
 * A customer key in 1..customers that is not a multiple of 3: dbgen never gives an order to a
 * third of the customers (CUST_MORTALITY), which TPC-H q13 and q22 count. Drawn uniformly over the
 * other keys: the r-th key not divisible by 3 is r + r // 2 + 1.
 */
export function livingCustomerKey(h: string, customers: number): string {
  const living = customers - Math.floor(customers / 3);
  const r = uniform(h, 0, living - 1);
  return `(${r} + ${r} // 2 + 1)`;
}

/** `yyyymmdd` of a DATE expression, as an INTEGER (SSB's date keys). */
export function dateKey(d: string): string {
  return `(year(${d}) * 10000 + month(${d}) * 100 + day(${d}))::INTEGER`;
}

// ---------------------------------------------------------------------------------------------
// Comment text
// ---------------------------------------------------------------------------------------------

export const POOL_CHUNKS = 512;
export const SENTENCES_PER_CHUNK = 24;
/** The longest comment (ps_comment: 198 characters). */
export const MAX_COMMENT = 198;
/** Windows start every WINDOW_STEP characters of a chunk; a comment starts in the first WINDOW_STEP characters of one. */
const WINDOW_STEP = 16;
const WINDOW = MAX_COMMENT + WINDOW_STEP;
/** Windows kept (a chunk of ~1.4 KB has ~75 windows, so 512 chunks have ~38K). */
export const WINDOWS = 32_768;
/** The temporary table of chunks (`c`, `chunk`) and that of the windows (`wk` = 0..WINDOWS-1, `wt`). */
const CHUNKS = '__joinlab_text_chunks';
const TEXT = '__joinlab_text';

const WORDS = GRAMMAR_WORDS;
const LIST_COLUMN = { N: 'noun', V: 'verb', J: 'adjective', D: 'adverb', P: 'preposition', X: 'auxiliary', T: 'terminator' } as const;
type WordClass = keyof typeof LIST_COLUMN;

/** One grammar sentence for sentence number `s` (each slot of each phrase from its own stream). */
function sentence(h: Hasher): string {
  let stream = 10;
  const word = (c: WordClass): string => {
    const list = WORDS[LIST_COLUMN[c]];
    return pickFrom(`__w.${LIST_COLUMN[c]}`, expand(list).length, h(stream++));
  };
  const phrase = (template: string): string =>
    template
      .split(' ')
      .map((t) => (t === 'J,' ? `${word('J')} || ','` : word(t as WordClass)))
      .join(` || ' ' || `);
  const nounPhrase = (): string => weightedCase(NOUN_PHRASES, h(stream++), phrase);
  const verbPhrase = (): string => weightedCase(VERB_PHRASES, h(stream++), phrase);
  return weightedCase(SENTENCES, h(1), (template) => {
    const parts = template.split(' ').filter((t) => t !== 'T');
    const body = parts
      .map((t) => (t === 'N' ? nounPhrase() : t === 'V' ? verbPhrase() : `${word('P')} || ' the ' || ${nounPhrase()}`))
      .join(` || ' ' || `);
    return `${body} || ${word('T')}`;
  });
}

/**
 * The statements that create (and drop) the text pool: CHUNKS, POOL_CHUNKS chunks of
 * SENTENCES_PER_CHUNK grammar sentences (~1.4 KB each, at least ~260 characters), and TEXT(wk,
 * wt), the first WINDOWS windows of WINDOW characters starting at a multiple of WINDOW_STEP of a
 * chunk. A comment is a substring of one window starting in its first WINDOW_STEP characters
 * (`comment`), so DuckDB's UTF-8-aware `substr` walks at most WINDOW characters per row, and a row
 * finds its window by a hash join on `wk`. (Cutting from the ~1.4 KB chunks walked ~700
 * characters a row; one list of windows in a one-row table, indexed per row, was copied per
 * vector: both made comments most of the generation time.)
 */
export function textPool(seed: number): { create: string[]; drop: string[] } {
  const lists = (Object.entries(LIST_COLUMN) as [WordClass, (typeof LIST_COLUMN)[WordClass]][]).map(
    ([, col]) => `${listLiteral(expand(WORDS[col]))} AS ${col}`,
  );
  const s = sentence(hasher(seed, 0, 's'));
  const n = POOL_CHUNKS * SENTENCES_PER_CHUNK;
  const chunks =
    `CREATE OR REPLACE TEMP TABLE ${CHUNKS} AS WITH __w AS (SELECT ${lists.join(', ')}) ` +
    `SELECT s // ${SENTENCES_PER_CHUNK} AS c, string_agg(sentence, ' ' ORDER BY s) AS chunk FROM (` +
    `SELECT s, ${s} AS sentence FROM range(${n}) t(s), __w) GROUP BY c`;
  const windows =
    `CREATE OR REPLACE TEMP TABLE ${TEXT} AS SELECT wk, wt FROM (` +
    `SELECT row_number() OVER (ORDER BY c, o) - 1 AS wk, substr(chunk, 1 + o * ${WINDOW_STEP}, ${WINDOW}) AS wt FROM ` +
    `(SELECT c, chunk, unnest(range((strlen(chunk) - ${WINDOW}) // ${WINDOW_STEP} + 1)) AS o FROM ${CHUNKS})) WHERE wk < ${WINDOWS}`;
  return { create: [chunks, windows], drop: [`DROP TABLE IF EXISTS ${TEXT}`, `DROP TABLE IF EXISTS ${CHUNKS}`] };
}

/**
 * A comment of [minLen, maxLen] characters (dbgen's TEXT(avg): lengths avg * 0.4 .. avg * 1.6), as
 * the join that finds its window (to add to the FROM clause) and the expression that cuts it.
 * `alias` names the window table in the query (one per comment column).
 */
export function comment(alias: string, h: Hasher, stream: number, minLen: number, maxLen: number): { join: string; text: string } {
  if (maxLen > MAX_COMMENT) throw new RangeError(`comment: at most ${MAX_COMMENT} characters, got ${maxLen}`);
  return {
    join: `JOIN ${TEXT} ${alias} ON ${alias}.wk = (${h(stream)} % ${WINDOWS})::BIGINT`,
    text: `substr(${alias}.wt, ${uniform(h(stream + 1), 1, WINDOW_STEP)}, ${uniform(h(stream + 2), minLen, maxLen)})`,
  };
}
