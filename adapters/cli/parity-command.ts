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
 * the same tables; `compareResults` judges them as multisets. A combination joinlab refuses
 * (UnsupportedJoinError) is skipped and counted as skipped, never as passed. Progress goes to
 * stderr; the last line on stdout is always `N passed, M failed` (`, K skipped` when some were).
 */
import type { Table } from 'apache-arrow';
import { Engine } from '../../composition.ts';
import { UnsupportedJoinError } from '../../core/errors.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { caseSpace, describeCase, randomCase, shrinkCase, type JoinCase } from '../datagen/random-cases.ts';
import { compareResults, formatComparison } from '../duckdb/compare.ts';
import { joinToSql } from '../duckdb/join-sql.ts';
import { DuckDBSession } from '../duckdb/session.ts';

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
  | { readonly status: 'fail'; readonly kind: 'mismatch' | 'joinlab-error' | 'duckdb-error'; readonly detail: string; readonly sql: string };

function sqlFor(c: JoinCase): string {
  const columns = (t: Table) => t.schema.fields.map((f) => f.name);
  return joinToSql(toJoinSpec(c.spec), { table: LEFT_TABLE, columns: columns(c.left) }, { table: RIGHT_TABLE, columns: columns(c.right) });
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
    return { status: 'fail', kind: 'duckdb-error', detail: `DuckDB failed: ${(e as Error)?.message ?? String(e)}`, sql };
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
  const spec = [c.spec.type, c.spec.on ? `on ${c.spec.on}` : `range ${c.spec.range}`, c.spec.filter ? `filter ${c.spec.filter}` : '', c.spec.nullEqualsNull ? 'null=null' : '', c.spec.nullAware ? 'NOT IN' : '', c.spec.select ? `select ${c.spec.select}` : '']
    .filter(Boolean)
    .join(' ');
  const cfg = c.config;
  const how =
    cfg.join === 'hash'
      ? `hash ${cfg['hash.mode'] === 'partitioned' ? `partitioned/${cfg['hash.partitions']}` : 'collect-left'} build=${cfg['hash.build']} pushdown=${cfg.pushdown} hashmap=${cfg.hashmap}`
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

  const base = await Engine.create({ extensions: [...(options.extensions ?? [])] }, { baseDir: options.baseDir });
  const space = caseSpace(base.registry, { algorithms: options.algorithms, extensions: base.config.extensions });
  out(
    `joinlab parity: ${cases} cases, seed ${options.seed}; join ${space.joins.join('|')}, pushdown ${space.pushdowns.join('|')}, hashmap ${space.hashmaps.join('|')}, smj.existence ${space.existences.join('|')}, pwmj.search ${space.searches.join('|')}\n`,
  );

  const duck = await DuckDBSession.open({ threads: 1 });
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const started = performance.now();
  try {
    for (let i = 0; i < cases; i++) {
      const c = randomCase(space, options.seed, i);
      const outcome = await checkCase(c, duck, { baseDir: options.baseDir });
      if (outcome.status === 'pass') passed++;
      else if (outcome.status === 'skip') skipped++;
      else {
        failed++;
        if (failed <= maxReports) out(await reproduction(c, outcome, duck, options.baseDir));
        else out(`MISMATCH case ${i} (${outcome.kind}): ${oneLine(c)}\n`);
      }
      if (options.verbose) {
        const what = outcome.status === 'skip' ? `skip (${outcome.reason})` : outcome.status === 'fail' ? `FAIL (${outcome.kind})` : 'pass';
        err(`case ${i}: ${what} — ${oneLine(c)}\n`);
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
