import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/agent-events.js";
import { openAgentSession } from "../../../src/app/session/open-agent-session.js";
import type { ProjectServices } from "../../../src/app/project-services.js";
import { seededUniform } from "../../../src/stats/random-draws.js";
import { estimateTokens } from "../../../src/tokens/estimate-tokens.js";
import { drain } from "../../helpers/drain.js";
import { messageRequests, reply, type FakeAnthropicServer } from "../../helpers/fake-anthropic-server.js";
import { openModelProject, type ModelProject } from "../../helpers/model-project.js";

/** With agent.type = guide, each prompt is routed, recorded, and its outcome teaches the affinity. */
let server: FakeAnthropicServer;
let services: ProjectServices;
let env: NodeJS.ProcessEnv;
let model: ModelProject;

beforeEach(async () => {
  model = await openModelProject({
    files: { "src/greet.ts": "export function greet(name: string) {\n  return `hello ${name}`;\n}\n" },
    env: { SYLK_AGENT_TYPE: "guide" },
  });
  ({ server, services, env } = model);
});
afterEach(() => model.close(services));

const systemOf = (body: any): string => (Array.isArray(body.system) ? body.system.map((block: any) => block.text).join("\n") : body.system);
const roleOf = (body: any) => /## Your role: (\w+)/.exec(systemOf(body))?.[1];

describe("the guide", () => {
  it("routes a prompt to an agent that answers it verbatim, records the decision, and learns from the next prompt how it went", async () => {
    const session = openAgentSession({ services, env, random: seededUniform(3) });
    server.enqueue(
      reply().toolUse("route_to_agent", { agent: "engineer", confidence: 0.8, reasoning: "It asks for a code change." }, "toolu_route"),
      reply().text("greet now says Hello (src/greet.ts:2)."),
    );
    const first = await drain(session.run("Make greet say Hello.", new AbortController().signal));
    expect(first.result.response).toBe("greet now says Hello (src/greet.ts:2).");
    const [guideRequest, engineerRequest] = messageRequests(server).map((request) => request.body as any);
    expect(roleOf(guideRequest)).toBe("guide");
    // route_to_agent is how the guide answers, so it is always sent; its routing history is named by find_tools.
    const guideTools: Array<{ name: string; description: string }> = guideRequest.tools;
    expect(guideTools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["route_to_agent", "find_tools"]));
    expect(guideTools.find((tool) => tool.name === "find_tools")?.description).toMatch(/Available to load: .*get_routing_history/);
    expect(JSON.stringify(guideRequest.messages)).toMatch(/\[ROUTING · context all · agents ranked by a draw/);
    expect(JSON.stringify(guideRequest.messages)).toContain("engineer: affinity 0.50, n = 0");
    // The engineer gets the prompt as the user wrote it, not the guide's routing block.
    expect(roleOf(engineerRequest)).toBe("engineer");
    const engineerPrompt = JSON.stringify(engineerRequest.messages[0]);
    expect(engineerPrompt).toContain("Make greet say Hello.");
    expect(engineerPrompt).not.toContain("[ROUTING");
    // Only two model calls: the routed answer is the answer, with no second guide call to repeat it.
    expect(messageRequests(server)).toHaveLength(2);
    const start = first.events.find((event) => event.type === "subagent_start") as Extract<AgentEvent, { type: "subagent_start" }>;
    expect(start).toMatchObject({ agentType: "engineer", kind: "routed" });
    // Announced with the routed conversation's own session, and its answer counted as every sub-agent's is.
    expect(services.sessions.get(start.sessionId)).toMatchObject({ parentSessionId: first.result.sessionId, kind: "routed" });
    expect(first.events.find((event) => event.type === "subagent_end")).toMatchObject({
      answerTokens: estimateTokens("greet now says Hello (src/greet.ts:2)."),
      truncated: false,
    });

    const routing = services.routing;
    const [decision] = routing.history({ limit: 10 });
    expect(decision).toMatchObject({
      selectedAgent: "engineer",
      confidence: 0.8,
      reasoning: "It asks for a code change.",
      userQuery: "Make greet say Hello.",
      outcome: null,
      contextId: "all",
    });

    // A follow-up (not a correction) within the window: completed with a follow-up, 0.5.
    server.enqueue(reply().text("You're welcome."));
    const second = await drain(session.run("Thanks. Also, is there a test for it?", new AbortController().signal));
    expect(second.result.stopReason).toBe("end_turn");
    expect(routing.history({ limit: 10 })[0]?.outcome).toBe(0.5);
    const affinity = routing.affinity("engineer", "all");
    expect(affinity?.alpha).toBeCloseTo(1 * 0.995 + 0.5, 10);
    expect(affinity?.beta).toBeCloseTo(1 * 0.995 + 0.5, 10);
    expect(affinity?.observations).toBe(1);
    // The next routing block shows what was learned.
    expect(JSON.stringify(messageRequests(server).at(-1)?.body.messages)).toContain("engineer: affinity 0.50, n = 1");
    session.close();
    // The routed conversation is a child of the guide's session.
    expect(services.sessions.descendants(first.result.sessionId).map((child) => `${child.kind}:${child.agentType}`)).toEqual([
      "routed:engineer",
    ]);
  });

  it("a routed agent that fails is a 0 outcome, and the guide is told so and may answer itself", async () => {
    const session = openAgentSession({ services, env, random: seededUniform(5) });
    server.enqueue(
      reply().toolUse("route_to_agent", { agent: "librarian", confidence: 0.6, reasoning: "A question about the code." }, "toolu_route"),
      reply().status(400, { errorType: "invalid_request_error", message: "bad request" }),
      reply().text("I will answer myself: greet is in src/greet.ts."),
    );
    const { result, events } = await drain(session.run("Where is greet?", new AbortController().signal));
    expect(result.response).toBe("I will answer myself: greet is in src/greet.ts.");
    expect(events.find((event) => event.type === "tool_result" && event.id === "toolu_route")).toMatchObject({ isError: true });
    const routing = services.routing;
    expect(routing.history({ limit: 1 })[0]?.outcome).toBe(0);
    expect(routing.affinity("librarian", "all")).toMatchObject({ observations: 1 });
    expect(routing.affinity("librarian", "all")?.beta).toBeCloseTo(0.995 + 1, 10);
    session.close();
  });
});
