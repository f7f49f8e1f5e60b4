import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { messageRequests, reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** Prefetch never repeats what the window holds, stays in its session, and has a real threshold. */
let server: FakeAnthropicServer;
let project: TempProject;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({
    "src/hello.ts": "export function greet(name: string): string {\n  return `hello ${name}`;\n}\n",
    "test/fixtures/a.txt": "hello hello hello\n",
    "test/fixtures/b.txt": "hello world, hello again\n",
  });
  env = { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" };
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

const sylk = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, { cwd: project.root, env: { ...env, ...extra } });
const requests = () => messageRequests(server);
const sent = (index: number) => JSON.stringify(requests()[index]?.body.messages ?? []);
const count = (text: string, part: string) => text.split(part).length - 1;

describe("prefetch", () => {
  it("puts the file in front of the model once, and never again beside the read_file result that holds it", async () => {
    server.enqueue(reply().toolUse("read_file", { path: "src/hello.ts" }), reply().text("It returns a greeting."));
    const run = await sylk(["ask", "--yes", "what does greet return?"]);
    expect(run.code, run.stderr).toBe(0);
    expect(sent(0)).toContain("[AUTO-RETRIEVED: src/hello.ts:1-3");
    const second = sent(1);
    expect(count(second, "[AUTO-RETRIEVED")).toBe(1);
    expect(second).not.toMatch(/AUTO-RETRIEVED: turn \d+ · tool_result/);
  });

  it("fetches nothing for small talk, and nothing for a word the code merely contains", async () => {
    server.enqueue(reply().text("Hello!"), reply().text("Sure."));
    expect((await sylk(["ask", "--yes", "hello"])).code).toBe(0);
    expect(sent(0)).not.toContain("AUTO-RETRIEVED");
    expect(sent(0)).not.toContain("RELATED");
    expect((await sylk(["ask", "what does world mean here"])).code).toBe(0);
    expect(sent(1)).not.toContain("test/fixtures");
  });

  it("stays within the current session: an earlier session's prompts come back only when the prompt asks for them", async () => {
    server.enqueue(reply().text("Noted."), reply().text("I do not know."), reply().text("It was seven."));
    expect((await sylk(["ask", "--yes", "remember that the zebra finch quota is seven birds"])).code).toBe(0);
    expect((await sylk(["ask", "what is the zebra finch quota"])).code).toBe(0);
    expect(sent(1)).not.toContain("zebra finch quota is seven");
    expect((await sylk(["ask", "in the previous session, what did I say the zebra finch quota is"])).code).toBe(0);
    expect(sent(2)).toContain("zebra finch quota is seven");
  });

  it("is off with context.prefetch false", async () => {
    server.enqueue(reply().text("It returns a greeting."));
    expect((await sylk(["ask", "--yes", "what does greet return?"], { SYLK_CONTEXT_PREFETCH: "false" })).code).toBe(0);
    expect(sent(0)).not.toContain("AUTO-RETRIEVED");
  });
});
