import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'strategies/**/*.test.ts'],
    // Integration tests start real servers on 127.0.0.1; keep a generous ceiling for slow CI machines.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
