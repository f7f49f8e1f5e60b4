import { describe, expect, it } from "vitest";
import { reply, startFakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject } from "../helpers/temp-project.js";

describe("times in sylk sessions", () => {
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
