import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{core,operators,strategies,adapters,bench}/**/*.test.ts', 'index.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
