import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { messageRequests, reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { jsonLines, runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let server: FakeAnthropicServer;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/app.ts": "export const answer = 42;\n" });
  env = { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test-key", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_RETRY_BASE_DELAY_MS: "5" };
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

const ask = (args: string[], input?: string) => runCli(["ask", "--yes", ...args], { cwd: project.root, env, ...(input ? { input } : {}) });

/** The system prompt and tools' size as the error states it. */
function statedPrefix(message: string): number {
  const match = /system prompt and tool definitions \(([\d,]+) tokens\)/.exec(message);
  if (!match?.[1]) throw new Error(`no prefix size in: ${message}`);
  return Number(match[1].replaceAll(",", ""));
}

describe("a context window too small for the request", () => {
  it("fails at once, naming the sizes and a window to use, when the system prompt and tools do not fit", async () => {
    const run = await ask(["--context-window", "4000", "Where is the answer defined?"]);
    expect(run.code, run.stderr).toBe(52);
    expect(run.stderr).toMatch(
      /The context window of 4,000 tokens cannot hold the system prompt and tool definitions \([\d,]+ tokens\) with room for the answer \(1,000\)/,
    );
    const prefix = statedPrefix(run.stderr);
    expect(prefix).toBeGreaterThan(4_000 - 1_000);
    expect(run.stderr).toContain(
      `at least ${(Math.ceil((4 * prefix) / 1_000) * 1_000).toLocaleString("en-US")} tokens (--context-window or context.windowTokens)`,
    );
    // Nothing was sent, and nothing recorded that a later run would have to repair.
    expect(messageRequests(server)).toHaveLength(0);

    server.enqueue(reply().text("In src/app.ts."));
    const next = await ask(["--continue", "--output-format", "stream-json", "Where is the answer defined?"]);
    expect(next.code, next.stderr).toBe(0);
    expect(messageRequests(server)[0]?.body.messages).toEqual([
      { role: "user", content: [expect.objectContaining({ type: "text", text: expect.stringContaining("Where is the answer defined?") })] },
    ]);
  });

  it("says so in stream-json's result line, with the session it opened", async () => {
    const run = await ask(["--context-window", "4000", "--output-format", "stream-json", "hello"]);
    expect(run.code).toBe(52);
    const lines = jsonLines(run.stdout);
    const sessionId = lines.find((line) => line.type === "init")?.session_id;
    expect(sessionId).toEqual(expect.any(String));
    expect(lines.find((line) => line.type === "result")).toMatchObject({
      session_id: sessionId,
      stop_reason: "error",
      stats: { turns: 0 },
      error: { kind: "context_window", message: expect.stringContaining("cannot hold the system prompt and tool definitions") },
    });
  });

  it("refuses a prompt too long for what the window has left, before sending it", async () => {
    // About 12,000 tokens, piped (an argument that long is past what a process may be given).
    const run = await ask(["--context-window", "20000", "Summarise this log"], "word ".repeat(10_000));
    expect(run.code, run.stderr).toBe(42);
    expect(run.stderr).toMatch(
      /The prompt \([\d,]+ tokens\) does not fit in the context window of 20,000 tokens beside the system prompt, the tool definitions and the room for the answer/,
    );
    expect(messageRequests(server)).toHaveLength(0);
  });

  it("stops at the next call when the model's count shows the system prompt and tools no longer fit", async () => {
    const probe = await ask(["--context-window", "4000", "hello"]);
    const prefix = statedPrefix(probe.stderr);
    // The first request fits by the local estimate (a quarter of the window kept for the answer, a
    // few hundred tokens for the prompt and a marker); the API then counts three times as much, the
    // estimate learns from it, and the second request's fixed part alone is past the window.
    const window = Math.ceil((prefix + 400) / 0.75);
    server.enqueue(
      reply()
        .toolUse("read_file", { path: "src/app.ts" }, "toolu_read")
        .usage({ input_tokens: 3 * (prefix + 400), output_tokens: 20 }),
    );
    const run = await ask(["--context-window", String(window), "--output-format", "stream-json", "Read src/app.ts"]);
    expect(run.code, run.stderr).toBe(52);
    expect(messageRequests(server)).toHaveLength(1);
    const lines = jsonLines(run.stdout);
    expect(lines.filter((line) => line.type === "tool_result")).toHaveLength(1);
    expect(lines.find((line) => line.type === "result")).toMatchObject({
      stop_reason: "error",
      stats: { turns: 2 },
      error: { kind: "context_window" },
    });
  });
});
