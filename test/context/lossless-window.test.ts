import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent, AgentResult } from "../../src/agent/agent-events.js";
import { openAgentSession } from "../../src/app/session/open-agent-session.js";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { estimateInputTokens, reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * Small, so eviction runs hundreds of times. The engineer's fixed prefix (its
 * system prompt and 18 tool schemas, the team's included) is about 7,500
 * tokens and the answer keeps a quarter of the window: 16,000 leaves room for the conversation and a retrieval.
 */
const WINDOW = 16_000;
const FILES = 10;
const TURNS = Number(process.env.LOSSLESS_TURNS ?? 200);

let project: TempProject;
let server: FakeAnthropicServer;
let services: ProjectServices;

/** ~40 lines of content no other file has, so retrieval can be checked byte for byte. */
function fileContent(index: number): string {
  return `${Array.from({ length: 40 }, (_, line) => `record ${index}.${line}: value-${(index * 7919 + line * 104_729) % 1_000_003} ok`).join("\n")}\n`;
}

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject();
  for (let index = 0; index < FILES; index++) project.write(`data/file${index}.txt`, fileContent(index));
  const env = {
    ...project.env,
    ANTHROPIC_API_KEY: "test",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_CONTEXT_WINDOW_TOKENS: String(WINDOW),
    SYLK_AGENT_MAX_TURNS: "1000",
  };
  services = openProject({ root: project.root, env });
  const run = services.indexer.run();
  for (let step = await run.next(); !step.done; step = await run.next());
});
afterEach(async () => {
  await services.close();
  await server.close();
  project.cleanup();
});

function firstMarkerRefId(body: any): string | undefined {
  for (const message of body.messages) {
    for (const block of message.content) {
      const match = block.type === "text" ? /retrieve_context\(ref_id="([0-9a-f]+)"\)/.exec(block.text) : null;
      if (match) return match[1];
    }
  }
  return undefined;
}

describe("lossless context virtualization", () => {
  it("keeps every request inside a small window over hundreds of turns and brings evicted text back byte for byte", async () => {
    for (let turn = 0; turn < TURNS; turn++) {
      server.enqueue(reply().toolUse("read_file", { path: `data/file${turn % FILES}.txt` }, `read_${turn}`));
    }
    let requestedRef: string | undefined;
    server.enqueue((body) => {
      requestedRef = firstMarkerRefId(body);
      return reply().toolUse("retrieve_context", { ref_id: requestedRef ?? "missing", max_tokens: 3000 }, "retrieve_1");
    });
    server.enqueue(reply().text("All records reviewed."));

    const session = openAgentSession({ services, env: { ...project.env, ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.baseUrl } });
    const events: AgentEvent[] = [];
    const run = session.run("Review every data file, one at a time.", new AbortController().signal);
    let step = await run.next();
    while (!step.done) {
      events.push(step.value);
      step = await run.next();
    }
    const result = step.value as AgentResult;
    expect(result).toMatchObject({ stopReason: "end_turn", turns: TURNS + 2, response: "All records reviewed." });

    // No request exceeded the window (input as the API counts it, plus the room kept for the answer).
    for (const request of server.requests) {
      expect(estimateInputTokens(request.body) + request.body.max_tokens).toBeLessThanOrEqual(WINDOW);
    }
    const evictions = events.filter((event) => event.type === "context_eviction");
    expect(evictions.length).toBeGreaterThan(10);
    expect(server.requests.at(-2)?.body.messages.some((message: any) => JSON.stringify(message).includes("[CTX-REF:"))).toBe(true);

    // The model asked for the first marker it saw: the tool result holds the evicted text exactly.
    expect(requestedRef).toMatch(/^[0-9a-f]{8}$/);
    const reference = services.contentStore.getReference(requestedRef as string);
    expect(reference).toBeDefined();
    const retrieved = server.requests
      .at(-1)
      ?.body.messages.at(-1)
      .content.find((block: any) => block.type === "tool_result");
    expect(retrieved.is_error).toBe(false);
    const originals = services.contentStore.getByIds(reference?.contentIds ?? []).filter((entry) => entry.contentType === "tool_result");
    expect(originals.length).toBeGreaterThan(0);
    // The window is small: the retrieval brings back what fits of the reference, each entry whole. A tool result among
    // them is the original byte for byte.
    const firstOriginal = originals.map((entry) => entry.content).find((content) => retrieved.content.includes(content)) as string;
    expect(firstOriginal).toBeDefined();
    // ...and it is what the model saw when the file was first read.
    const seenBefore = server.requests.some((request) =>
      request.body.messages.some((message: any) =>
        message.content.some((block: any) => block.type === "tool_result" && block.content === firstOriginal),
      ),
    );
    expect(seenBefore).toBe(true);
    expect(firstOriginal).toMatch(/record \d+\.0: value-\d+ ok/);
  });
});
