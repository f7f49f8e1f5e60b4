import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionRecorder } from "../../src/agent/session-recorder.js";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { evictionConfigFor } from "../../src/context/create-context-manager.js";
import { TokenUsagePolicy } from "../../src/context/degradation-policy.js";
import { VirtualContextManager } from "../../src/context/virtual-context-manager.js";
import type { ModelResponse } from "../../src/llm/model-types.js";
import { CalibratedTokenCounter } from "../../src/llm/token-counter.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * The two plans of the handoff controller, as the window carries them out
 * on the window it has just prepared: a successor's window is fitted from
 * what the trim left, not built from the conversation again, so it must be
 * the window `prepare` builds from the stored rows; a learned eviction
 * frees what it was asked to, recorded like any other.
 */
let project: TempProject;
let services: ProjectServices;
let recorder: SessionRecorder;

const FIXED = 2_000;
const STATE = "[Handoff 1: you are engineer-2, taking over from engineer-1]\n## Original prompt (verbatim)\nRename the totals";

beforeEach(async () => {
  project = createTempProject();
  services = openProject({ root: project.root, env: project.env });
  recorder = SessionRecorder.start(
    { sessions: services.sessions, contentStore: services.contentStore, identity: { agentId: "engineer-1", agentType: "engineer" } },
    { title: "plans", provider: "test", model: "test" },
  );
  for (let index = 0; index < 24; index++) {
    const prompt = await recorder.recordPrompt(`Step ${index}: check the totals of file ${index}.`, recorder.nextTurn());
    await recorder.recordResponse(recorder.nextTurn(), answer(`File ${index} holds legacyTotal ${index * 7919}. `.repeat(40)), prompt);
  }
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

function answer(text: string): ModelResponse {
  return {
    content: [{ type: "text", text }],
    stopReason: "end_turn",
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    model: "test",
  };
}

function windowOf(agentId: string, preamble?: string, tokenCounter = new CalibratedTokenCounter()): VirtualContextManager {
  const { strategy, preserveTypes } = evictionConfigFor("recency");
  const manager = new VirtualContextManager({
    contentStore: services.contentStore,
    tokenCounter,
    policy: new TokenUsagePolicy(0.75, 0.5),
    strategy,
    windowTokens: 100_000,
    preserveRecentTurns: 2,
    preserveTypes,
  });
  manager.setAgent(agentId, "engineer");
  manager.setPreamble(preamble);
  return manager;
}

describe("the window carries out the handoff controller's plans", () => {
  it("trims a handoff's window to the newest turns behind one marker, and fits the successor's as prepare would from the rows", async () => {
    const manager = windowOf("engineer-1");
    const prepared = await manager.prepare(recorder, FIXED);
    expect(prepared.evictions).toEqual([]);
    const before = prepared.context.items.length;

    const trimmed = await manager.trim(recorder, prepared, 3_000);
    const reference = trimmed.reference;
    expect(reference?.agentId).toBe("engineer-1");
    expect(trimmed.context.items[0]?.reference?.id).toBe(reference?.id);
    const kept = trimmed.context.items.slice(1);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.reduce((sum, item) => sum + item.tokens, 0)).toBeLessThanOrEqual(3_000);
    expect(kept.length + 1).toBeLessThan(before);
    // The conversation records what left; every entry behind the marker is still stored.
    const evicted = recorder.rows().filter((row) => row.evictedBy === reference?.id);
    expect(evicted.length).toBeGreaterThan(0);
    expect(reference?.contentIds).toEqual(expect.arrayContaining(evicted.flatMap((row) => row.entryIds)));

    manager.setAgent("engineer-2", "engineer");
    manager.setPreamble(STATE);
    const successor = await manager.prepareSuccessor(recorder, trimmed);
    expect(successor.context.agentId).toBe("engineer-2");
    expect(successor.messages[0]?.content).toEqual([{ type: "text", text: STATE }]);

    const rebuilt = await windowOf("engineer-2", STATE).prepare(recorder, FIXED);
    expect(successor.messages).toEqual(rebuilt.messages);
    expect(successor.usedTokens).toBe(rebuilt.usedTokens);
    expect(successor.usedTokens).toBeLessThan(prepared.usedTokens / 2);
  });

  it("trims nothing when the whole window fits in what the successor keeps", async () => {
    const manager = windowOf("engineer-1");
    const prepared = await manager.prepare(recorder, FIXED);
    const trimmed = await manager.trim(recorder, prepared, prepared.context.totalTokens);
    expect(trimmed.reference).toBeUndefined();
    expect(trimmed.context).toBe(prepared.context);
    expect(recorder.rows().every((row) => row.evictedBy === null)).toBe(true);
  });

  it("frees a learned eviction's target from the prepared window, the newest turns kept", async () => {
    const manager = windowOf("librarian-1");
    const prepared = await manager.prepare(recorder, FIXED);
    const target = Math.floor(prepared.context.totalTokens / 2);
    const evicted = await manager.evictFrom(recorder, prepared, target);
    expect(evicted.evictions).toHaveLength(1);
    const reference = evicted.evictions[0];
    expect(prepared.usedTokens - evicted.usedTokens).toBeGreaterThanOrEqual(target - manager.markerTokens());
    expect(evicted.context.items.at(-1)?.text).toContain("File 23 holds");
    expect(recorder.rows().filter((row) => row.evictedBy === reference?.id).length).toBeGreaterThan(0);
    // Below the token policy's trigger, the next window is the evicted one, marker and all.
    const next = await manager.prepare(recorder, FIXED);
    expect(next.evictions).toEqual([]);
    expect(next.messages).toEqual(evicted.messages);
  });

  it("counts an instance's preamble when it starts: told the same instance at the next run, the window keeps that count", () => {
    const counter = new CalibratedTokenCounter();
    const manager = windowOf("engineer-2", STATE, counter);
    const counted = manager.preambleTokens;
    counter.calibrate(1_000, 2_000);
    manager.setPreamble(STATE);
    expect(manager.preambleTokens).toBe(counted);
    manager.setPreamble(`${STATE}\n`);
    expect(manager.preambleTokens).toBeGreaterThan(counted);
    manager.setPreamble(undefined);
    expect(manager.preambleTokens).toBe(0);
  });
});
