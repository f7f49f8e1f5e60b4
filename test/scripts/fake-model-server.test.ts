import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../../scripts/fake-model-server.mjs", import.meta.url));
let server: ChildProcess | undefined;
let directory: string | undefined;

afterEach(() => {
  server?.kill();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

async function startServer(args: string[]): Promise<Anthropic> {
  directory = mkdtempSync(join(tmpdir(), "sylk-fake-model-"));
  const portFile = join(directory, "port");
  server = spawn(process.execPath, [SCRIPT, "--port-file", portFile, ...args], { stdio: "ignore" });
  while (!existsSync(portFile) || readFileSync(portFile, "utf8") === "") await new Promise((resolve) => setTimeout(resolve, 20));
  return new Anthropic({ apiKey: "test", baseURL: `http://127.0.0.1:${readFileSync(portFile, "utf8")}`, maxRetries: 0 });
}

describe("scripts/fake-model-server.mjs (the TUI smoke test's and the rendering benchmark's model)", () => {
  it("asks for one edit, then answers once the edit's result is in, streaming as the SDK expects", async () => {
    const client = await startServer(["--path", "src/a.js", "--old", "hello", "--new", "goodbye"]);
    const prompt = { role: "user" as const, content: "say goodbye" };
    const first = await client.messages.stream({ model: "claude-fake", max_tokens: 100, messages: [prompt] }).finalMessage();
    expect(first.stop_reason).toBe("tool_use");
    expect(first.content).toMatchObject([
      { type: "text", text: "I'll make that edit." },
      { type: "tool_use", id: "toolu_fake_1", name: "edit_file", input: { path: "src/a.js", old_string: "hello", new_string: "goodbye" } },
    ]);
    expect(first.usage).toMatchObject({ input_tokens: 1_600, output_tokens: 40 });
    const result = { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: "toolu_fake_1", content: "edited" }] };
    const second = await client.messages
      .stream({ model: "claude-fake", max_tokens: 100, messages: [prompt, { role: "assistant", content: first.content }, result] })
      .finalMessage();
    expect(second.stop_reason).toBe("end_turn");
    expect(second.content).toEqual([{ type: "text", text: "Done: the greeting now says goodbye." }]);
  });

  it("with --text-only answers every request with the text, in deltas of --chunk characters", async () => {
    const client = await startServer(["--text-only", "--answer", "0123456789abcdef", "--chunk", "5"]);
    const deltas: string[] = [];
    const stream = client.messages.stream({ model: "claude-fake", max_tokens: 100, messages: [{ role: "user", content: "hi" }] });
    stream.on("text", (text) => deltas.push(text));
    await stream.finalMessage();
    expect(deltas).toEqual(["01234", "56789", "abcde", "f"]);
  });
});
