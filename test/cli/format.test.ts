import { describe, expect, it } from "vitest";
import { formatLocalTime, sessionLine } from "../../src/cli/format.js";
import { reply, startFakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject } from "../helpers/temp-project.js";

describe("times", () => {
  it("are shown on the user's clock, with its zone", async () => {
    const moment = Date.UTC(2026, 10, 25, 10, 18);
    // The test process's own zone: the formatting follows Date's local time, and names the offset.
    const local = new Date(moment);
    const expectedHour = String(local.getHours()).padStart(2, "0");
    expect(formatLocalTime(moment)).toMatch(new RegExp(`^2026-11-2\\d ${expectedHour}:\\d\\d (UTC|[+-]\\d\\d:\\d\\d)$`));
    expect(sessionLine({ id: "0123456789", updatedAt: moment, model: "m", turns: 2, title: "t", usage: { inputTokens: 1_000, outputTokens: 5, cacheReadTokens: 0 } })).toMatch(
      /^01234567 {2}2026-11-2\d \d\d:\d\d \S+ {2}m {2}2 turns, 1,005 tokens {2}t$/,
    );
  });

  it("sylk sessions lists them in the zone of TZ", async () => {
    const server = await startFakeAnthropicServer();
    const project = createTempProject({ "a.ts": "export const a = 1;\n" });
    try {
      server.enqueue(reply().text("ok"));
      const env = { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl };
      expect((await runCli(["ask", "--yes", "hi"], { cwd: project.root, env })).code).toBe(0);
      const kolkata = await runCli(["sessions"], { cwd: project.root, env: { ...env, TZ: "Asia/Kolkata" } });
      const utc = await runCli(["sessions"], { cwd: project.root, env: { ...env, TZ: "UTC" } });
      expect(kolkata.stdout).toMatch(/^\w{8} {2}\d{4}-\d\d-\d\d \d\d:\d\d \+05:30 {2}/);
      expect(utc.stdout).toMatch(/^\w{8} {2}\d{4}-\d\d-\d\d \d\d:\d\d UTC {2}/);
    } finally {
      await server.close();
      project.cleanup();
    }
  });
});
