import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{core,operators,strategies,adapters,apps,bench}/**/*.test.ts', 'index.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // vitest's default is cores - 1, i.e. one file at a time on the 2-core CI machine: both cores
    maxWorkers: 2,
    // the default thread count is the machine's cores; tests that are about threads set `threads`
    env: { JOINLAB_THREADS: '1' },
  },
});
