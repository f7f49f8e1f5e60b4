import { beforeAll, describe, expect, it } from "vitest";
import { generateReference, renderReference, widestMarker } from "../../src/context/context-reference.js";
import type { ContentEntry, ContextReference } from "../../src/store/content-types.js";

beforeAll(() => {
  process.env.TZ = "UTC";
});

const reference: ContextReference = {
  id: "abc123",
  type: "conversation",
  sessionId: "s",
  agentId: "a",
  contentIds: ["e1", "e2"],
  summary: "Discussion about auth flow, JWT, middleware",
  tokensSaved: 4200,
  turnRange: [3, 17],
  timestamp: Date.UTC(2026, 10, 22, 14, 23),
  topics: ["auth flow", "JWT", "middleware", "sessions"],
  entities: [],
  queryHints: [],
};

function entry(overrides: Partial<ContentEntry>): ContentEntry {
  return {
    id: "e",
    contentHash: "h",
    sessionId: "s",
    agentId: "a",
    agentType: "engineer",
    contentType: "agent_response",
    content: "x",
    tokenCount: 10,
    timestamp: 1_000,
    turnNumber: 1,
    keywords: [],
    entities: [],
    childIds: [],
    relatedFiles: [],
    metadata: {},
    ...overrides,
  };
}

describe("renderReference", () => {
  it("renders exactly the CTX-REF marker", () => {
    expect(renderReference(reference)).toBe(
      '[CTX-REF:conversation | 15 turns (4,200 tokens) @ 14:23 | Topics: auth flow, JWT, middleware | retrieve_context(ref_id="abc123")]',
    );
    expect(renderReference(reference)).toMatchSnapshot();
  });

  it("is idempotent and shows at most three topics", () => {
    expect(renderReference(reference)).toBe(renderReference({ ...reference }));
    expect(renderReference({ ...reference, topics: [] })).toContain("| Topics:  |");
  });

  it("cuts long topics, so no marker is wider than widestMarker", () => {
    const long = "averyveryverylongidentifierthatgoesonandonforever";
    const rendered = renderReference({ ...reference, type: "plan_discussion", tokensSaved: 123_456_789, topics: [long, long, long, long] });
    expect(rendered).toContain(`Topics: ${long.slice(0, 31)}…, ${long.slice(0, 31)}…, ${long.slice(0, 31)}… |`);
    expect(rendered.length).toBeLessThanOrEqual(widestMarker().length);
    expect(widestMarker()).toMatch(/^\[CTX-REF:plan_discussion \| 999999999 turns \(999,999,999 tokens\)/);
  });
});

describe("generateReference", () => {
  it("derives topics, entities, hints, type, summary, turn range and tokens from the entries", () => {
    const entries = [
      entry({
        id: "1",
        contentType: "tool_call",
        turnNumber: 4,
        timestamp: 500,
        keywords: ["jwt", "token"],
        entities: ["src/auth.ts"],
        tokenCount: 100,
      }),
      entry({
        id: "2",
        contentType: "tool_result",
        turnNumber: 4,
        keywords: ["jwt", "expiry"],
        entities: ["src/auth.ts", "validateToken"],
        tokenCount: 900,
      }),
      entry({ id: "3", contentType: "tool_result", turnNumber: 6, keywords: ["JWT"], tokenCount: 200 }),
    ];
    const generated = generateReference({ id: "r1", sessionId: "s", agentId: "a", entries });
    expect(generated).toMatchObject({
      id: "r1",
      type: "tool_results",
      contentIds: ["1", "2", "3"],
      tokensSaved: 1200,
      turnRange: [4, 6],
      timestamp: 500,
      topics: ["jwt", "expiry", "token"],
      entities: ["src/auth.ts", "validateToken"],
      summary: "Discussion about jwt, expiry, token",
      queryHints: ["discussion about jwt", "discussion about expiry", "mentions of src/auth.ts", "mentions of validateToken"],
    });
    expect(generateReference({ id: "r2", sessionId: "s", agentId: "a", entries, tokensSaved: 42 }).tokensSaved).toBe(42);
  });

  it("types references by their dominant content", () => {
    const type = (contentType: ContentEntry["contentType"]) =>
      generateReference({ id: "r", sessionId: "s", agentId: "a", entries: [entry({ contentType })] }).type;
    expect(type("web_fetch")).toBe("research");
    expect(type("research_paper")).toBe("research");
    expect(type("code_file")).toBe("code_analysis");
    expect(type("plan_workflow")).toBe("plan_discussion");
    expect(type("user_prompt")).toBe("conversation");
    expect(generateReference({ id: "r", sessionId: "s", agentId: "a", entries: [entry({})] }).summary).toBe("1 turns of conversation");
    expect(() => generateReference({ id: "r", sessionId: "s", agentId: "a", entries: [] })).toThrow();
  });
});
