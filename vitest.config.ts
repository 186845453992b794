import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{core,operators,strategies,adapters,bench}/**/*.test.ts', 'index.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // the default thread count is the machine's cores; tests that are about threads set `threads`
    env: { JOINLAB_THREADS: '1' },
  },
});
