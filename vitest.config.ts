import { defineConfig } from "vitest/config";

// Process- and server-heavy tests: run files in forks, bounded, with generous
// per-test timeouts (the suite spawns real agents, runners and sandboxes).
export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    globalSetup: ["tests/global-setup.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 20_000,
  },
});
