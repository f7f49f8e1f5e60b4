import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    // Worker threads, SQLite files and subprocesses: give slow shared CI machines room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Counts React's pending work, so the TUI tests wait for it to end rather than for a fixed time.
    // Removes the temporary projects a test file left behind.
    setupFiles: ["test/helpers/count-react-work.setup.ts", "test/helpers/temp-projects.setup.ts"],
    allowOnly: false,
  },
});
