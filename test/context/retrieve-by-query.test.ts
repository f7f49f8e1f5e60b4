import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentSession } from "../../src/app/session/agent-session-types.js";
import { openAgentSession } from "../../src/app/session/open-agent-session.js";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * The window of the case as reported. The engineer's tools no longer fit in
 * it beside room for the answer, so the archivalist (which reads files and
 * retrieves history) runs the conversation.
 */
const WINDOW = 8_000;
const NEEDLE_LINE = "alpha line 130: NEEDLE-00 the launch code is marmalade; filler 3945";

let project: TempProject;
let server: FakeAnthropicServer;
let services: ProjectServices;
let env: NodeJS.ProcessEnv;

function fileOf(prefix: string, count: number): string {
  return `${Array.from({ length: count }, (_, line) => `${prefix} line ${line}: filler ${(line * 7919) % 10_007}`).join("\n")}\n`;
}

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject();
  // About 2,300 tokens, the needle past its middle: more than a retrieval may bring back whole in this window.
  project.write("docs/big.txt", fileOf("alpha", 240).replace(/^alpha line 130: .*$/m, NEEDLE_LINE));
  for (let index = 0; index < 5; index++) project.write(`docs/other${index}.txt`, fileOf(`other${index}`, 70));
  env = { ...project.env, ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_CONTEXT_WINDOW_TOKENS: String(WINDOW) };
  services = openProject({ root: project.root, env });
  const indexing = services.indexer.run();
  for (let step = await indexing.next(); !step.done; step = await indexing.next());
});
afterEach(async () => {
  await services.close();
  await server.close();
  project.cleanup();
});

async function ask(session: AgentSession, prompt: string): Promise<void> {
  const run = session.run(prompt, new AbortController().signal);
  for (let step = await run.next(); !step.done; step = await run.next());
}

/** The rendered retrieval's entries, by the id in each one's separator line. */
function entriesOf(output: string): Array<{ id: string; header: string; body: string }> {
  return output
    .split(/^----- /m)
    .slice(1)
    .map((part) => {
      const [header = "", ...body] = part.split("\n");
      return { id: /entry ([0-9a-f-]{36})/.exec(header)?.[1] ?? "", header, body: body.join("\n") };
    });
}

describe("retrieve_context by query in a small window", () => {
  it("answers with the evicted file that holds the needle, cut around it, then the current prompt, and never with the call", async () => {
    server.enqueue(reply().toolUse("read_file", { path: "docs/big.txt" }, "read_big"), reply().text("Read it."));
    for (let index = 0; index < 5; index++)
      server.enqueue(reply().toolUse("read_file", { path: `docs/other${index}.txt` }, `read_${index}`), reply().text("Read it."));
    server.enqueue(reply().toolUse("retrieve_context", { query: "NEEDLE-00" }, "retrieve_1"), reply().text("marmalade"));

    const session = openAgentSession({ services, env, agentType: "archivalist" });
    await ask(session, "Read docs/big.txt.");
    for (let index = 0; index < 5; index++) await ask(session, `Read docs/other${index}.txt.`);
    await ask(session, "Which line of the docs said NEEDLE-00?");

    // The file was read once, and had left the window behind a marker before the retrieval.
    const sessionId = session.sessionId;
    const rows = services.sessions.messageRows(sessionId);
    const fileResult = services.contentStore
      .getByTurnRange(sessionId, 0, 1_000)
      .find((entry) => entry.contentType === "tool_result" && entry.content.includes(NEEDLE_LINE));
    expect(fileResult).toBeDefined();
    const fileRow = rows.find((row) => row.entryIds.includes(fileResult?.id as string));
    expect(fileRow?.evictedBy).toEqual(expect.any(String));

    const retrieved = server.requests
      .at(-1)
      ?.body.messages.at(-1)
      .content.find((block: any) => block.type === "tool_result" && block.tool_use_id === "retrieve_1");
    expect(retrieved.is_error).toBe(false);
    const entries = entriesOf(retrieved.content);
    // First the evicted file, cut to the lines around the match (it is larger than the budget), the needle among them.
    expect(entries[0]?.id).toBe(fileResult?.id);
    expect(entries[0]?.header).toMatch(/tool_result \(read_file\) .* lines \d+-\d+ of \d+/);
    expect(entries[0]?.body).toContain(NEEDLE_LINE);
    expect(retrieved.content).toContain(`retrieve_context(entry_id="${fileResult?.id}")`);
    // The current prompt also holds the needle's name, but the window still holds it: it comes after the file, named among
    // the matches that did not fit.
    const currentPrompt = services.contentStore
      .getByTurnRange(sessionId, 0, 1_000)
      .find((entry) => entry.contentType === "user_prompt" && entry.content === "Which line of the docs said NEEDLE-00?");
    expect(retrieved.content).toMatch(new RegExp(`\\(1 more match did not fit: entry ${currentPrompt?.id} \\(turn \\d+ · user_prompt`));
    // The message that made the call holds the query; it is not an answer.
    const callRow = rows.find((row) => row.message.content.some((block) => block.type === "tool_use" && block.id === "retrieve_1"));
    expect(callRow).toBeDefined();
    for (const id of callRow?.entryIds ?? []) expect(entries.map((entry) => entry.id)).not.toContain(id);
  });
});
