/**
 * The h2o suite's Polars peer, run as a child process: `POLARS_MAX_THREADS` is read once, when
 * Polars starts its thread pool, so each thread count needs a process of its own (the suite
 * spawns one per count, never while anything else runs, so the peers do not time each other).
 *
 * Input (argv[2], JSON): `{ files: { x, small, medium, big }, iterations, warmup }`. The four
 * Parquet files are read into memory first (untimed, as the other engines' tables are); then each
 * question runs `warmup + iterations` times as `x.join(rhs, { on, how })` followed by the check
 * sums, and the median of the timed runs is printed as one JSON line per question:
 * `{ question, ms, rows, v1, v2 }`. Polars names the right side's clashing columns `<name>_right`
 * as joinlab does; the sums read `v1` and `v2`, which do not clash.
 */
import pl from 'nodejs-polars';
import { H2O_QUESTIONS } from '../suites/h2o-questions.ts';

interface PeerInput {
  readonly files: Readonly<Record<'x' | 'small' | 'medium' | 'big', string>>;
  readonly iterations: number;
  readonly warmup: number;
}

const input = JSON.parse(process.argv[2] ?? '{}') as PeerInput;
const tables = {
  x: pl.readParquet(input.files.x),
  small: pl.readParquet(input.files.small),
  medium: pl.readParquet(input.files.medium),
  big: pl.readParquet(input.files.big),
};

for (const q of H2O_QUESTIONS) {
  const times: number[] = [];
  let last = { rows: 0, v1: 0, v2: 0 };
  for (let run = 0; run < input.warmup + input.iterations; run++) {
    const started = performance.now();
    const ans = tables.x.join(tables[q.rhs], { on: q.key, how: q.type });
    last = { rows: ans.height, v1: Number(ans.getColumn('v1').sum()), v2: Number(ans.getColumn('v2').sum()) };
    const ms = performance.now() - started;
    if (run >= input.warmup) times.push(ms);
  }
  times.sort((a, b) => a - b);
  process.stdout.write(`${JSON.stringify({ question: q.name, ms: times[Math.floor(times.length / 2)], ...last })}\n`);
}
