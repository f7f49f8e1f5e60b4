import { spawn } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { jsonLines, runCli, SYLK_BIN, startCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** Text-mode `sylk ask` once printed nothing until the end, even after an interrupt; `used_tokens` counted the answer's room. */
let project: TempProject;
let server: FakeAnthropicServer;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/a.ts": "export const a = 1;\n" });
  env = { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl };
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

const SLOW = "Streaming words arrive one by one and the answer takes a while to finish here.";

describe("sylk ask in text mode", () => {
  it("piped, prints what had arrived of the answer when interrupted", async () => {
    server.enqueue(reply().text(SLOW).chunkText(6).eventDelayMs(120));
    expect((await runCli(["index", "--yes"], { cwd: project.root, env })).code).toBe(0);
    const child = startCli(["ask", "tell me"], { cwd: project.root, env });
    child.stdin?.end();
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // Interrupt once part of the answer has been sent.
    const sentSome = setInterval(() => {
      if (server.requests.length > 0) {
        clearInterval(sentSome);
        setTimeout(() => child.kill("SIGINT"), 500);
      }
    }, 20);
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, stderr).toBe(130);
    expect(stdout).toMatch(/^Stream/);
    expect(stdout.trim().length).toBeLessThan(SLOW.length);
  });

  it("on a terminal, streams the answer as it comes, and prints it once", async () => {
    server.enqueue(reply().text(SLOW).chunkText(6).eventDelayMs(120));
    expect((await runCli(["index", "--yes"], { cwd: project.root, env })).code).toBe(0);
    // util-linux `script` gives the command a pseudo-terminal.
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(SYLK_BIN)} ask "tell me"`;
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      cwd: project.root,
      env: { ...env, CI: "true", NO_COLOR: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    let firstWordsAt = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (!firstWordsAt && output.includes("Streaming words")) firstWordsAt = Date.now();
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    const endedAt = Date.now();
    expect(code).toBe(0);
    // The first words were on screen well before the answer ended (it streams over ~1.5 s).
    expect(firstWordsAt).toBeGreaterThan(0);
    expect(endedAt - firstWordsAt).toBeGreaterThan(500);
    expect(output.split("Streaming words").length - 1).toBe(1);
    expect(output).toContain("to finish here.");
  });
});

describe("sylk ask --output-format stream-json", () => {
  it("reports used_tokens without the room kept for the answer", async () => {
    server.enqueue(reply().text("ok"));
    const run = await runCli(["ask", "--yes", "--output-format", "stream-json", "hi"], { cwd: project.root, env });
    expect(run.code, run.stderr).toBe(0);
    const context = jsonLines(run.stdout).find((event) => event.type === "context") as { used_tokens: number; window_tokens: number };
    const maxTokens = server.requests[0]?.body.max_tokens as number;
    expect(context.used_tokens).toBeGreaterThan(0);
    expect(context.used_tokens).toBeLessThan(maxTokens);
    expect(context.used_tokens + maxTokens).toBeLessThanOrEqual(context.window_tokens);
  });
});
