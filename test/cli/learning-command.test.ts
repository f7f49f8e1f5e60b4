import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let server: FakeAnthropicServer;
let project: TempProject;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/hello.ts": "export function greet(name: string): string {\n  return `hello ${name}`;\n}\n" });
  env = {
    ...project.env,
    ANTHROPIC_API_KEY: "sk-ant-test",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_MODEL_MAX_ATTEMPTS: "1",
    SYLK_LEARNING_ENABLED: "true",
  };
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

const sylk = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, { cwd: project.root, env: { ...env, ...extra } });

describe("sylk learning", () => {
  it("shows each prompt's episode, by the learned parameters' names, as text and as JSON, and forgets it with --reset", async () => {
    expect((await sylk(["learning"])).stdout).toContain("Nothing learned yet");
    server.enqueue(
      reply().toolUse("grep", { pattern: "greet" }),
      reply().text("greet returns a greeting (src/hello.ts)."),
      reply().text("It takes a name."),
    );
    expect((await sylk(["ask", "--yes", "what does greet return?"])).code).toBe(0);
    expect((await sylk(["ask", "--continue", "what does greet take?"])).code).toBe(0);

    const json = await sylk(["learning", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const learned = JSON.parse(json.stdout) as {
      enabled: boolean;
      observations: number;
      parameters: Array<{ name: string; alpha: number; beta: number; mean: number; effective_samples: number }>;
      contexts: Array<{ id: string; count: number }>;
      profile: { observation_count: number };
    };
    expect(learned.enabled).toBe(true);
    expect(learned.observations).toBe(2);
    expect(learned.parameters.map((parameter) => parameter.name)).toEqual([
      "weights.taskSuccess",
      "weights.relevanceBonus",
      "weights.strugglePenalty",
      "weights.wastePenalty",
      "thresholds.confidence",
      "thresholds.excerpt",
      "thresholds.budget",
    ]);
    for (const parameter of learned.parameters) {
      expect(parameter.mean).toBeCloseTo(parameter.alpha / (parameter.alpha + parameter.beta), 12);
      expect(parameter.effective_samples).toBeGreaterThanOrEqual(0);
    }
    expect(learned.contexts.reduce((total, context) => total + context.count, 0)).toBe(2);
    expect(learned.profile.observation_count).toBe(2);

    const text = await sylk(["learning"]);
    expect(text.stdout).toContain("Self-tuning retrieval: 2 observations in this project.");
    expect(text.stdout).toMatch(/Excerpts: up to \d \(started at 2\)/);
    expect(text.stdout).toMatch(/Kinds of prompt: \d+ told apart|Kinds of prompt: none told apart yet/);
    expect(text.stdout).toContain("Across your projects (2 observations; it applies after 5)");
    expect(text.stdout).not.toMatch(/alpha|ctx_\d/);

    expect((await sylk(["learning", "--reset"])).stdout).toContain("Forgot what self-tuning retrieval learned");
    expect(JSON.parse((await sylk(["learning", "--json"])).stdout).observations).toBe(0);
  });

  it("says learning is off when learning.enabled is false, and the runs learn nothing", async () => {
    server.enqueue(reply().text("Hello."));
    expect((await sylk(["ask", "--yes", "what does greet return?"], { SYLK_LEARNING_ENABLED: "false" })).code).toBe(0);
    const text = await sylk(["learning"], { SYLK_LEARNING_ENABLED: "false" });
    expect(text.stdout).toContain("Learning is off");
    expect(text.stdout).toContain("0 observations");
  });
});
