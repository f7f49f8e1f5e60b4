import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/agent-events.js";
import { openAgentSession } from "../../../src/app/session/open-agent-session.js";
import type { ProjectServices } from "../../../src/app/project-services.js";
import { ContextRetriever } from "../../../src/context/context-retriever.js";
import { estimateTokens } from "../../../src/tokens/estimate-tokens.js";
import { drain } from "../../helpers/drain.js";
import { messageRequests, reply, type FakeAnthropicServer } from "../../helpers/fake-anthropic-server.js";
import { openModelProject, type ModelProject } from "../../helpers/model-project.js";

/** consult_librarian reaches a long-lived librarian in its own context; the caller gets a bounded ContextShareResponse. */
let server: FakeAnthropicServer;
let services: ProjectServices;
let env: NodeJS.ProcessEnv;
let model: ModelProject;

const AUTH = "export function verifyToken(token: string): boolean {\n  return token.startsWith('sylk_');\n}\n";

beforeEach(async () => {
  const big = Array.from(
    { length: 300 },
    (_, index) => `export const SETTING_${index} = "value number ${index} of the session settings table";`,
  ).join("\n");
  model = await openModelProject({ files: { "src/auth.ts": AUTH, "src/settings.ts": `${big}\n` } });
  ({ server, services, env } = model);
});
afterEach(() => model.close(services));

const systemOf = (body: any): string => (Array.isArray(body.system) ? body.system.map((block: any) => block.text).join("\n") : body.system);
const toolNamesOf = (body: any): string[] => body.tools.map((tool: { name: string }) => tool.name);
const isLibrarian = (body: any) => systemOf(body).includes("## Your role: librarian");

describe("consult_librarian", () => {
  it("asks a librarian with its own prompt and no write, command or delegation tools; the answer and its cited lines come back within budget; a second consultation finds the first in the librarian's window", async () => {
    server.enqueue(
      reply().toolUse("consult_librarian", { query: "Where are tokens verified?", max_tokens: 1_000 }, "toolu_c1"),
      reply().toolUse("grep", { pattern: "verifyToken" }, "toolu_lib_grep"),
      reply().toolUse(
        "share_context",
        {
          answer: "verifyToken in src/auth.ts checks the sylk_ prefix.",
          sources: [{ path: "src/auth.ts", start_line: 1, end_line: 3 }],
          confidence: 0.9,
          completeness: 0.8,
        },
        "toolu_share1",
      ),
      reply().text("Tokens are checked by verifyToken."),
    );
    const session = openAgentSession({ services, env });
    const first = await drain(session.run("How are tokens verified? Ask the librarian.", new AbortController().signal));
    expect(first.result.stopReason).toBe("end_turn");

    const requests = messageRequests(server).map((request) => request.body as any);
    const librarian = requests.filter(isLibrarian);
    // Its grep, then share_context, which ends its run: no closing call re-sends its window.
    expect(librarian).toHaveLength(2);
    const librarianTools = toolNamesOf(librarian[0]);
    expect(librarianTools).toContain("share_context");
    for (const tool of ["edit_file", "write_file", "run_command", "delegate"]) expect(librarianTools).not.toContain(tool);
    expect(JSON.stringify(librarian[0].messages)).toMatch(
      /\[CONSULTATION request [0-9a-f]{8} from engineer-1 · priority normal · answer budget 1,000 tokens\]\\nWhere are tokens verified\?/,
    );

    // The engineer's tool result: the ContextShareResponse, with the cited lines byte for byte, within 1,000 tokens.
    const result = first.events.find((event) => event.type === "tool_result" && event.id === "toolu_c1") as Extract<
      AgentEvent,
      { type: "tool_result" }
    >;
    expect(result.isError).toBeFalsy();
    expect(result.output).toContain("verifyToken in src/auth.ts checks the sylk_ prefix.");
    expect(result.output).toContain(AUTH.trimEnd());
    expect(result.output).toContain("src/auth.ts:1-3");
    expect(result.output).toMatch(/cache: warm/);
    expect(estimateTokens(result.output)).toBeLessThanOrEqual(1_000);
    const start = first.events.find((event) => event.type === "subagent_start") as Extract<AgentEvent, { type: "subagent_start" }>;
    expect(start).toMatchObject({ agentId: "librarian-1", kind: "knowledge" });
    // A knowledge agent's first consultation is announced with the session it is then stored in.
    expect(services.sessions.get(start.sessionId)).toMatchObject({ kind: "knowledge", agentId: "librarian-1" });

    // A second consultation: the same librarian, whose window still holds the first.
    server.enqueue(
      reply().toolUse("consult_librarian", { query: "And who calls it?" }, "toolu_c2"),
      reply().toolUse("share_context", { answer: "Nothing in this project calls verifyToken yet.", sources: [] }, "toolu_share2"),
      reply().text("No callers."),
    );
    await drain(session.run("Who calls it?", new AbortController().signal));
    const second = messageRequests(server)
      .map((request) => request.body as any)
      .filter(isLibrarian)
      .at(-1);
    expect(JSON.stringify(second.messages)).toContain("Where are tokens verified?");
    expect(JSON.stringify(second.messages)).toContain("And who calls it?");
    const knowledge = services.sessions.descendants(first.result.sessionId).filter((child) => child.kind === "knowledge");
    expect(knowledge.map((child) => child.agentId)).toEqual(["librarian-1"]);
    session.close();
  });

  it("keeps the caller's note of a long answer with its secrets masked before it is cut, so no part of a key stays", async () => {
    const token = "ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa";
    // The note keeps the first 2,000 characters: cut first, the token would keep its first 20, too few for any rule.
    const answer = `${"The settings table lists every default. ".repeat(50).slice(0, 1_979)} ${token} is the mirror's token.`;
    server.enqueue(
      reply().toolUse("consult_librarian", { query: "Which token does the mirror use?" }, "toolu_c1"),
      reply().toolUse("share_context", { answer, sources: [] }, "toolu_share"),
      reply().text("The librarian answered."),
    );
    const session = openAgentSession({ services, env });
    const { result } = await drain(session.run("Ask the librarian which token the mirror uses.", new AbortController().signal));
    expect(result.stopReason).toBe("end_turn");
    session.close();
    const notes = services.contentStore.getByTurnRange(result.sessionId, 0, 0).filter((entry) => entry.metadata.kind === "consultation");
    expect(notes).toHaveLength(1);
    expect(notes[0]?.content).toContain("The settings table");
    expect(notes[0]?.content).not.toContain(token.slice(0, 8));
  });

  it("fits a large share into the caller's budget and keeps what did not fit behind a reference", async () => {
    server.enqueue(
      reply().toolUse("consult_librarian", { query: "Show me the settings.", max_tokens: 400 }, "toolu_big"),
      (body: any) =>
        (isLibrarian(body)
          ? reply().toolUse("share_context", {
              answer: "All settings are in src/settings.ts.",
              sources: [{ path: "src/settings.ts", start_line: 1, end_line: 300 }],
            })
          : reply().text("?")) as never,
      reply().text("Done."),
    );
    const session = openAgentSession({ services, env });
    const { events } = await drain(session.run("What settings are there?", new AbortController().signal));
    session.close();
    const result = events.find((event) => event.type === "tool_result" && event.id === "toolu_big") as Extract<
      AgentEvent,
      { type: "tool_result" }
    >;
    expect(estimateTokens(result.output)).toBeLessThanOrEqual(400);
    expect(result.output).toMatch(/truncated: true/);
    const refId = /retrieve_context\(ref_id="([0-9a-f]+)"\)/.exec(result.output)?.[1];
    expect(refId).toBeDefined();
    const retrieved = await new ContextRetriever(services.contentStore).retrieve({ refId: refId as string, maxTokens: 10_000 });
    expect(retrieved.entries.map((entry) => entry.content).join("")).toContain(
      'export const SETTING_299 = "value number 299 of the session settings table";',
    );
  });

  it("a librarian that stops without share_context is reminded once; then everything it said is the answer, confidence not stated", async () => {
    server.enqueue(
      reply().toolUse("consult_librarian", { query: "Quick question." }, "toolu_q"),
      reply().text("It is in src/auth.ts."),
      reply().text("Still src/auth.ts."),
      reply().text("Thanks."),
    );
    const session = openAgentSession({ services, env });
    const { events } = await drain(session.run("Ask.", new AbortController().signal));
    session.close();
    const librarian = messageRequests(server)
      .map((request) => request.body as any)
      .filter(isLibrarian);
    expect(librarian).toHaveLength(2);
    expect(JSON.stringify(librarian[1].messages)).toContain("You have not called share_context");
    const result = events.find((event) => event.type === "tool_result" && event.id === "toolu_q") as Extract<
      AgentEvent,
      { type: "tool_result" }
    >;
    // Its first, substantive answer is kept beside its reply to the reminder.
    expect(result.output).toContain("It is in src/auth.ts.");
    expect(result.output).toContain("Still src/auth.ts.");
    expect(result.output).toMatch(/confidence \(agent.s estimate\): not stated/);
  });

  it("keeps a plain-text answer when the reminder's run fails", async () => {
    server.enqueue(
      reply().toolUse("consult_librarian", { query: "Where is the token check?" }, "toolu_q"),
      reply().text("verifyToken in src/auth.ts checks the sylk_ prefix."),
      reply().status(500, { shouldRetry: false }),
      reply().text("Thanks."),
    );
    const session = openAgentSession({ services, env: { ...env, SYLK_MODEL_MAX_ATTEMPTS: "1" } });
    const { events } = await drain(session.run("Ask.", new AbortController().signal));
    session.close();
    const result = events.find((event) => event.type === "tool_result" && event.id === "toolu_q") as Extract<
      AgentEvent,
      { type: "tool_result" }
    >;
    expect(result.isError).toBeFalsy();
    expect(result.output).toContain("verifyToken in src/auth.ts checks the sylk_ prefix.");
  });
});
