import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionRecorder } from "../../../../src/agent/session-recorder.js";
import { createGetChronicleEntriesTool } from "../../../../src/agent/tools/role-tools/get-chronicle-entries.js";
import { parseTimePoint } from "../../../../src/agent/tools/role-tools/time-point.js";
import { DAY, HOUR, NOW, openRoleToolKit, type RoleToolKit } from "./role-tool-kit.js";

let kit: RoleToolKit;
beforeEach(() => {
  kit = openRoleToolKit();
});
afterEach(async () => {
  await kit.close();
});

const engineer = { sessionId: "session-a", agentId: "engineer-1", agentType: "engineer" };
const architect = { sessionId: "session-b", agentId: "architect-1", agentType: "architect" };

async function seed() {
  const store = kit.services.contentStore;
  await store.indexContent({
    ...engineer,
    contentType: "user_prompt",
    content: "Eight days ago: set up the repo",
    turnNumber: 1,
    timestamp: NOW - 8 * DAY,
  });
  await store.indexContent({
    ...engineer,
    contentType: "user_prompt",
    content: "\nThree days ago: add the parser\nsecond line",
    turnNumber: 2,
    timestamp: NOW - 3 * DAY,
  });
  await store.indexContent({
    ...architect,
    contentType: "plan_workflow",
    content: "Design the cache layer",
    turnNumber: 1,
    timestamp: NOW - 3 * HOUR,
  });
  await store.indexContent({
    ...engineer,
    contentType: "tool_call",
    content: '{"path":"src/cache.ts"}',
    turnNumber: 3,
    timestamp: NOW - 1 * HOUR,
    metadata: { tool: "read_file" },
  });
}

function tool(available = 10_000) {
  return createGetChronicleEntriesTool({ entries: kit.services.entries, availableTokens: () => available, now: () => NOW });
}

describe("get_chronicle_entries", () => {
  it("lists a relative range oldest first, one line per entry with time, session, agent, type, turn, first line and id", async () => {
    await seed();
    const result = await kit.call(tool(), { from: "7d" });
    expect(result.isError).toBeFalsy();
    const lines = result.output.split("\n");
    expect(lines[0]).toMatch(
      /^source: chronicle · 3 results · tokens: \d+ · truncated: false · from 2026-03-03 12:00 to 2026-03-10 12:00 UTC$/,
    );
    expect(lines[1]).toMatch(
      /^- 2026-03-07 12:00 · session session-a · engineer-1 · user_prompt · turn 2 · Three days ago: add the parser · entry [0-9a-f-]{36}$/,
    );
    expect(lines[2]).toContain("architect-1 · plan_workflow · turn 1 · Design the cache layer");
    expect(lines[3]).toContain("tool_call (read_file) · turn 3");
    expect(result.output).not.toContain("Eight days ago");
  });

  it("takes ISO dates (a bare end date includes its whole day) and the filters", async () => {
    await seed();
    const iso = await kit.call(tool(), { from: "2026-03-01", to: "2026-03-07" });
    expect(iso.output).toContain("Eight days ago");
    expect(iso.output).toContain("Three days ago");
    expect(iso.output).not.toContain("cache layer");

    const byAgent = await kit.call(tool(), { agent_type: "architect" });
    expect(byAgent.output).toMatch(/^source: chronicle · 1 results/);
    expect(byAgent.output).toContain("Design the cache layer");

    const byType = await kit.call(tool(), { from: "2026-03-01T00:00:00Z", content_types: ["tool_call", "plan_workflow"] });
    expect(byType.output).toMatch(/^source: chronicle · 2 results/);

    const bySession = await kit.call(tool(), { session_id: "session-b", from: "30d" });
    expect(bySession.output).toMatch(/^source: chronicle · 1 results/);
  });

  it("without a start gives the latest entries, and says how many more match", async () => {
    await seed();
    const result = await kit.call(tool(), { limit: 2 });
    expect(result.output).toMatch(/^source: chronicle · 2 results/);
    expect(result.output.indexOf("cache layer")).toBeLessThan(result.output.indexOf("src/cache.ts"));
    expect(result.output).toContain("(4 entries match from the start to 2026-03-10 12:00 UTC; 2 shown, the latest.");
  });

  it("cuts the list at the token budget and says so", async () => {
    for (let turn = 1; turn <= 60; turn += 1) {
      await kit.services.contentStore.indexContent({
        ...engineer,
        contentType: "agent_response",
        content: `Answer ${turn}: ${"word ".repeat(30)}`,
        turnNumber: turn,
        timestamp: NOW - (61 - turn) * 60_000,
      });
    }
    const result = await kit.call(tool(), { from: "2h", limit: 100, max_tokens: 8_000 });
    expect(result.output).toMatch(/truncated: false/);
    const cut = await kit.call(tool(300), { from: "2h", limit: 100 });
    expect(cut.output).toMatch(/^source: chronicle · (\d+) results · tokens: (\d+) · truncated: true/);
    const [, shown, tokens] = /(\d+) results · tokens: (\d+)/.exec(cut.output) ?? [];
    expect(Number(shown)).toBeLessThan(60);
    expect(Number(tokens)).toBeLessThanOrEqual(300);
    expect(cut.output).toContain("Answer 1:");
    expect(cut.output).toContain("60 entries match");
  });

  it("says plainly when nothing was recorded, and corrects a time it cannot read", async () => {
    const empty = await kit.call(tool(), { from: "2h", agent_type: "librarian" });
    expect(empty.output).toBe(
      "source: chronicle · 0 results · tokens: 0 · truncated: false\nNo entries recorded from 2026-03-10 10:00 to 2026-03-10 12:00 UTC by agent type librarian.",
    );
    const bad = await kit.call(tool(), { from: "yesterday" });
    expect(bad.isError).toBe(true);
    expect(bad.output).toContain('"from" must be an ISO date');
    const reversed = await kit.call(tool(), { from: "1h", to: "2h" });
    expect(reversed.isError).toBe(true);
    expect((await kit.call(tool(), { limit: 101 })).isError).toBe(true);
  });

  it("lists what a recorded session wrote", async () => {
    const deps = {
      sessions: kit.services.sessions,
      contentStore: kit.services.contentStore,
      identity: { agentId: "engineer-1", agentType: "engineer" },
    };
    const recorder = SessionRecorder.start(deps, { title: "Now", provider: "anthropic", model: "claude-fake" });
    await recorder.recordPrompt("Recorded just now", recorder.nextTurn());
    const result = await kit.call(createGetChronicleEntriesTool({ entries: kit.services.entries, availableTokens: () => 10_000 }), {
      from: "5m",
    });
    expect(result.output).toContain(`session ${recorder.session.id} · engineer-1 · user_prompt · turn 1 · Recorded just now`);
  });
});

describe("parseTimePoint", () => {
  it("reads spans back from now and ISO dates", () => {
    expect(parseTimePoint("2h", NOW)).toBe(NOW - 2 * HOUR);
    expect(parseTimePoint("7d", NOW)).toBe(NOW - 7 * DAY);
    expect(parseTimePoint("30m", NOW)).toBe(NOW - 30 * 60_000);
    expect(parseTimePoint("2w", NOW)).toBe(NOW - 14 * DAY);
    expect(parseTimePoint("2026-03-01", NOW)).toBe(Date.parse("2026-03-01T00:00:00Z"));
    expect(parseTimePoint("2026-03-01", NOW, "end")).toBe(Date.parse("2026-03-02T00:00:00Z") - 1);
    expect(parseTimePoint("2026-03-01T14:00:00Z", NOW, "end")).toBe(Date.parse("2026-03-01T14:00:00Z"));
    expect(parseTimePoint("soon", NOW)).toBeUndefined();
  });
});
