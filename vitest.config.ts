import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 180_000,
    // Integration suites each start their own server and store; two at a time fits 2 cores.
    maxWorkers: 2,
  },
});
