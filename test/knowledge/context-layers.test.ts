import { describe, expect, it } from "vitest";
import { ContextLayer, DEFAULT_RETRIEVAL_LAYERS, inquiryItem, LAYERS } from "../../src/knowledge/context-layers.js";

describe("context layers", () => {
  it("Scenario: Context layer definitions — nine layers (six of knowledge and session state plus Observations, Reflections, Pending Inquiries)", () => {
    expect(LAYERS).toEqual([
      "tool_registry",
      "user_knowledge",
      "skill_patterns",
      "external_knowledge",
      "agent_learnings",
      "runtime_context",
      "observations",
      "reflections",
      "pending_inquiries",
    ]);
    expect(new Set(LAYERS).size).toBe(9);
    expect(Object.keys(ContextLayer)).toEqual([
      "ToolRegistry",
      "UserKnowledge",
      "SkillPatterns",
      "ExternalKnowledge",
      "AgentLearnings",
      "RuntimeContext",
      "Observations",
      "Reflections",
      "PendingInquiries",
    ]);
  });

  it("the default retrieval layers are the four knowledge layers", () => {
    expect(DEFAULT_RETRIEVAL_LAYERS).toEqual([
      ContextLayer.UserKnowledge,
      ContextLayer.SkillPatterns,
      ContextLayer.ExternalKnowledge,
      ContextLayer.AgentLearnings,
    ]);
  });

  it("builds an inquiry item: topic as key, question as content, why as metadata.context", () => {
    expect(inquiryItem({ topic: "deploy", question: "Which region?", context: "two regions seen" })).toEqual({
      layer: ContextLayer.PendingInquiries,
      key: "deploy",
      content: "Which region?",
      metadata: { context: "two regions seen" },
    });
    expect(inquiryItem({ topic: "deploy", question: "Which region?" })).not.toHaveProperty("metadata");
  });
});
