import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HandoffPlan, SuccessorPlan } from "../../../src/agent/quality-hooks.js";
import { SessionRecorder } from "../../../src/agent/session-recorder.js";
import { HandoffController } from "../../../src/handoff/session/handoff-controller.js";
import { ProfileBook } from "../../../src/handoff/session/profile-book.js";
import { openProject, type ProjectServices } from "../../../src/app/project-services.js";
import { configSchema } from "../../../src/config/schema.js";
import type { AgentType } from "../../../src/roles/agent-types.js";
import { estimateTokens } from "../../../src/tokens/estimate-tokens.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

let project: TempProject;
let services: ProjectServices;
let recorder: SessionRecorder;

beforeEach(async () => {
  project = createTempProject();
  services = openProject({ root: project.root, env: project.env });
  recorder = SessionRecorder.start(
    { sessions: services.sessions, contentStore: services.contentStore, identity: { agentId: "engineer-1", agentType: "engineer" } },
    { title: "Rename the totals", provider: "anthropic", model: "claude-fake" },
  );
  await recorder.recordPrompt("Rename the totals", recorder.nextTurn());
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

function controllerFor(agentType: AgentType): HandoffController {
  return new HandoffController({
    repository: services.handoffs,
    profiles: new ProfileBook(services.handoffs, () => undefined, "project"),
    contentStore: services.contentStore,
    sessionId: recorder.sessionId,
    agentType,
    model: "claude-fake",
    windowTokens: 100_000,
    config: configSchema.parse({}).handoff,
    countTokens: estimateTokens,
    random: () => 0.5,
  });
}

function successorIn(plan: HandoffPlan | undefined): SuccessorPlan {
  if (plan?.action !== "handoff") throw new Error(`expected a handoff plan, got ${JSON.stringify(plan)}`);
  return plan;
}

const handoffEntries = () =>
  services.contentStore.getByTurnRange(recorder.sessionId, 0, 100).filter((entry) => entry.contentType === "agent_handoff");

describe("the handoff controller answers with a plan", () => {
  it("opens the session's first instance when it is made, without a window or a recorder to attach", () => {
    const controller = controllerFor("engineer");
    expect(controller.instance).toEqual({ agentId: "engineer-1", agentType: "engineer", preamble: undefined });
    expect(services.handoffs.instances(recorder.sessionId).map((instance) => [instance.agentId, instance.endReason])).toEqual([
      ["engineer-1", null],
    ]);
    // Nothing fires on a young curve: no plan, but the prediction the status line shows.
    expect(controller.planFor(1, 4_000)).toBeUndefined();
    expect(controller.predictedQuality()).toEqual(expect.any(Number));
    expect(services.handoffs.firings(recorder.sessionId)).toEqual([]);
  });

  it("plans a handoff without storing it, and commits it once the window's reference exists", async () => {
    const controller = controllerFor("engineer");
    controller.promptStarted("Rename the totals");
    controller.requestHandoff();
    const plan = successorIn(controller.planFor(1, 30_000));
    expect(plan).toMatchObject({
      action: "handoff",
      fromAgent: "engineer-1",
      toAgent: "engineer-2",
      handoffIndex: 1,
      reason: "forced",
      contextTokensBefore: 30_000,
    });
    expect(plan.keepTokens).toBeGreaterThanOrEqual(0);
    expect(plan.keepTokens).toBeLessThan(30_000);
    expect(services.handoffs.firings(recorder.sessionId)).toMatchObject([
      { action: "handoff", condition: "forced", turn: 1, contextTokens: 30_000 },
    ]);
    // A plan is only a plan: the state is stored, and the chain moves on, when the loop commits it.
    expect(handoffEntries()).toEqual([]);
    expect(controller.instance.agentId).toBe("engineer-1");
    expect(recorder.rows().every((row) => row.evictedBy === null)).toBe(true);

    const successor = await plan.commit("abcd1234");
    expect(successor).toMatchObject({ agentId: "engineer-2", agentType: "engineer" });
    expect(successor.preamble).toMatch(/^\[Handoff 1: you are engineer-2/);
    expect(successor.preamble).toContain('retrieve_context(ref_id="abcd1234")');
    expect(controller.instance).toEqual(successor);
    expect(services.handoffs.instances(recorder.sessionId).map((instance) => [instance.agentId, instance.endReason])).toEqual([
      ["engineer-1", "handoff"],
      ["engineer-2", null],
    ]);
    expect(handoffEntries()).toHaveLength(1);
    expect(handoffEntries()[0]?.metadata).toMatchObject({ from_agent: "engineer-1", to_agent: "engineer-2", reference_id: "abcd1234" });

    // A controller made again for the session goes on with the new instance, its state its window's preamble.
    expect(controllerFor("engineer").instance).toEqual(successor);
  });

  it("plans an eviction down to the learned prepared size for a knowledge agent, and nothing when the window is already that small", () => {
    const controller = controllerFor("librarian");
    expect(controller.action).toBe("evict");
    controller.requestHandoff();
    const plan = controller.planFor(1, 60_000);
    expect(plan).toEqual({ action: "evict", targetTokens: expect.any(Number) });
    const prepared = 60_000 - (plan?.action === "evict" ? plan.targetTokens : 0);
    expect(prepared).toBeGreaterThan(0);
    expect(prepared).toBeLessThan(60_000);

    controller.requestHandoff();
    expect(controller.planFor(2, prepared)).toBeUndefined();
    // Both firings are recorded with their action, whatever came of them.
    expect(services.handoffs.firings(recorder.sessionId).map((firing) => [firing.turn, firing.action, firing.condition])).toEqual([
      [1, "evict", "forced"],
      [2, "evict", "forced"],
    ]);
    expect(services.handoffs.instances(recorder.sessionId).map((instance) => instance.agentId)).toEqual(["librarian-1"]);
  });
});
