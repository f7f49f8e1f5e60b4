import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    // Worker threads, SQLite files and subprocesses: give slow shared CI machines room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    allowOnly: false,
  },
});
