/**
 * `joinlab parity`: differential fuzzing of joinlab against DuckDB.
 *
 * Why a command and not only the test suite: the tests run a fixed, small budget of seeds on
 * every commit; this runs as many cases as you like on any seed, across every algorithm and
 * strategy the registry holds — including ones an extension added — and when it finds a
 * disagreement it hands back something a person can act on: the case shrunk to the fewest rows
 * that still disagree, printed as data (JSON), spec, config and the DuckDB SQL.
 *
 * Case i is `randomCase(space, seed, i)` (adapters/datagen/random-cases.ts), so (seed, i) alone
 * reproduces it. joinlab runs it with the case's config; DuckDB (threads=1) runs `joinToSql` on
 * the same tables (an ASOF case, `join: 'asof'`: `asofJoinToSql`, DuckDB's ASOF JOIN); `compareResults` judges them as multisets. A combination joinlab refuses
 * (UnsupportedJoinError) is skipped and counted as skipped, never as passed. Progress goes to
 * stderr; the last line on stdout is always `N passed, M failed` (`, K skipped` when some were).
 *
 * SQL cases: a share of the indices (`sqlShare`, default 10%, chosen by a hash of (seed, i)) are
 * instead `randomSqlCase(seed, i)` (adapters/datagen/random-sql.ts): a random query of 2–4
 * tables run by joinlab's SQL front end (`runSql`, what `Engine.sql` runs, parsing in the run's
 * DuckDB session) with a random config, and by DuckDB on the same tables, compared as multisets
 * and, under ORDER BY, in order. They are drawn with the features the planner claims
 * (CLAIMED_SQL_FEATURES, or `sqlFeatures`): an UnsupportedSqlError on a query using only claimed
 * features is a failure (on one using an unclaimed feature, a skip). A failure prints the seed,
 * the index, the SQL and the tables (shrunk to the fewest rows that still fail) as DuckDB
 * statements.
 */
import type { Table } from 'apache-arrow';
import { Engine } from '../../composition.ts';
import { UnsupportedJoinError, UnsupportedSqlError } from '../../core/errors.ts';
import { Rng } from '../../core/random.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { ASOF_SHARE, CASE_BATCH_SIZES, caseSeed, caseSpace, describeCase, threadsDraw, randomCase, shrinkCase, takeRows, type CaseSpace, type JoinCase } from '../../adapters/datagen/random-cases.ts';
import { CLAIMED_SQL_FEATURES, randomSqlCase, SQL_FEATURES, tablesToSql, type SqlCase, type SqlFeatures } from '../../adapters/datagen/random-sql.ts';
import { runSql } from '../../adapters/sql/run.ts';
import { compareResults, formatComparison, orderDifference } from '../../adapters/duckdb/compare.ts';
import { asofJoinToSql, joinToSql } from '../../adapters/duckdb/join-sql.ts';
import { DuckDBSession, isDuckDBInternalError } from '../../adapters/duckdb/session.ts';

/** Thread counts the fuzzer draws by default: the calling thread, and pools of 2 and 4 workers. */
export const DEFAULT_PARITY_THREADS: readonly number[] = [1, 2, 4];

export interface ParityOptions {
  readonly cases: number;
  readonly seed: number;
  /** Join algorithms to fuzz (default: every registered one). */
  readonly algorithms?: readonly string[];
  /** One line per case on stderr. */
  readonly verbose?: boolean;
  /** Extension modules whose strategies join the fuzzed space (resolved against `baseDir`). */
  readonly extensions?: readonly string[];
  readonly baseDir?: string;
  /** A progress line on stderr every this many cases (default: about every 10%). */
  readonly progressEvery?: number;
  /** Mismatches printed with a shrunk reproduction (default 3); later ones get one line each. */
  readonly maxReports?: number;
  /** Thread counts each case's `threads` is drawn from (default 1, 2 and 4). */
  readonly threads?: readonly number[];
  /** The share of cases that are SQL queries (0..1, default 0.1). */
  readonly sqlShare?: number;
  /** The features SQL cases are drawn with (default: CLAIMED_SQL_FEATURES). */
  readonly sqlFeatures?: SqlFeatures;
  /** Output sinks (default: process.stdout / process.stderr). */
  readonly stdout?: (text: string) => void;
  readonly stderr?: (text: string) => void;
}

export interface ParityResult {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

/** DuckDB table names the two inputs are loaded as (the printed SQL refers to them). */
export const LEFT_TABLE = 'left_input';
export const RIGHT_TABLE = 'right_input';

export type CaseOutcome =
  | { readonly status: 'pass' }
  | { readonly status: 'skip'; readonly reason: string }
  | { readonly status: 'fail'; readonly kind: 'mismatch' | 'order' | 'joinlab-error' | 'joinlab-unsupported' | 'duckdb-error'; readonly detail: string; readonly sql: string };

function sqlFor(c: JoinCase): string {
  const columns = (t: Table) => t.schema.fields.map((f) => f.name);
  // an ASOF case (random-cases.ts asofDraw) is DuckDB's ASOF JOIN, not the plain join of its spec
  const toSql = c.config.join === 'asof' ? asofJoinToSql : joinToSql;
  return toSql(toJoinSpec(c.spec), { table: LEFT_TABLE, columns: columns(c.left) }, { table: RIGHT_TABLE, columns: columns(c.right) });
}

/** Runs one case in joinlab and in DuckDB and compares the answers. */
export async function checkCase(c: JoinCase, duck: DuckDBSession, options: { baseDir?: string } = {}): Promise<CaseOutcome> {
  const spec = toJoinSpec(c.spec);
  const sql = sqlFor(c);
  let actual: Table;
  try {
    const engine = await Engine.create(c.config, { baseDir: options.baseDir });
    actual = (await engine.join(spec, c.left, c.right)).table;
  } catch (e) {
    if (e instanceof UnsupportedJoinError) return { status: 'skip', reason: e.message };
    return { status: 'fail', kind: 'joinlab-error', detail: `joinlab threw: ${(e as Error)?.stack ?? String(e)}`, sql };
  }
  let expected: Table;
  try {
    await duck.loadTable(LEFT_TABLE, c.left);
    await duck.loadTable(RIGHT_TABLE, c.right);
    expected = await duck.query(sql);
  } catch (e) {
    const message = (e as Error)?.message ?? String(e);
    // DuckDB's own bug on a valid query (1.5.6: 'Failed to bind column reference' on some ANTI JOIN
    // trees under GROUP BY): no answer to compare with, not a failure of joinlab or the generator
    if (isDuckDBInternalError(message)) return { status: 'skip', reason: `DuckDB internal error: ${message.split('\n')[0]}` };
    return { status: 'fail', kind: 'duckdb-error', detail: `DuckDB failed: ${message}`, sql };
  } finally {
    await duck.run(`DROP TABLE IF EXISTS ${LEFT_TABLE}; DROP TABLE IF EXISTS ${RIGHT_TABLE};`);
  }
  const cmp = compareResults(actual, expected);
  if (cmp.equal) return { status: 'pass' };
  return { status: 'fail', kind: 'mismatch', detail: `joinlab (actual) vs DuckDB (expected):\n${formatComparison(cmp)}`, sql };
}

function summary(r: ParityResult): string {
  return `${r.passed} passed, ${r.failed} failed${r.skipped > 0 ? `, ${r.skipped} skipped` : ''}`;
}

function oneLine(c: JoinCase): string {
  const spec = [c.spec.type, c.spec.on ? `on ${c.spec.on}` : '', c.spec.range ? `range ${c.spec.range}` : '', c.spec.filter ? `filter ${c.spec.filter}` : '', c.spec.nullEqualsNull ? 'null=null' : '', c.spec.nullAware ? 'NOT IN' : '', c.spec.select ? `select ${c.spec.select}` : '']
    .filter(Boolean)
    .join(' ');
  const cfg = c.config;
  const how =
    cfg.join === 'hash'
      ? `hash ${cfg['hash.mode'] === 'partitioned' ? `partitioned/${cfg['hash.partitions']}` : 'collect-left'} build=${cfg['hash.build']} payload=${cfg['hash.payloadLayout']} pushdown=${cfg.pushdown} hashmap=${cfg.hashmap}`
      : cfg.join === 'sort-merge'
        ? `sort-merge smj.existence=${cfg['smj.existence']}`
        : cfg.join === 'piecewise'
          ? `piecewise pwmj.search=${cfg['pwmj.search']} prefilter=${cfg['pwmj.prefilter']} partitions=${cfg['pwmj.partitions']}`
          : cfg.join;
  return `${how} batch=${cfg.batchSize} | ${spec} | ${c.left.numRows}x${c.right.numRows} rows`;
}

/** Fuzzes `cases` random cases of `seed` against DuckDB; see the module comment. */
export async function runParity(options: ParityOptions): Promise<ParityResult> {
  const out = options.stdout ?? ((s: string) => void process.stdout.write(s));
  const err = options.stderr ?? ((s: string) => void process.stderr.write(s));
  const cases = options.cases;
  if (!Number.isInteger(cases) || cases < 0) throw new RangeError(`cases must be a non-negative integer, got ${cases}`);
  const every = options.progressEvery ?? Math.max(1, Math.ceil(cases / 10));
  const maxReports = options.maxReports ?? 3;

  const sqlShare = options.sqlShare ?? 0.1;
  if (!(sqlShare >= 0 && sqlShare <= 1)) throw new RangeError(`sqlShare must be in 0..1, got ${sqlShare}`);
  const sqlFeatures = options.sqlFeatures ?? CLAIMED_SQL_FEATURES;

  const base = await Engine.create({ extensions: [...(options.extensions ?? [])] }, { baseDir: options.baseDir });
  const space = caseSpace(base.registry, { algorithms: options.algorithms, extensions: base.config.extensions, threads: options.threads ?? DEFAULT_PARITY_THREADS });
  const features = SQL_FEATURES.filter((f) => sqlFeatures[f]);
  out(
    `joinlab parity: ${cases} cases, seed ${options.seed}; join ${space.joins.join('|')}, pushdown ${space.pushdowns.join('|')}, hashmap ${space.hashmaps.join('|')}, smj.existence ${space.existences.join('|')}, pwmj.search ${space.searches.join('|')}, sip ${space.sips.join('|')}, threads ${space.threads.join('|')}${space.asof === true ? `; ASOF cases ${space.joins.every((j) => j === 'asof') ? '100' : Math.round(ASOF_SHARE * 100)}%` : ''}; SQL ${Math.round(sqlShare * 100)}% of cases (features: ${features.join(', ') || 'none'})\n`,
  );

  const duck = await DuckDBSession.open({ threads: 1 });
  const engines = new EngineCache(options.baseDir);
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const started = performance.now();
  try {
    for (let i = 0; i < cases; i++) {
      let outcome: CaseOutcome;
      let line: string;
      if (isSqlCase(options.seed, i, sqlShare)) {
        const c = randomSqlCase(options.seed, i, { features: sqlFeatures });
        const config = sqlCaseConfig(space, options.seed, i);
        outcome = await checkSqlCase(c, config, duck, engines);
        line = sqlOneLine(c, config);
        if (outcome.status === 'fail') {
          failed++;
          if (failed <= maxReports) out(await sqlReproduction(c, config, outcome, duck, engines));
          else out(`MISMATCH SQL case ${i} (${outcome.kind}): ${line}\n`);
        }
      } else {
        const c = randomCase(space, options.seed, i);
        outcome = await checkCase(c, duck, { baseDir: options.baseDir });
        line = oneLine(c);
        if (outcome.status === 'fail') {
          failed++;
          if (failed <= maxReports) out(await reproduction(c, outcome, duck, options.baseDir));
          else out(`MISMATCH case ${i} (${outcome.kind}): ${line}\n`);
        }
      }
      if (outcome.status === 'pass') passed++;
      else if (outcome.status === 'skip') skipped++;
      if (options.verbose) {
        const what = outcome.status === 'skip' ? `skip (${outcome.reason})` : outcome.status === 'fail' ? `FAIL (${outcome.kind})` : 'pass';
        err(`case ${i}: ${what} — ${line}\n`);
      }
      if ((i + 1) % every === 0 || i + 1 === cases) {
        const secs = ((performance.now() - started) / 1000).toFixed(1);
        err(`parity: ${i + 1}/${cases} cases, ${summary({ passed, failed, skipped })} (${secs} s)\n`);
      }
    }
  } finally {
    duck.close();
  }
  const result = { passed, failed, skipped };
  out(`${summary(result)}\n`);
  return result;
}

/** Shrinks a failing case (rows of each side, the filter) and prints it for a human. */
async function reproduction(c: JoinCase, outcome: Extract<CaseOutcome, { status: 'fail' }>, duck: DuckDBSession, baseDir?: string): Promise<string> {
  const small = await shrinkCase(c, async (x) => {
    const o = await checkCase(x, duck, { baseDir });
    return o.status === 'fail' && o.kind === outcome.kind;
  });
  const final = small === c ? outcome : await checkCase(small, duck, { baseDir });
  const detail = final.status === 'fail' ? final.detail : outcome.detail;
  const sql = final.status === 'fail' ? final.sql : outcome.sql;
  return [
    '',
    `MISMATCH (${outcome.kind}) in case ${c.index} of seed ${c.seed}: ${oneLine(c)}`,
    `shrunk from ${c.left.numRows} x ${c.right.numRows} to ${small.left.numRows} x ${small.right.numRows} rows${c.spec.filter !== undefined && small.spec.filter === undefined ? ', filter dropped' : ''}`,
    describeCase(small, { sql: `${sql}   -- ${LEFT_TABLE} = left, ${RIGHT_TABLE} = right` }),
    detail,
    '',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// SQL cases
// ---------------------------------------------------------------------------------------------

/** Whether case `index` of a run is a SQL case (a hash of (seed, index), independent of the case's own draw). */
export function isSqlCase(seed: number, index: number, share: number): boolean {
  return share > 0 && caseSeed(seed ^ 0x5eed5, index) / 2 ** 32 < share;
}

/**
 * The engine config of SQL case `index`: mostly the planner `auto` and the `auto` hash map (a tree
 * needs several algorithms; a forced one that cannot run one of its joins makes the case a skip),
 * any pushdown policy, hash mode and batch size. Few enough combinations that a run reuses engines.
 */
export function sqlCaseConfig(space: CaseSpace, seed: number, index: number): Record<string, unknown> {
  const rng = new Rng(caseSeed(seed ^ 0xc0f16, index));
  const join = space.joins.includes('auto') && rng.chance(0.8) ? 'auto' : rng.pick(space.joins);
  const hashmap = space.hashmaps.includes('auto') && rng.chance(0.7) ? 'auto' : rng.pick(space.hashmaps);
  return {
    join,
    pushdown: rng.pick(space.pushdowns),
    hashmap,
    'hash.mode': rng.chance(0.5) ? 'collect-left' : 'partitioned',
    batchSize: rng.pick(CASE_BATCH_SIZES),
    ...sipDraw(space, seed ^ 0xc0f16, index),
    ...threadsDraw(space, seed ^ 0xc0f16, index),
    ...(space.extensions.length > 0 ? { extensions: [...space.extensions] } : {}),
  };
}

/** Mixed into a SQL case's seed for its information passing and join order (a stream of its own: other draws of a seed stay as they were). */
const SIP_STREAM = 0x51b_0dd5;

/** What a `lip` / `transfer` transfer may build, drawn beside `auto` (the strategy's own, `bitmap`). */
const TRANSFER_FILTERS = ['bloom', 'bitmap', 'exact', 'bounds'] as const;

/**
 * A SQL case's `sip` strategy and join order — the planned one, or a random valid one
 * (`random:SEED`, no cross product) — and, for `lip` / `transfer`, now and then a transfer filter
 * kind other than the strategy's own (`sip.filter`).
 */
export function sipDraw(space: CaseSpace, seed: number, index: number): { sip: string; 'sql.joinOrder': 'cost' | 'random'; 'sql.joinOrderSeed'?: number; 'sip.filter'?: string } {
  const rng = new Rng(caseSeed(seed, index) ^ SIP_STREAM);
  const sip = rng.pick(space.sips);
  const order = rng.chance(0.5) ? { 'sql.joinOrder': 'cost' as const } : { 'sql.joinOrder': 'random' as const, 'sql.joinOrderSeed': rng.int(0, 1000) };
  const filter = (sip === 'lip' || sip === 'transfer') && rng.chance(0.5) ? { 'sip.filter': rng.pick(TRANSFER_FILTERS) } : {};
  return { sip, ...order, ...filter };
}

/** Engines by config, reused across the SQL cases of a run (creating one loads every extension). */
export class EngineCache {
  private readonly engines = new Map<string, Promise<Engine>>();
  constructor(private readonly baseDir?: string) {}
  get(config: Record<string, unknown>): Promise<Engine> {
    const key = JSON.stringify(config);
    let e = this.engines.get(key);
    if (e === undefined) {
      e = Engine.create(config, { baseDir: this.baseDir });
      this.engines.set(key, e);
    }
    return e;
  }
}

/** Runs one SQL case in joinlab and in DuckDB (tables loaded under their names) and compares. */
export async function checkSqlCase(c: SqlCase, config: Record<string, unknown>, duck: DuckDBSession, engines: EngineCache = new EngineCache()): Promise<CaseOutcome> {
  const sql = c.sql;
  let expected: Table;
  try {
    // the statements a failure prints; CREATE OR REPLACE: the next SQL case of the run replaces them
    await duck.run(tablesToSql(c.tables, { replace: true }));
    expected = await duck.query(sql);
  } catch (e) {
    const message = (e as Error)?.message ?? String(e);
    // DuckDB's own bug on a valid query (1.5.6: 'Failed to bind column reference' on some ANTI JOIN
    // trees under GROUP BY): no answer to compare with, not a failure of joinlab or the generator
    if (isDuckDBInternalError(message)) return { status: 'skip', reason: `DuckDB internal error: ${message.split('\n')[0]}` };
    return { status: 'fail', kind: 'duckdb-error', detail: `DuckDB failed: ${message}`, sql };
  }
  let actual: Table;
  try {
    actual = (await runSql(await engines.get(config), sql, c.tables, { duck })).table;
  } catch (e) {
    if (e instanceof UnsupportedJoinError) return { status: 'skip', reason: e.message };
    if (e instanceof UnsupportedSqlError) {
      // a query of features the planner claims must run; one using an unclaimed feature may be refused
      if (c.uses.some((f) => !CLAIMED_SQL_FEATURES[f])) return { status: 'skip', reason: e.message };
      return { status: 'fail', kind: 'joinlab-unsupported', detail: `joinlab refused a query of claimed features (${c.uses.join(', ') || 'none'}): ${e.message}`, sql };
    }
    return { status: 'fail', kind: 'joinlab-error', detail: `joinlab threw: ${(e as Error)?.stack ?? String(e)}`, sql };
  }
  const cmp = compareResults(actual, expected);
  if (!cmp.equal) return { status: 'fail', kind: 'mismatch', detail: `joinlab (actual) vs DuckDB (expected):\n${formatComparison(cmp)}`, sql };
  if (c.orderColumns.length > 0) {
    const problem = orderDifference(actual, expected, c.totalOrder ? undefined : c.orderColumns);
    if (problem !== null) return { status: 'fail', kind: 'order', detail: `the same rows in another order (ORDER BY ${c.orderColumns.join(', ')}${c.totalOrder ? ', a total order' : ''}): ${problem}`, sql };
  }
  return { status: 'pass' };
}

function sqlOneLine(c: SqlCase, config: Record<string, unknown>): string {
  const rows = Object.values(c.tables).map((t) => t.numRows).join('x');
  const order = config['sql.joinOrder'] === 'random' ? `random:${String(config['sql.joinOrderSeed'])}` : String(config['sql.joinOrder'] ?? 'cost');
  const sip = config['sip.filter'] === undefined ? String(config.sip) : `${String(config.sip)}/${String(config['sip.filter'])}`;
  return `SQL join=${String(config.join)} sip=${sip} order=${order} batch=${String(config.batchSize)} | ${rows} rows | ${c.sql}`;
}

/** Shrinks a failing SQL case (rows of each table, greedily) and prints it for a human. */
async function sqlReproduction(c: SqlCase, config: Record<string, unknown>, outcome: Extract<CaseOutcome, { status: 'fail' }>, duck: DuckDBSession, engines: EngineCache): Promise<string> {
  let budget = 300;
  const fails = async (x: SqlCase): Promise<boolean> => {
    if (budget-- <= 0) return false;
    const o = await checkSqlCase(x, config, duck, engines);
    return o.status === 'fail' && o.kind === outcome.kind;
  };
  let cur = c;
  let progress = true;
  while (progress && budget > 0) {
    progress = false;
    for (const name of Object.keys(cur.tables)) {
      let n = cur.tables[name]!.numRows;
      for (let chunk = Math.ceil(n / 2); chunk >= 1 && n > 0 && budget > 0; chunk = chunk === 1 ? 0 : Math.ceil(chunk / 2)) {
        for (let start = 0; start < n && budget > 0; ) {
          const keep: number[] = [];
          for (let r = 0; r < n; r++) if (r < start || r >= start + chunk) keep.push(r);
          const x: SqlCase = { ...cur, tables: { ...cur.tables, [name]: takeRows(cur.tables[name]!, keep, 8192) } };
          if (await fails(x)) {
            cur = x;
            n = keep.length;
            progress = true;
          } else start += chunk;
        }
      }
    }
  }
  const final = cur === c ? outcome : await checkSqlCase(cur, config, duck, engines);
  const detail = final.status === 'fail' ? final.detail : outcome.detail;
  const before = Object.values(c.tables).map((t) => t.numRows).join(' x ');
  const after = Object.values(cur.tables).map((t) => t.numRows).join(' x ');
  return [
    '',
    `MISMATCH (${outcome.kind}) in SQL case ${c.index} of seed ${c.seed}: ${sqlOneLine(c, config)}`,
    `shrunk from ${before} to ${after} rows; features used: ${c.uses.join(', ') || 'none'}`,
    `config: ${JSON.stringify(config)}`,
    `tables (DuckDB):`,
    tablesToSql(cur.tables),
    `query:  ${c.sql};`,
    detail,
    '',
    '',
  ].join('\n');
}
