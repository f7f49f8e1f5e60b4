import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { unsandboxed } from "../../src/agent/sandbox/command-sandbox.js";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { openAgentSession } from "../../src/app/session/open-agent-session.js";
import { drain } from "../helpers/drain.js";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { mulberry32 } from "../helpers/random-vectors.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * A hint of an earlier conversation turn has no path a tool could read: the
 * run uses it by bringing the entry back (the `retrieve_context` call the
 * hint names) or by quoting it. Through the real loop against the fake
 * Messages API, the episode self-tuning retrieval learns from must count it
 * as used, not as waste.
 */
let server: FakeAnthropicServer;
let project: TempProject;
let services: ProjectServices;

/** What the first session's answer said. */
const EARLIER_ANSWER = [
  "The zebra finch quota for the aviary is seven birds per enclosure, counted at the spring census.",
  ...Array.from({ length: 20 }, (_, index) => `Enclosure ${index + 1} keeps its zebra finch count in the aviary ledger, row ${index + 3}.`),
].join("\n");
const QUESTION = "In the previous session, what did you say the zebra finch quota for the aviary is?";

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "README.md": "An aviary.\n" });
});
afterEach(async () => {
  await services.close();
  await server.close();
  project.cleanup();
});

/** Two sessions: the first records EARLIER_ANSWER, the second asks about it and `answer` decides what its model does. */
async function askAboutEarlierAnswer(answer: (prompt: string) => unknown[]): Promise<{ prompt: string; usedKeys: string[] }> {
  const env = {
    ...project.env,
    ANTHROPIC_API_KEY: "test",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_MODEL_MAX_ATTEMPTS: "1",
    SYLK_LEARNING_ENABLED: "true",
  };
  services = openProject({ root: project.root, env });
  // With sampler seed 4 each session's prompt draws the arm that offers what it finds as hints only.
  const open = () => openAgentSession({ services, env, random: mulberry32(4), sandbox: unsandboxed({ state: "off" }) });
  server.enqueue(reply().text(EARLIER_ANSWER));
  const first = open();
  await drain(first.run("Remind me of the zebra finch quota for the aviary.", new AbortController().signal));
  first.close();

  // The model's replies, decided from the prompt its first request carries.
  let prompt = "";
  let replies: unknown[] = [];
  for (let request = 0; request < 2; request++)
    server.enqueue((body) => {
      if (request === 0) {
        const last = body.messages.at(-1);
        prompt =
          typeof last.content === "string" ? last.content : last.content.map((block: { text?: string }) => block.text ?? "").join("\n");
        replies = answer(prompt);
      }
      return replies[request] as never;
    });
  const second = open();
  await drain(second.run(QUESTION, new AbortController().signal));
  second.close();
  const episodes = readFileSync(services.paths.observationLog, "utf8").trim().split("\n");
  return { prompt, usedKeys: (JSON.parse(episodes.at(-1) as string) as { usedKeys: string[] }).usedKeys };
}

/** The first session's answer, offered as a hint: its entry id. */
const entryHint = (prompt: string) =>
  /\[RELATED: turn \d+ · agent_response\b[^\]]*? \| retrieve_context\(entry_id="([^"]+)"\)\]/.exec(prompt);

describe("a hint of an earlier conversation turn", () => {
  it("counts as used when the run brings its entry back with the call the hint names", async () => {
    const { prompt, usedKeys } = await askAboutEarlierAnswer((text) => {
      const entryId = entryHint(text)?.[1] ?? "no-hint";
      return [reply().toolUse("retrieve_context", { entry_id: entryId }), reply().text("It is seven birds per enclosure.")];
    });
    const entryId = entryHint(prompt)?.[1];
    expect(entryId, prompt).toBeDefined();
    expect(usedKeys).toContain(`entry:${entryId}`);
  });

  it("counts as used when the answer quotes it", async () => {
    const { prompt, usedKeys } = await askAboutEarlierAnswer(() => [
      reply().text(`I said: "The zebra finch quota for the aviary is seven birds per enclosure, counted at the spring census."`),
    ]);
    const entryId = entryHint(prompt)?.[1];
    expect(entryId, prompt).toBeDefined();
    expect(usedKeys).toContain(`entry:${entryId}`);
  });

  it("does not count as used when the run neither brings it back nor quotes it", async () => {
    const { prompt, usedKeys } = await askAboutEarlierAnswer(() => [reply().text("I do not remember.")]);
    expect(entryHint(prompt), prompt).not.toBeNull();
    expect(usedKeys).toEqual([]);
  });
});
