/**
 * `piecewise` suite (issue 12, "Performance"): the piecewise merge join (`join=piecewise`) on one
 * range predicate, `l.k < r.k`, no equi-key. The left input is the buffered side (sorted by the
 * operator), the right input is streamed; a buffered row b matches a streamed row s when b < s.
 * Every case times three runs on the same in-memory tables:
 *
 * - joinlab: `join=piecewise` with the defaults (`pwmj.search=binary`, `pwmj.prefilter=true`);
 * - the baseline: `join=piecewise, pwmj.search=linear, pwmj.prefilter=false` (`baselineMs`,
 *   `speedup = baselineMs / joinlabMs`);
 * - DuckDB (at joinlab's thread count, `--threads`) on the same join, whatever operator its planner picks for it (the ratio is
 *   against DuckDB's own plan; which one it is is noted below).
 *
 * Nothing is collected: joinlab's output is streamed and folded (`foldJoin`), DuckDB computes the
 * same aggregate — count(*) and sum(l.lv), sum(r.rv) (one int64 payload column a side) for the
 * classic joins, count(*) and sum(l.lv) for semi/anti, count(*) and the count of true marks for
 * mark. Each run's answer is checked against DuckDB's (computed once at setup): a run that computes
 * something else throws, naming the case, the side and both answers.
 *
 * Sizes at `--scale 1` (`--scale` multiplies every row count); keys are int64, row orders are
 * shuffled (no input is presorted), every key is seeded and reproducible.
 *
 * **Classic** (inner, left, right, full): streamed (right) 100K rows x buffered (left) 10K rows.
 * Buffered keys are `BASE + 10 * p` for a shuffled permutation p of 0..nb-1 (BASE = 1e9), so the
 * i-th smallest is `BASE + 10 * i`. Streamed keys, by regime:
 * - `no_match`: uniform in [0, BASE]: no streamed key is above any buffered key (no pair);
 * - `null_heavy`: half the streamed keys NULL (random positions), the rest as `no_match`;
 * - `half_match`: half as `no_match`, half as `selective`, shuffled together;
 * - `selective`: `BASE + 10 * (j - 1) + 5` with j uniform in 1..4: the streamed row matches exactly
 *   the j smallest buffered keys (2.5 pairs a row on average);
 * - `all_match`: uniform in (max buffered key, max + BASE]: every streamed row matches every
 *   buffered key. 100K x 10K would be 1e9 output rows, so this regime's buffered side has **100
 *   rows** (1e7 pairs at scale 1; keys as above over 0..99); its case names say `buffered 100`.
 *
 * **Existence** (left-semi, left-anti, left-mark): 1M x 1M, buffered = left (the returned side),
 * streamed = right (keys only). Buffered keys `BASE + 2 * p` for a shuffled permutation p of
 * 0..n-1 (even offsets). Streamed keys, by regime:
 * - `all_match`: uniform in (max buffered key, max + BASE]: every buffered row has a match (every
 *   streamed row matches every buffered row, as in the classic regime);
 * - `no_match`: uniform in [0, BASE]: no buffered row has a match;
 * - `half_match`: half as `no_match`, half uniform in [BASE + 1, BASE + n] with `BASE + n` planted
 *   once: the largest streamed key is `BASE + n`, so exactly the ceil(n/2) buffered rows with keys
 *   below it have a match.
 *
 * DuckDB's SQL: `SELECT count(*), sum(l.lv), sum(r.rv) FROM b l {JOIN|LEFT JOIN|RIGHT JOIN|FULL
 * JOIN} s r ON l.k < r.k`; `SELECT count(*), sum(l.lv) FROM b l SEMI JOIN s r ON l.k < r.k` (and
 * `ANTI JOIN`); mark is `SELECT count(*), count(*) FILTER (WHERE m) FROM (SELECT l.k < ANY (SELECT
 * r.k FROM s r) AS m FROM b l)` — the same as `EXISTS (SELECT 1 FROM s r WHERE l.k < r.k)` here,
 * as neither side has a NULL key, and planned as DuckDB's PIECEWISE_MERGE_JOIN(MARK), where the
 * EXISTS form is decorrelated into a LEFT_DELIM_JOIN over a HASH_JOIN(MARK) and an INNER piecewise
 * join producing every matching pair (1,000 x 10,000 all_match: 390 ms against 4.6 ms).
 *
 * DuckDB's plans (the `duckdbPlan` fact of each case, from `EXPLAIN (FORMAT JSON)` at setup;
 * DuckDB 1.5.6, scale 1): PIECEWISE_MERGE_JOIN for every half_match and selective case, full
 * no_match/null_heavy, left/right/full all_match and every mark case (a LEFT or RIGHT join appears
 * as the mirrored type: DuckDB buffers the smaller side too). In the others its optimizer proves
 * the predicate always false or always true from the key columns' min/max statistics and replaces
 * the join, so their ratio is against no range join at all: inner no_match/null_heavy, left-semi
 * no_match and left-anti all_match become EMPTY_RESULT; left/right no_match/null_heavy a
 * NESTED_LOOP_JOIN against an EMPTY_RESULT side; inner all_match and left-semi all_match a
 * CROSS_PRODUCT (the semi one against LIMIT 1 of the streamed side); left-anti no_match the left
 * scan alone. `PIECEWISE_DUCKDB_STATS=off` runs DuckDB in a session of the suite's own with
 * `disabled_optimizers = 'statistics_propagation'`: every case is then a PIECEWISE_MERGE_JOIN, at
 * the price of slowing some that were one already (left-semi half_match ~2x on this machine).
 *
 * `PIECEWISE_CASES="a,b c,…"` runs only the cases one of the comma-separated entries selects: an
 * entry selects a case when each of its words is the case's group (`classic`, `existence`), its
 * join type or its regime (e.g. `existence`, `no_match`, `inner all_match`, `left-semi`); only the
 * data of the selected cases is generated.
 */
import { Field, Int64, RecordBatch, Schema, Struct, Table, makeData, type Data } from 'apache-arrow';
import { Engine } from '../../composition.ts';
import { Rng } from '../../core/random.ts';
import type { JoinSpecInput } from '../../core/spec.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { int64Values } from '../../adapters/datagen/keys.ts';
import { caseConfig, type BenchCase, type CaseFacts, type SuiteOverrides, suiteThreads } from '../harness.ts';

const BATCH_ROWS = 65_536;
/** Every buffered key is BASE + a small offset; `no_match` streamed keys are in [0, BASE]. */
const BASE = 1_000_000_000;
const RANGE = 'l.k < r.k';

const CLASSIC_TYPES = ['inner', 'left', 'right', 'full'] as const;
const CLASSIC_REGIMES = ['no_match', 'null_heavy', 'half_match', 'selective', 'all_match'] as const;
const EXISTENCE_TYPES = ['left-semi', 'left-anti', 'left-mark'] as const;
const EXISTENCE_REGIMES = ['all_match', 'no_match', 'half_match'] as const;
type ClassicRegime = (typeof CLASSIC_REGIMES)[number];
type ExistenceRegime = (typeof EXISTENCE_REGIMES)[number];

// ------------------------------------------------------------------------------------------------
// data
// ------------------------------------------------------------------------------------------------

/** A random permutation of 0..n-1 as doubles (seeded Fisher-Yates). */
function permutation(n: number, seed: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return shuffleInPlace(out, seed);
}

function shuffleInPlace(a: Float64Array, seed: number): Float64Array {
  const rng = new Rng(seed);
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    const t = a[i]!;
    a[i] = a[j]!;
    a[j] = t;
  }
  return a;
}

/** NaN in `keys` is a NULL key. */
function int64Column(keys: ArrayLike<number>): Data<Int64> {
  const n = keys.length;
  let nulls = 0;
  for (let i = 0; i < n; i++) if (Number.isNaN(keys[i]!)) nulls++;
  const values = int64Values(n, (i) => (Number.isNaN(keys[i]!) ? 0 : keys[i]!));
  if (nulls === 0) return makeData({ type: new Int64(), length: n, nullCount: 0, data: values });
  const bitmap = new Uint8Array(((n + 63) & ~63) >> 3);
  for (let i = 0; i < n; i++) if (!Number.isNaN(keys[i]!)) bitmap[i >> 3]! |= 1 << (i & 7);
  return makeData({ type: new Int64(), length: n, nullCount: nulls, data: values, nullBitmap: bitmap });
}

/** Like `tableOf` (adapters/datagen/keys.ts), with nullable fields (a key column may hold NULLs). */
function table(columns: Record<string, ArrayLike<number>>): Table {
  const names = Object.keys(columns);
  const datas = names.map((k) => int64Column(columns[k]!));
  const n = datas[0]!.length;
  const schema = new Schema(names.map((k) => new Field(k, new Int64(), true)));
  const batches: RecordBatch[] = [];
  for (let off = 0; off < n; off += BATCH_ROWS) {
    const len = Math.min(BATCH_ROWS, n - off);
    batches.push(new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: len, nullCount: 0, children: datas.map((d) => d.slice(off, len)) })));
  }
  return new Table(schema, batches);
}

const rowIndex = (n: number) => Float64Array.from({ length: n }, (_, i) => i);

/** Uniform integers in [lo, hi] (inclusive). */
function uniform(n: number, lo: number, hi: number, rng: Rng): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = lo + Math.floor(rng.next() * (hi - lo + 1));
  return out;
}

/** Buffered keys `BASE + step * p` over a shuffled permutation p of 0..n-1, payload lv = row index. */
function bufferedTable(n: number, step: number, seed: number): Table {
  const p = permutation(n, seed);
  for (let i = 0; i < n; i++) p[i] = BASE + step * p[i]!;
  return table({ k: p, lv: rowIndex(n) });
}

/** The classic regimes' streamed keys against buffered keys BASE + 10 * (0..nb-1). */
export function classicStreamedKeys(regime: ClassicRegime, ns: number, nb: number, seed: number): Float64Array {
  const rng = new Rng(seed);
  const noMatch = (n: number) => uniform(n, 0, BASE, rng);
  const selective = (n: number) => {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = BASE + 10 * Math.floor(rng.next() * 4) + 5;
    return out;
  };
  const half = Math.floor(ns / 2);
  const concat = (a: Float64Array, b: Float64Array) => {
    const out = new Float64Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return shuffleInPlace(out, seed + 1);
  };
  switch (regime) {
    case 'no_match':
      return noMatch(ns);
    case 'null_heavy':
      return concat(new Float64Array(half).fill(NaN), noMatch(ns - half));
    case 'half_match':
      return concat(noMatch(half), selective(ns - half));
    case 'selective':
      return selective(ns);
    case 'all_match':
      return uniform(ns, BASE + 10 * (nb - 1) + 1, BASE + 10 * (nb - 1) + BASE, rng);
  }
}

/** The existence regimes' streamed keys against buffered keys BASE + 2 * (0..n-1). */
export function existenceStreamedKeys(regime: ExistenceRegime, n: number, seed: number): Float64Array {
  const rng = new Rng(seed);
  const maxBuffered = BASE + 2 * (n - 1);
  switch (regime) {
    case 'all_match':
      return uniform(n, maxBuffered + 1, maxBuffered + BASE, rng);
    case 'no_match':
      return uniform(n, 0, BASE, rng);
    case 'half_match': {
      const half = Math.floor(n / 2);
      const out = new Float64Array(n);
      out.set(uniform(half, 0, BASE, rng));
      out.set(uniform(n - half, BASE + 1, BASE + n, rng), half);
      out[n - 1] = BASE + n; // the largest streamed key, planted: ceil(n/2) buffered keys are below it
      return shuffleInPlace(out, seed + 1);
    }
  }
}

// ------------------------------------------------------------------------------------------------
// folding and checking
// ------------------------------------------------------------------------------------------------

/** An aggregate answer: count(*) and, per folded column, the sum of an int64 column or the count of true booleans. */
interface Answer {
  rows: number;
  sums: number[];
}

const show = (a: Answer) => `count=${a.rows}, ${a.sums.join(', ')}`;

/** Streams a join and folds its output like the DuckDB query: rows, and per column of `cols` its sum (int64, NULLs skipped) or its count of trues (boolean). */
async function foldJoin(engine: Engine, spec: JoinSpecInput, left: Table, right: Table, cols: readonly string[]) {
  const s = await engine.stream(spec, left, right);
  const answer: Answer = { rows: 0, sums: cols.map(() => 0) };
  for await (const b of s.batches) {
    answer.rows += b.numRows;
    for (let c = 0; c < cols.length; c++) {
      const col = b.getChild(cols[c]!);
      if (!col) throw new Error(`piecewise suite: the join's output has no column '${cols[c]}' (it has ${b.schema.fields.map((f) => f.name).join(', ')})`);
      let total = 0;
      for (const d of col.data) {
        const valid = d.nullCount > 0 ? d.nullBitmap : null;
        const off = d.offset;
        if (d.values instanceof BigInt64Array) {
          // payloads are row indexes below 2^31: the low word is the value
          const w = new Int32Array(d.values.buffer, d.values.byteOffset, 2 * d.length);
          if (valid) {
            for (let i = 0; i < d.length; i++) if ((valid[(off + i) >> 3]! >> ((off + i) & 7)) & 1) total += w[2 * i]!;
          } else for (let i = 0; i < d.length; i++) total += w[2 * i]!;
        } else {
          // boolean: bit-packed, the buffer not sliced (bit offset + i)
          const bits = d.values as Uint8Array;
          for (let i = 0; i < d.length; i++) {
            const at = off + i;
            if ((bits[at >> 3]! >> (at & 7)) & 1 && (!valid || (valid[at >> 3]! >> (at & 7)) & 1)) total++;
          }
        }
      }
      answer.sums[c]! += total;
    }
  }
  return { answer, metrics: s.metrics };
}

type Metrics = Awaited<ReturnType<typeof foldJoin>>['metrics'];

/** DuckDB's one-row answer: count(*) then the sums (NULL, a sum over no rows, is 0). */
async function duckAnswer(duck: DuckDBSession, sql: string): Promise<Answer> {
  const [row] = await duck.queryRows(sql);
  const [rows, ...sums] = row!.map((v) => (v === null ? 0 : Number(v)));
  return { rows: rows!, sums };
}

function check(caseName: string, side: string, got: Answer, expected: Answer): number {
  if (got.rows !== expected.rows || got.sums.some((s, i) => s !== expected.sums[i])) {
    throw new Error(`piecewise suite, case '${caseName}': ${side} answered ${show(got)}, DuckDB ${show(expected)}`);
  }
  return got.rows;
}

// ------------------------------------------------------------------------------------------------
// cases
// ------------------------------------------------------------------------------------------------

interface Engines {
  optimized: Engine;
  linear: Engine;
}

async function engines(overrides: SuiteOverrides): Promise<Engines> {
  return {
    optimized: await Engine.create(caseConfig({ join: 'piecewise', 'pwmj.search': 'binary', 'pwmj.prefilter': true }, overrides)),
    linear: await Engine.create(caseConfig({ join: 'piecewise', 'pwmj.search': 'linear', 'pwmj.prefilter': false }, overrides)),
  };
}

/** The join operator's counters and the peak reserved bytes of a run, for the facts. */
function joinFacts(m: Metrics | null): Record<string, number> {
  const out: Record<string, number> = {};
  if (!m) return out;
  for (const [k, v] of Object.entries(m.operators.join?.counters ?? {})) if (typeof v === 'number') out[k] = v;
  out['peakReservedBytes'] = m.memory.peakReservedBytes;
  return out;
}

/** joinlab's facts, and the baseline's (prefixed `baseline.`) where they differ from joinlab's. */
function runFacts(m: Metrics | null, baseline: Metrics | null): CaseFacts {
  const own = joinFacts(m);
  const out: Record<string, number> = { ...own };
  for (const [k, v] of Object.entries(joinFacts(baseline))) if (own[k] !== v) out[`baseline.${k}`] = v;
  return out;
}

interface PlanNode {
  name: string;
  children?: PlanNode[];
  extra_info?: Record<string, unknown>;
}

/**
 * DuckDB's join operators for `sql`, outermost first (`EXPLAIN (FORMAT JSON)`): e.g.
 * `PIECEWISE_MERGE_JOIN(RIGHT)`, or `CROSS_PRODUCT` / `EMPTY_RESULT` where its optimizer proved the
 * predicate always true or false from the columns' min/max statistics and replaced the join.
 */
async function duckdbPlan(duck: DuckDBSession, sql: string): Promise<string> {
  const [[json]] = (await duck.queryRows(`EXPLAIN (FORMAT JSON) ${sql}`)).map((r) => r.slice(1)) as [[string]];
  const ops: string[] = [];
  const walk = (n: PlanNode) => {
    if (/JOIN|CROSS_PRODUCT|EMPTY_RESULT/.test(n.name)) {
      const type = n.extra_info?.['Join Type'];
      ops.push(typeof type === 'string' ? `${n.name}(${type})` : n.name);
    }
    for (const c of n.children ?? []) walk(c);
  };
  for (const n of JSON.parse(json) as PlanNode[]) walk(n);
  return ops.length > 0 ? ops.join(' > ') : 'no join';
}

interface CaseData {
  name: string;
  spec: JoinSpecInput;
  left: Table;
  right: Table;
  cols: readonly string[];
  sql: string;
  facts: CaseFacts;
}

async function makeCase(duck: DuckDBSession, e: Engines, d: CaseData): Promise<BenchCase> {
  const expected = await duckAnswer(duck, d.sql);
  const plan = await duckdbPlan(duck, d.sql);
  let last: Metrics | null = null;
  let lastBaseline: Metrics | null = null;
  return {
    name: d.name,
    joinlab: async () => {
      const r = await foldJoin(e.optimized, d.spec, d.left, d.right, d.cols);
      last = r.metrics;
      return check(d.name, 'joinlab (binary, prefilter)', r.answer, expected);
    },
    baseline: {
      name: 'linear, no prefilter',
      run: async () => {
        const r = await foldJoin(e.linear, d.spec, d.left, d.right, d.cols);
        lastBaseline = r.metrics;
        return check(d.name, 'the baseline (linear, no prefilter)', r.answer, expected);
      },
    },
    duckdb: async () => check(d.name, 'DuckDB (timed run)', await duckAnswer(duck, d.sql), expected),
    facts: (): CaseFacts => ({ ...d.facts, outputRows: expected.rows, duckdbPlan: plan, ...runFacts(last, lastBaseline) }),
  };
}

const SQL_JOIN: Record<(typeof CLASSIC_TYPES)[number], string> = { inner: 'JOIN', left: 'LEFT JOIN', right: 'RIGHT JOIN', full: 'FULL JOIN' };

async function classicCases(duck: DuckDBSession, scale: number, e: Engines, wanted: (words: readonly string[]) => boolean): Promise<BenchCase[]> {
  const ns = Math.max(8, Math.round(100_000 * scale));
  const nb = Math.max(4, Math.round(10_000 * scale));
  const nbAll = Math.max(4, Math.round(100 * scale));
  const cases: BenchCase[] = [];
  const buffered = new Map<string, Table>();
  for (const [r, regime] of CLASSIC_REGIMES.entries()) {
    const types = CLASSIC_TYPES.filter((t) => wanted(['classic', t, regime]));
    if (types.length === 0) continue;
    const all = regime === 'all_match';
    const rows = all ? nbAll : nb;
    const leftName = all ? 'pw_c_buffered_small' : 'pw_c_buffered';
    let left = buffered.get(leftName);
    if (!left) {
      left = bufferedTable(rows, 10, all ? 102 : 101);
      buffered.set(leftName, left);
      await duck.loadTable(leftName, left);
    }
    const keys = classicStreamedKeys(regime, ns, rows, 110 + r);
    const right = table({ k: keys, rv: rowIndex(ns) });
    const rightName = `pw_c_streamed_${regime}`;
    await duck.loadTable(rightName, right);
    const nulls = keys.reduce((s, k) => s + (Number.isNaN(k) ? 1 : 0), 0);
    for (const type of types) {
      cases.push(
        await makeCase(duck, e, {
          name: `${type} ${regime}${all ? ` (buffered ${rows})` : ''}`,
          spec: { type, range: RANGE, select: 'lv,rv' },
          left,
          right,
          cols: ['lv', 'rv'],
          sql: `SELECT count(*), sum(l.lv), sum(r.rv) FROM ${leftName} l ${SQL_JOIN[type]} ${rightName} r ON l.k < r.k`,
          facts: { streamedRows: ns, bufferedRows: rows, streamedNullKeys: nulls },
        }),
      );
    }
  }
  return cases;
}

async function existenceCases(duck: DuckDBSession, scale: number, e: Engines, wanted: (words: readonly string[]) => boolean): Promise<BenchCase[]> {
  const n = Math.max(8, Math.round(1_000_000 * scale));
  const cases: BenchCase[] = [];
  let left: Table | null = null;
  for (const [r, regime] of EXISTENCE_REGIMES.entries()) {
    const types = EXISTENCE_TYPES.filter((t) => wanted(['existence', t, regime]));
    if (types.length === 0) continue;
    if (left === null) {
      left = bufferedTable(n, 2, 201);
      await duck.loadTable('pw_e_buffered', left);
    }
    const right = table({ k: existenceStreamedKeys(regime, n, 210 + r) });
    const rightName = `pw_e_streamed_${regime}`;
    await duck.loadTable(rightName, right);
    const [[matched]] = (await duck.queryRows(`SELECT count(*) FROM pw_e_buffered l SEMI JOIN ${rightName} r ON l.k < r.k`)) as [[bigint]];
    for (const type of types) {
      const mark = type === 'left-mark';
      const sql = mark
        ? `SELECT count(*), count(*) FILTER (WHERE m) FROM (SELECT l.k < ANY (SELECT r.k FROM ${rightName} r) AS m FROM pw_e_buffered l)`
        : `SELECT count(*), sum(l.lv) FROM pw_e_buffered l ${type === 'left-semi' ? 'SEMI' : 'ANTI'} JOIN ${rightName} r ON l.k < r.k`;
      cases.push(
        await makeCase(duck, e, {
          name: `${type} ${regime}`,
          spec: { type, range: RANGE, select: mark ? 'mark' : 'lv' },
          left,
          right,
          cols: mark ? ['mark'] : ['lv'],
          sql,
          facts: { streamedRows: n, bufferedRows: n, bufferedRowsMatched: Number(matched) },
        }),
      );
    }
  }
  return cases;
}

/** The suite; `PIECEWISE_CASES` (see the module doc) picks cases. */
export async function piecewiseCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides = {}): Promise<BenchCase[]> {
  const entries = (process.env['PIECEWISE_CASES'] ?? '')
    .split(',')
    .map((s) => s.trim().split(/\s+/).filter(Boolean))
    .filter((ws) => ws.length > 0);
  const wanted = (words: readonly string[]) => entries.length === 0 || entries.some((ws) => ws.every((w) => words.includes(w)));
  const e = await engines(overrides);
  const stats = process.env['PIECEWISE_DUCKDB_STATS'] ?? 'on';
  if (stats !== 'on' && stats !== 'off') throw new Error(`PIECEWISE_DUCKDB_STATS must be on or off, not '${stats}'`);
  // statistics off: a session of the suite's own, so the setting never reaches other suites' queries
  const db = stats === 'on' ? duck : await DuckDBSession.open({ threads: suiteThreads(overrides) });
  if (stats === 'off') await db.run("SET disabled_optimizers = 'statistics_propagation'");
  const cases = [...(await classicCases(db, scale, e, wanted)), ...(await existenceCases(db, scale, e, wanted))];
  if (stats === 'off') {
    if (cases.length === 0) db.close();
    else {
      const last = cases[cases.length - 1]!;
      cases[cases.length - 1] = { ...last, close: async () => db.close() };
    }
  }
  return cases;
}
