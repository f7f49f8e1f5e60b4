import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeAnthropicServer, messageRequests, reply, startFakeAnthropicServer } from "../../helpers/fake-anthropic-server.js";
import { jsonLines, runCli } from "../../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";
import { everythingServer, resultText, toolResultsIn, writeUserConfig } from "../mcp-test-servers.js";

/**
 * End to end: `sylk ask` with the reference MCP server named in the user's
 * `~/.sylkrc`, the real Anthropic SDK talking to a loopback fake.
 */
let project: TempProject;
let server: FakeAnthropicServer;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "README.md": "# Demo\n" });
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

function ask(prompt: string, extra: string[] = [], env: Record<string, string> = {}) {
  return runCli(["ask", "--yes", "--output-format", "stream-json", ...extra, prompt], {
    cwd: project.root,
    env: { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1", ...env },
    timeoutMs: 60_000,
  });
}

/** The model's first step: load the server's tools these tests call, deferred until find_tools loads them. */
const loadMcpTools = () =>
  reply().toolUse(
    "find_tools",
    { names: ["echo", "get-sum", "get-env", "get-tiny-image"].map((tool) => `mcp__everything__${tool}`) },
    "toolu_find",
  );

interface SentTool {
  name: string;
  description: string;
  input_schema: { properties: Record<string, unknown> };
}

describe("sylk ask with an MCP server in the user's .sylkrc", () => {
  it("offers the server's tools as mcp__<server>__<tool>, runs a call an allow rule covers, and the result reaches the model", async () => {
    writeUserConfig(project.env, { mcpServers: { everything: everythingServer() }, permissions: { allow: ["mcp__everything__echo"] } });
    server.enqueue(
      loadMcpTools(),
      reply().toolUse("mcp__everything__echo", { message: "hello from the model" }, "toolu_echo"),
      reply().text("It echoed."),
    );
    const run = await ask("echo something");
    expect(run.code, run.stderr).toBe(0);
    const [, first, second] = messageRequests(server);
    const tools = (first?.body.tools ?? []) as SentTool[];
    const echo = tools.find((tool) => tool.name === "mcp__everything__echo");
    expect(echo?.description).toContain("Echoes back the input string");
    expect(Object.keys(echo?.input_schema.properties ?? {})).toEqual(["message"]);
    expect(toolResultsIn(second?.body)).toEqual([
      expect.objectContaining({ tool_use_id: "toolu_echo", content: "Echo: hello from the model" }),
    ]);
    const lines = jsonLines(run.stdout);
    const init = lines.find((line) => line.type === "init");
    expect(init?.mcp_servers).toEqual([expect.objectContaining({ name: "everything", state: "connected", transport: "stdio" })]);
    const [listed] = (init?.mcp_servers ?? []) as Array<{ tools: number }>;
    expect(listed?.tools).toBeGreaterThan(5);
    expect(lines.find((line) => line.type === "tool_result" && line.name !== "find_tools")).toMatchObject({
      name: "mcp__everything__echo",
      is_error: false,
      permission: "allowed",
    });
  });

  it("expands ${VAR} in env from the user's environment, hands the server only that and a safe default, and a whole-server rule allows its tools", async () => {
    writeUserConfig(project.env, {
      mcpServers: { everything: everythingServer({ env: { SYLK_MCP_GREETING: "${GREETING_FOR_MCP}" } }) },
      permissions: { allow: ["mcp__everything"] },
    });
    server.enqueue(loadMcpTools(), reply().toolUse("mcp__everything__get-env", {}, "toolu_env"), reply().text("Read it."));
    const run = await ask("what is the environment", [], { GREETING_FOR_MCP: "hello-from-the-user" });
    expect(run.code, run.stderr).toBe(0);
    const result = resultText(toolResultsIn(messageRequests(server)[2]?.body)[0]);
    expect(result).toContain('"SYLK_MCP_GREETING": "hello-from-the-user"');
    // Sylk's own environment (the model's key, SYLK_HOME) is not the server's.
    expect(result).not.toContain("ANTHROPIC_API_KEY");
    expect(result).not.toContain("SYLK_HOME");
  });

  it("asks by default, so a run that cannot ask refuses the call; a deny rule refuses it even in bypass mode", async () => {
    writeUserConfig(project.env, { mcpServers: { everything: everythingServer() }, permissions: { deny: ["mcp__everything__get-sum"] } });
    server.enqueue(
      loadMcpTools(),
      reply().toolUse("mcp__everything__echo", { message: "hi" }, "toolu_echo"),
      reply().text("Refused."),
      loadMcpTools(),
      reply()
        .toolUse("mcp__everything__get-sum", { a: 1, b: 2 }, "toolu_sum")
        .toolUse("mcp__everything__echo", { message: "hi" }, "toolu_echo2"),
      reply().text("One of two."),
    );
    const asking = await ask("echo");
    expect(asking.code, asking.stderr).toBe(0);
    const [refused] = toolResultsIn(messageRequests(server)[2]?.body);
    expect(refused?.is_error).toBe(true);
    expect(resultText(refused)).toContain("this run cannot ask");
    expect(resultText(refused)).toContain('permissions.allow: "mcp__everything__echo"');

    const bypass = await ask("sum and echo", ["--permission-mode", "bypass"]);
    expect(bypass.code, bypass.stderr).toBe(0);
    const [sum, echo] = toolResultsIn(messageRequests(server)[5]?.body);
    expect(sum?.is_error).toBe(true);
    expect(resultText(sum)).toContain("mcp__everything__get-sum");
    expect(resultText(echo)).toBe("Echo: hi");
  });

  it("stores a large output behind a [CTX-REF:…] marker that retrieve_context brings back byte for byte, and an image as an entry", async () => {
    writeUserConfig(project.env, {
      mcpServers: { everything: everythingServer() },
      permissions: { allow: ["mcp__everything"] },
      mcp: { maxOutputTokens: 200 },
    });
    const long = Array.from({ length: 120 }, (_, index) => `line ${index}: the quick brown fox jumps over the lazy dog`).join("\n");
    server.enqueue(
      loadMcpTools(),
      reply()
        .toolUse("mcp__everything__echo", { message: long }, "toolu_long")
        .toolUse("mcp__everything__get-tiny-image", {}, "toolu_image"),
      (body) => {
        const marker = resultText(toolResultsIn(body)[0]);
        const refId = /retrieve_context\(ref_id="([^"]+)"\)/.exec(marker)?.[1] ?? "missing";
        return reply().toolUse("retrieve_context", { ref_id: refId }, "toolu_retrieve");
      },
      reply().text("Read it all."),
    );
    const run = await ask("echo a long text");
    expect(run.code, run.stderr).toBe(0);
    const requests = messageRequests(server);
    const [bounded, image] = toolResultsIn(requests[2]?.body);
    const boundedText = resultText(bounded);
    expect(boundedText.length).toBeLessThan(long.length / 2);
    expect(boundedText).toMatch(/\[CTX-REF:[^\]]*retrieve_context\(ref_id="[0-9a-f]+"\)\]/);
    expect(resultText(image)).toMatch(/\[image image\/png, [\d.]+ (B|KB), stored as content entry \S+ \(base64\)\]/);
    const retrieved = resultText(toolResultsIn(requests[3]?.body)[0]);
    expect(retrieved).toContain(`Echo: ${long}`);
  });

  it("an MCP output is untrusted: a key in it is masked before it is sent or stored, and control characters are shown escaped", async () => {
    const token = "ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa";
    writeUserConfig(project.env, { mcpServers: { everything: everythingServer() }, permissions: { allow: ["mcp__everything"] } });
    server.enqueue(
      loadMcpTools(),
      reply().toolUse("mcp__everything__echo", { message: `token ${token} \u001b]0;PWNED\u0007 done` }, "toolu_echo"),
      reply().text("Seen."),
    );
    const run = await runCli(["ask", "--yes", "echo it"], {
      cwd: project.root,
      env: { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" },
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const sent = resultText(toolResultsIn(messageRequests(server)[2]?.body)[0]);
    expect(sent).toContain("Echo: token ");
    expect(sent).not.toContain(token);
    expect(JSON.stringify(server.requests.map((request) => request.body))).not.toContain(token);
    const stored = readdirSync(project.sylkHome, { recursive: true, encoding: "utf8" })
      .map((path) => join(project.sylkHome, path))
      .filter((path) => statSync(path).isFile());
    for (const path of stored) expect(readFileSync(path).includes(token), path).toBe(false);
    expect(run.stderr).not.toContain("\u001b]0;");
    expect(run.stderr).toContain("\\e]0;PWNED");
  });

  it("fills an MCP prompt named as a slash command, /mcp__<server>__<prompt> args, and sends it as the prompt", async () => {
    writeUserConfig(project.env, { mcpServers: { everything: everythingServer() } });
    server.enqueue(reply().text("Sunny."));
    const run = await ask("/mcp__everything__args-prompt Paris");
    expect(run.code, run.stderr).toBe(0);
    const first = messageRequests(server)[0];
    expect(JSON.stringify(first?.body.messages)).toContain("What's weather in Paris?");
  });
});
