import { defineConfig } from "vitest/config";

/** Contract tests against the real agent CLIs (`npm run test:agents`); slow, run apart. */
export default defineConfig({
  test: {
    include: ["test/agents/**/*.test.ts"],
    testTimeout: 600_000,
    hookTimeout: 1_200_000,
    fileParallelism: false,
  },
});
