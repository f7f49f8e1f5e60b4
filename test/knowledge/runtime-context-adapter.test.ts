import { describe, expect, it } from "vitest";
import { channelTypeOf, RuntimeContextAdapter } from "../../src/knowledge/runtime-context-adapter.js";

describe("RuntimeContextAdapter", () => {
  it("Scenario: Get runtime context — session key, channel type, active tool count and the three flags", () => {
    const adapter = new RuntimeContextAdapter({
      sessionKey: "slack:T1:C2",
      activeToolCount: 12,
      encryptionEnabled: true,
      knowledgeEnabled: true,
      memoryEnabled: false,
    });
    expect(adapter.getRuntimeContext()).toEqual({
      sessionKey: "slack:T1:C2",
      channelType: "slack",
      activeToolCount: 12,
      encryptionEnabled: true,
      knowledgeEnabled: true,
      memoryEnabled: false,
    });
  });

  it("Scenario: Default channel type — without setSession the channel is direct", () => {
    const context = new RuntimeContextAdapter().getRuntimeContext();
    expect(context.channelType).toBe("direct");
    expect(context).toMatchObject({ sessionKey: "", activeToolCount: 0, encryptionEnabled: false, knowledgeEnabled: false, memoryEnabled: false });
  });

  it("Scenario: Derive channel type from session key — telegram, discord, slack from the channel:id:subid prefix, anything else direct", () => {
    const adapter = new RuntimeContextAdapter({ activeToolCount: 3 });
    for (const [key, channel] of [
      ["telegram:123:456", "telegram"],
      ["discord:guild:channel", "discord"],
      ["slack:T1:C2", "slack"],
      ["irc:net:chan", "direct"],
      ["cli:session", "direct"],
      ["telegram", "direct"],
      ["", "direct"],
    ] as const) {
      adapter.setSession(key);
      expect(adapter.getRuntimeContext()).toMatchObject({ sessionKey: key, channelType: channel, activeToolCount: 3 });
    }
    expect(channelTypeOf("Discord:1:2")).toBe("discord");
  });

  it("Scenario: Session key propagated to RuntimeContextAdapter — setSession is reflected with its derived channel", () => {
    const adapter = new RuntimeContextAdapter({ sessionKey: "direct-1" });
    adapter.setSession("telegram:42:7");
    expect(adapter.getRuntimeContext()).toMatchObject({ sessionKey: "telegram:42:7", channelType: "telegram" });
  });

  it("Scenario: Thread-safe access — interleaved async setSession and getRuntimeContext always see a key with its own channel", async () => {
    const adapter = new RuntimeContextAdapter();
    const keys = ["telegram:1:1", "discord:2:2", "slack:3:3", "local:4"];
    const seen: { sessionKey: string; channelType: string }[] = [];
    await Promise.all(
      Array.from({ length: 200 }, async (_, index) => {
        await Promise.resolve();
        if (index % 2 === 0) adapter.setSession(keys[index % keys.length] as string);
        await new Promise((resolve) => setImmediate(resolve));
        seen.push(adapter.getRuntimeContext());
      }),
    );
    expect(seen).toHaveLength(200);
    for (const context of seen) expect(context.channelType).toBe(channelTypeOf(context.sessionKey));
  });

  it("hands out copies: a reader changing its copy does not change the adapter", () => {
    const adapter = new RuntimeContextAdapter({ sessionKey: "slack:1:2" });
    const copy = adapter.getRuntimeContext();
    copy.sessionKey = "changed";
    expect(adapter.getRuntimeContext().sessionKey).toBe("slack:1:2");
  });
});
