#!/usr/bin/env node
// CI's large differential fuzz: `joinlab parity` over FUZZ_CASES random cases (default 10000),
// every algorithm and strategy against the nested-loop oracle and DuckDB, with a seed derived from
// the commit under test (its first 8 hex digits), so each commit fuzzes new cases and a failure
// reproduces with the one command printed first. FUZZ_SEED overrides the seed.
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cases = process.env.FUZZ_CASES ?? '10000';

function commitSeed() {
  try {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return { seed: Number.parseInt(head.slice(0, 8), 16), from: `commit ${head.slice(0, 12)}` };
  } catch {
    return { seed: 11, from: 'no git checkout: the default seed' };
  }
}

const { seed, from } = process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED), from: 'FUZZ_SEED' } : commitSeed();
console.log(`fuzz: ${cases} cases, seed ${seed} (${from})`);
console.log(`reproduce: npx joinlab parity --cases ${cases} --seed ${seed}`);
const run = spawnSync(process.execPath, [join(root, 'bin/joinlab.mjs'), 'parity', '--cases', cases, '--seed', String(seed)], { cwd: root, stdio: 'inherit' });
process.exitCode = run.status ?? 1;
