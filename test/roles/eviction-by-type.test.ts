import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { AGENT_TYPES, evictionStrategyOf } from "../../src/roles/agent-types.js";
import { evictionConfigFor } from "../../src/context/create-context-manager.js";
import { RecencyEviction } from "../../src/context/eviction/recency-eviction.js";
import { TaskCompletionEviction } from "../../src/context/eviction/task-completion-eviction.js";
import { TopicClusterEviction } from "../../src/context/eviction/topic-cluster-eviction.js";

describe("each agent type's eviction strategy (seed GetEvictionConfig)", () => {
  it("is topic clusters for the academic, finished tasks for the architect, the oldest turns for the rest", () => {
    expect(Object.fromEntries(AGENT_TYPES.map((type) => [type, evictionStrategyOf(type)]))).toEqual({
      librarian: "recency",
      archivalist: "recency",
      academic: "topic",
      architect: "task",
      engineer: "recency",
      designer: "recency",
      inspector: "recency",
      tester: "recency",
      orchestrator: "recency",
      guide: "recency",
    });
    expect(evictionConfigFor("topic")).toMatchObject({ strategy: expect.any(TopicClusterEviction), preserveTypes: ["research_paper"] });
    expect(evictionConfigFor("task")).toMatchObject({ strategy: expect.any(TaskCompletionEviction), preserveTypes: ["plan_workflow"] });
    expect(evictionConfigFor("recency")).toMatchObject({ strategy: expect.any(RecencyEviction), preserveTypes: ["user_prompt"] });
  });

  it("is left to the agent type unless context.strategy names one", () => {
    expect(configSchema.parse({}).context.strategy).toBeUndefined();
    expect(configSchema.parse({ context: { strategy: "task" } }).context.strategy).toBe("task");
  });
});
