import { describe, expect, it } from "vitest";
import { RuntimeContextAdapter } from "../../src/knowledge/runtime-context-adapter.js";

describe("RuntimeContextAdapter", () => {
  it("Scenario: Get runtime context — session key, active tool count and the two flags, nothing else", () => {
    const adapter = new RuntimeContextAdapter({
      sessionKey: "3f2b6c1a-8d4e-4b7a-9e21-5c6d7e8f9a0b",
      activeToolCount: 12,
      knowledgeEnabled: true,
      memoryEnabled: false,
    });
    expect(adapter.getRuntimeContext()).toEqual({
      sessionKey: "3f2b6c1a-8d4e-4b7a-9e21-5c6d7e8f9a0b",
      activeToolCount: 12,
      knowledgeEnabled: true,
      memoryEnabled: false,
    });
  });

  it("defaults: no session, no tools, knowledge and memory off", () => {
    expect(new RuntimeContextAdapter().getRuntimeContext()).toEqual({
      sessionKey: "",
      activeToolCount: 0,
      knowledgeEnabled: false,
      memoryEnabled: false,
    });
  });

  it("Scenario: Session key propagated to RuntimeContextAdapter — setSession is reflected and keeps the rest", () => {
    const adapter = new RuntimeContextAdapter({ sessionKey: "first", activeToolCount: 3, knowledgeEnabled: true });
    adapter.setSession("second");
    expect(adapter.getRuntimeContext()).toEqual({ sessionKey: "second", activeToolCount: 3, knowledgeEnabled: true, memoryEnabled: false });
  });

  it("Scenario: Thread-safe access — interleaved async setSession and getRuntimeContext always see a whole state", async () => {
    const adapter = new RuntimeContextAdapter({ activeToolCount: 5, memoryEnabled: true });
    const keys = ["a", "b", "c", "d"];
    const seen: ReturnType<RuntimeContextAdapter["getRuntimeContext"]>[] = [];
    await Promise.all(
      Array.from({ length: 200 }, async (_, index) => {
        await Promise.resolve();
        if (index % 2 === 0) adapter.setSession(keys[index % keys.length] as string);
        await new Promise((resolve) => setImmediate(resolve));
        seen.push(adapter.getRuntimeContext());
      }),
    );
    expect(seen).toHaveLength(200);
    for (const context of seen)
      expect(context).toEqual({
        sessionKey: expect.stringMatching(/^[abcd]$/),
        activeToolCount: 5,
        knowledgeEnabled: false,
        memoryEnabled: true,
      });
  });

  it("hands out copies: a reader changing its copy does not change the adapter", () => {
    const adapter = new RuntimeContextAdapter({ sessionKey: "kept" });
    const copy = adapter.getRuntimeContext();
    copy.sessionKey = "changed";
    expect(adapter.getRuntimeContext().sessionKey).toBe("kept");
  });
});
