import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createProvider } from "../../src/llm/create-provider.js";
import { defaultConfig } from "../../src/config/schema.js";
import type { ModelProvider, ModelRequest, ModelStreamEvent } from "../../src/llm/model-types.js";
import { messageRequests, reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";

const TOKEN = "ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa";
const URL = "postgres://admin:Sup3rS3cretPw@db.internal/app";

let server: FakeAnthropicServer;
beforeEach(async () => {
  server = await startFakeAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

/** The model as Sylk makes it: `createProvider`, the real SDK, the fake Messages API on loopback. */
function model(): ModelProvider {
  const provider = createProvider(
    { ...defaultConfig().model, maxAttempts: 1 },
    { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.baseUrl },
  ).provider;
  if (!provider) throw new Error("no provider");
  return provider;
}

async function complete(provider: ModelProvider, request: ModelRequest): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of provider.stream(request)) events.push(event);
  return events;
}

/** A conversation as a session stored before masking existed, or a caller that forgot, would send it. */
const request: ModelRequest = {
  system: `You are Sylk. The project's AGENTS.md says: deploy with ${TOKEN}.`,
  systemContext: `Known fact: the database is ${URL}`,
  messages: [
    { role: "user", content: [{ type: "text", text: `Use ${TOKEN}` }] },
    {
      role: "assistant",
      content: [
        {
          type: "tool_use",
          id: "toolu_1",
          name: "write_file",
          input: { path: "a.ts", content: `const url = "${URL}";`, password: "hunter2hunter2" },
        },
      ],
    },
    { role: "user", content: [{ type: "tool_result", toolUseId: "toolu_1", content: `Wrote ${URL}`, isError: false }] },
  ],
  tools: [],
  maxTokens: 256,
};

describe("every model Sylk makes masks what it sends", () => {
  it("masks the system prompt, the request's context and every block, and leaves the answer as the model gave it", async () => {
    server.enqueue(reply().toolUse("write_file", { path: "b.ts", content: TOKEN }, "toolu_2"));
    const provider = model();
    const events = await complete(provider, request);
    const sent = JSON.stringify(messageRequests(server)[0]?.body);
    expect(sent).not.toContain(TOKEN);
    expect(sent).not.toContain("Sup3rS3cretPw");
    expect(sent).not.toContain("hunter2hunter2");
    expect(sent).toContain("deploy with [REDACTED:github-token]");
    expect(sent).toContain('"password":"[REDACTED:assigned-secret]"');
    // The tool runs with what the model asked for.
    const complete_ = events.find((event) => event.type === "complete");
    expect(complete_?.type === "complete" && complete_.response.content[0]).toMatchObject({
      type: "tool_use",
      input: { path: "b.ts", content: TOKEN },
    });
    // The caller's request is untouched.
    expect(request.messages[0]?.content[0]).toEqual({ type: "text", text: `Use ${TOKEN}` });
  });

  it("masks the same blocks again when they are sent again", async () => {
    server.enqueue(reply().text("one"), reply().text("two"));
    const provider = model();
    await complete(provider, request);
    await complete(provider, {
      ...request,
      messages: [
        ...request.messages,
        { role: "assistant", content: [{ type: "text", text: "ok" }] },
        { role: "user", content: [{ type: "text", text: "again" }] },
      ],
    });
    const [first, second] = messageRequests(server).map((sent) => JSON.stringify(sent.body));
    expect(second).not.toContain(TOKEN);
    expect(second).toContain(JSON.stringify(JSON.parse(first as string).messages[1]));
  });
});
