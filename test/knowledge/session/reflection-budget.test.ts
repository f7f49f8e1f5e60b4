import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../../src/app/project-services.js";
import {
  extractiveReflectionTokens,
  ObservationBuffer,
  type ObservationSettings,
} from "../../../src/knowledge/session/observation-buffer.js";
import type { ModelProvider } from "../../../src/llm/model-types.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

/** How reflections are kept within the memory's budget: the extractive reflector's single reflection, and consolidation. */
let project: TempProject;
let services: ProjectServices;

beforeEach(() => {
  project = createTempProject();
  services = openProject({ root: project.root, env: project.env });
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

async function note(sessionId: string, contentType: "observation" | "reflection", content: string, metadata: Record<string, unknown>) {
  await services.contentStore.indexContents([
    { sessionId, agentId: "observer", agentType: "observer", contentType, content, turnNumber: 0, metadata },
  ]);
}

async function pass(sessionId: string, settings: ObservationSettings, observer?: ModelProvider) {
  const reports: string[] = [];
  const buffer = new ObservationBuffer({
    store: services.contentStore,
    sessionId,
    rows: () => [],
    observer,
    settings,
    report: (m) => reports.push(m),
  });
  buffer.signal();
  await buffer.settled();
  return reports;
}

/** A model that answers every request with `answer`. */
function fakeObserver(answer: string): ModelProvider {
  return {
    name: "fake",
    model: "observer-1",
    contextWindow: 100_000,
    async *stream() {
      yield {
        type: "complete",
        response: {
          content: [{ type: "text", text: answer }],
          stopReason: "end_turn",
          usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
          model: "observer-1",
        },
      } as const;
    },
  };
}

const lines = (label: string, count: number) =>
  Array.from({ length: count }, (_, index) => `- User: ${label} fact ${index} names the ${label}${index} module and its owner.`).join("\n");

describe("reflections within the memory's budget", () => {
  it("an extractive reflection keeps the budget less a full set of observations, or its cap when the budget is not known", () => {
    expect(extractiveReflectionTokens({ messageTokenThreshold: 1_000, observationTokenThreshold: 2_000, memoryTokenBudget: 8_000 })).toBe(
      6_000,
    );
    expect(extractiveReflectionTokens({ messageTokenThreshold: 1_000, observationTokenThreshold: 2_000, memoryTokenBudget: 2_100 })).toBe(
      200,
    );
    expect(extractiveReflectionTokens({ messageTokenThreshold: 1_000, observationTokenThreshold: 2_000 })).toBe(2_400);
  });

  it("the extractive reflector chooses one reflection again from itself and the new observations, within its share, and the rest go", async () => {
    await note("s1", "reflection", lines("older", 40), { generation: 1, last_ordinal: 9 });
    await note("s1", "observation", lines("newer", 140), { last_ordinal: 30 });
    await pass("s1", { messageTokenThreshold: 1_000, observationTokenThreshold: 2_000, memoryTokenBudget: 3_000 });

    expect(services.contentStore.recentOfType("s1", "observation", 10)).toEqual([]);
    const reflections = services.contentStore.recentOfType("s1", "reflection", 10);
    expect(reflections).toHaveLength(1);
    const [only] = reflections;
    expect(only?.metadata).toMatchObject({ generation: 2, last_ordinal: 30, condensed: 2 });
    expect(only?.tokenCount).toBeLessThanOrEqual(1_000);
    // Both stretches keep a part: the older reflection's lines and the newer observation's.
    expect(only?.content).toContain("older fact");
    expect(only?.content).toContain("newer fact");
  });

  it("a model's reflections of a generation go once condensed into one of the next, and a generation filled by it is condensed in turn", async () => {
    for (let index = 0; index < 4; index++)
      await note("s2", "reflection", `- second generation ${index}`, { generation: 2, last_ordinal: index });
    for (let index = 0; index < 5; index++)
      await note("s2", "reflection", `- first generation ${index}`, { generation: 1, last_ordinal: 10 + index });
    const reports = await pass("s2", { messageTokenThreshold: 1_000, observationTokenThreshold: 2_000 }, fakeObserver("- Condensed."));

    expect(reports).toEqual([]);
    const reflections = services.contentStore.recentOfType("s2", "reflection", 20);
    expect(reflections.map((entry) => [entry.content, entry.metadata.generation, entry.metadata.last_ordinal])).toEqual([
      ["- Condensed.", 3, 14],
    ]);
  });

  it("deleting derived entries by id deletes those alone", async () => {
    await note("s3", "reflection", "- one", { generation: 1 });
    await note("s3", "reflection", "- two", { generation: 1 });
    const [first] = services.contentStore.recentOfType("s3", "reflection", 10);
    expect(services.contentStore.deleteDerived("s3", "reflection", [first?.id ?? ""])).toBe(1);
    expect(services.contentStore.recentOfType("s3", "reflection", 10).map((entry) => entry.content)).toEqual(["- two"]);
  });
});
