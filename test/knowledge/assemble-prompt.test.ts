import { describe, expect, it } from "vitest";
import {
  assemblePrompt,
  DEFAULT_MAX_OBSERVATIONS_IN_CONTEXT,
  DEFAULT_MAX_REFLECTIONS_IN_CONTEXT,
  DEFAULT_MEMORY_TOKEN_BUDGET,
  selectMemory,
} from "../../src/knowledge/assemble-prompt.js";
import { type ContextItem, ContextLayer, inquiryItem } from "../../src/knowledge/context-layers.js";
import type { MemoryNote } from "../../src/knowledge/context-providers.js";
import { memoryNoteItem } from "../../src/knowledge/memory-notes.js";

const BASE = "You are Sylk, a coding agent.";

const item = (layer: ContextLayer, key: string, content: string, extra: Partial<ContextItem> = {}): ContextItem => ({
  layer,
  key,
  content,
  ...extra,
});

/** One item in each of the six knowledge sections, given in an order unlike the sections'. */
const ALL_LAYERS: ContextItem[] = [
  item(ContextLayer.ExternalKnowledge, "Vitest docs", "Mocking modules", { source: "https://vitest.dev/guide/mocking" }),
  item(ContextLayer.SkillPatterns, "release", "Tag, build and publish"),
  item(ContextLayer.AgentLearnings, "EADDRINUSE", "Kill the stale dev server first"),
  item(ContextLayer.UserKnowledge, "package-manager", "Use pnpm, never npm", { metadata: { category: "preference" } }),
  item(ContextLayer.ToolRegistry, "run_command", "Run a shell command"),
  item(ContextLayer.RuntimeContext, "session-state", "Session: s-1 | Active tools: 6"),
];

const notes = (prefix: string, count: number, tokenCount = 10): MemoryNote[] =>
  Array.from({ length: count }, (_, index) => ({ content: `${prefix} ${index + 1}`, tokenCount }));

const contents = (list: readonly MemoryNote[]) => list.map((note) => note.content);

describe("assemblePrompt", () => {
  it("Scenario: No context retrieved — with no items and no observations the base prompt comes back byte for byte", () => {
    const base = "  Base prompt with trailing white space\n\n";
    expect(assemblePrompt(base, [])).toBe(base);
    expect(assemblePrompt(base, [], {})).toBe(base);
    expect(assemblePrompt(base, [], { reflections: [], observations: [] })).toBe(base);
    expect(assemblePrompt("", [])).toBe("");
  });

  it("Scenario: Context sections — one markdown section per layer with items, under fixed titles", () => {
    const prompt = assemblePrompt(BASE, ALL_LAYERS);
    for (const title of [
      "Runtime Context",
      "Available Tools",
      "User Knowledge",
      "Known Solutions",
      "Available Skills",
      "External References",
    ]) {
      expect(prompt).toContain(`\n## ${title}\n`);
    }
    const onlyLearnings = assemblePrompt(BASE, [item(ContextLayer.AgentLearnings, "EADDRINUSE", "Kill the stale dev server first")]);
    expect(onlyLearnings).toBe(`${BASE}\n\n## Known Solutions\n- EADDRINUSE: Kill the stale dev server first`);
  });

  it("Scenario: Section ordering — Runtime Context, Available Tools, User Knowledge, Known Solutions, Available Skills, External References; the whole prompt", () => {
    expect(assemblePrompt(BASE, ALL_LAYERS)).toBe(
      [
        BASE,
        "",
        "## Runtime Context",
        "- Session: s-1 | Active tools: 6",
        "",
        "## Available Tools",
        "- run_command: Run a shell command",
        "",
        "## User Knowledge",
        "- [preference] package-manager: Use pnpm, never npm",
        "",
        "## Known Solutions",
        "- EADDRINUSE: Kill the stale dev server first",
        "",
        "## Available Skills",
        "- release: Tag, build and publish",
        "",
        "## External References",
        "- Vitest docs (https://vitest.dev/guide/mocking): Mocking modules",
      ].join("\n"),
    );
  });

  it("Scenario: Observation memory section — Conversation Memory after the knowledge sections, reflections before observations", () => {
    const prompt = assemblePrompt(BASE, ALL_LAYERS, {
      observations: [{ content: "asked about deploys" }],
      reflections: [{ content: "prefers small commits" }],
    });
    const memoryAt = prompt.indexOf("## Conversation Memory");
    expect(memoryAt).toBeGreaterThan(prompt.indexOf("## External References"));
    expect(prompt.slice(memoryAt)).toBe(
      ["## Conversation Memory", "", "### Reflections", "- prefers small commits", "", "### Observations", "- asked about deploys"].join(
        "\n",
      ),
    );
  });

  it("Scenario: Context ordering — base prompt, knowledge RAG, reflections, observations", () => {
    const prompt = assemblePrompt(BASE, [item(ContextLayer.UserKnowledge, "k", "v")], {
      reflections: [{ content: "REFLECTION" }],
      observations: [{ content: "OBSERVATION" }],
    });
    const positions = [BASE, "## User Knowledge", "REFLECTION", "OBSERVATION"].map((text) => prompt.indexOf(text));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((left, right) => left - right)).toEqual(positions);
  });

  it("Scenario: No observations available — a session without memory assembles exactly as without the memory argument", () => {
    expect(assemblePrompt(BASE, ALL_LAYERS, { reflections: [], observations: [] })).toBe(assemblePrompt(BASE, ALL_LAYERS));
    expect(assemblePrompt(BASE, ALL_LAYERS)).not.toContain("Conversation Memory");
  });

  it("Scenario: Observation formatting — under ## Conversation Memory, reflections before observations", () => {
    const prompt = assemblePrompt(BASE, [], { observations: [{ content: "obs" }], reflections: [{ content: "refl" }] });
    expect(prompt).toBe(`${BASE}\n\n## Conversation Memory\n\n### Reflections\n- refl\n\n### Observations\n- obs`);
    expect(assemblePrompt(BASE, [], { observations: [{ content: "obs" }] })).toBe(
      `${BASE}\n\n## Conversation Memory\n\n### Observations\n- obs`,
    );
  });

  it("Scenario: Inquiries present in context — ## Pending Knowledge Inquiries with - [topic] question (context: why), last", () => {
    const prompt = assemblePrompt(
      BASE,
      [
        inquiryItem({ topic: "deploy", question: "Which region do you deploy to?", context: "two regions in the configs" }),
        inquiryItem({ topic: "style", question: "Tabs or spaces?" }),
        item(ContextLayer.UserKnowledge, "k", "v"),
      ],
      { observations: [{ content: "obs" }] },
    );
    expect(
      prompt.endsWith(
        [
          "## Pending Knowledge Inquiries",
          "- [deploy] Which region do you deploy to? (context: two regions in the configs)",
          "- [style] Tabs or spaces?",
        ].join("\n"),
      ),
    ).toBe(true);
    expect(prompt.indexOf("## Pending Knowledge Inquiries")).toBeGreaterThan(prompt.indexOf("## Conversation Memory"));
  });

  it("Scenario: No inquiries — no inquiry section without Pending Inquiries items", () => {
    expect(assemblePrompt(BASE, ALL_LAYERS)).not.toContain("Pending Knowledge Inquiries");
  });

  it("indents an item's further lines under its bullet, and an item without a key is its content alone", () => {
    const prompt = assemblePrompt(BASE, [
      item(ContextLayer.AgentLearnings, "flaky test", "Run it alone:\nnpx vitest run path\n"),
      item(ContextLayer.RuntimeContext, "", "state"),
      item(ContextLayer.ExternalKnowledge, "", "no key, has a source", { source: "s" }),
      item(ContextLayer.UserKnowledge, "k", "v", { metadata: { category: "" } }),
    ]);
    expect(prompt).toContain("## Known Solutions\n- flaky test: Run it alone:\n  npx vitest run path");
    expect(prompt).toContain("## Runtime Context\n- state");
    expect(prompt).toContain("## External References\n- no key, has a source");
    expect(prompt).toContain("## User Knowledge\n- k: v");
  });

  it("trims the base prompt's trailing white space before the sections; an empty base gives the sections alone", () => {
    const runtime = [item(ContextLayer.RuntimeContext, "session-state", "state")];
    expect(assemblePrompt(`${BASE}\n\n\n`, runtime)).toBe(`${BASE}\n\n## Runtime Context\n- state`);
    expect(assemblePrompt("", runtime)).toBe("## Runtime Context\n- state");
  });

  it("Reflections and Observations items from the retriever join the memory section, after the memory argument's notes", () => {
    const prompt = assemblePrompt(
      BASE,
      [
        memoryNoteItem(ContextLayer.Observations, { content: "from items" }, 0),
        memoryNoteItem(ContextLayer.Reflections, { content: "reflected item" }, 0),
      ],
      { observations: [{ content: "from memory" }] },
    );
    expect(prompt).toBe(
      `${BASE}\n\n## Conversation Memory\n\n### Reflections\n- reflected item\n\n### Observations\n- from memory\n- from items`,
    );
  });
});

describe("selectMemory", () => {
  it("Scenario: Default limits applied — 5 reflections and 20 observations when none are set", () => {
    expect([DEFAULT_MAX_REFLECTIONS_IN_CONTEXT, DEFAULT_MAX_OBSERVATIONS_IN_CONTEXT]).toEqual([5, 20]);
    const selected = selectMemory({ reflections: notes("r", 8, 1), observations: notes("o", 30, 1) });
    expect(contents(selected.reflections)).toEqual(["r 4", "r 5", "r 6", "r 7", "r 8"]);
    expect(contents(selected.observations)).toEqual(Array.from({ length: 20 }, (_, index) => `o ${index + 11}`));
  });

  it("Scenario: Custom limits applied — 3 reflections and 10 observations: the most recent ones, oldest first", () => {
    const selected = selectMemory(
      { reflections: notes("r", 8, 1), observations: notes("o", 30, 1) },
      { maxReflectionsInContext: 3, maxObservationsInContext: 10 },
    );
    expect(contents(selected.reflections)).toEqual(["r 6", "r 7", "r 8"]);
    expect(contents(selected.observations)).toEqual(Array.from({ length: 10 }, (_, index) => `o ${index + 21}`));
  });

  it("a limit of 0 means no limit", () => {
    const selected = selectMemory(
      { reflections: notes("r", 8, 1), observations: notes("o", 30, 1) },
      { maxReflectionsInContext: 0, maxObservationsInContext: 0 },
    );
    expect(selected.reflections).toHaveLength(8);
    expect(selected.observations).toHaveLength(30);
  });

  it("orders notes by createdAt when every note has one, before taking the most recent", () => {
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
    const selected = selectMemory(
      {
        observations: [
          { content: "third", createdAt: at(3) },
          { content: "first", createdAt: at(1) },
          { content: "second", createdAt: at(2) },
        ],
      },
      { maxObservationsInContext: 2 },
    );
    expect(contents(selected.observations)).toEqual(["second", "third"]);
  });

  it("Scenario: Default memory token budget — 4,000 tokens", () => {
    expect(DEFAULT_MEMORY_TOKEN_BUDGET).toBe(4_000);
    const selected = selectMemory({ observations: notes("o", 20, 300) });
    expect(selected.observations).toHaveLength(13);
    expect(selected.tokens).toBe(3_900);
    expect(contents(selected.observations)[0]).toBe("o 8");
  });

  it("Scenario: Reflections exceed budget — as many reflections as fit, and no observations", () => {
    const selected = selectMemory({ reflections: notes("r", 5, 1_500), observations: notes("o", 3, 1) });
    expect(contents(selected.reflections)).toEqual(["r 4", "r 5"]);
    expect(selected.observations).toEqual([]);
    expect(selected.tokens).toBe(3_000);
  });

  it("Scenario: Budget shared between reflections and observations — observations fill what is left, stopping at the first that would exceed it", () => {
    const selected = selectMemory({
      reflections: notes("r", 2, 1_000),
      observations: [{ content: "small old", tokenCount: 10 }, { content: "big", tokenCount: 1_500 }, ...notes("o", 3, 400)],
    });
    expect(contents(selected.reflections)).toEqual(["r 1", "r 2"]);
    expect(contents(selected.observations)).toEqual(["o 1", "o 2", "o 3"]);
    expect(selected.tokens).toBe(3_200);
  });

  it("Scenario: Custom budget via WithMemoryTokenBudget — a positive memoryTokenBudget replaces 4,000; zero or less keeps the default", () => {
    const memory = { reflections: notes("r", 2, 100), observations: notes("o", 10, 100) };
    expect(selectMemory(memory, { memoryTokenBudget: 500 }).observations).toHaveLength(3);
    expect(selectMemory(memory, { memoryTokenBudget: 0 }).observations).toHaveLength(10);
    const prompt = assemblePrompt(BASE, [], memory, { memoryTokenBudget: 250 });
    expect(prompt).toBe(`${BASE}\n\n## Conversation Memory\n\n### Reflections\n- r 1\n- r 2`);
  });

  it("costs a note without a tokenCount by estimateTokens of its content", () => {
    const selected = selectMemory(
      { observations: [{ content: "x".repeat(400) }, { content: "y".repeat(40) }] },
      { memoryTokenBudget: 100 },
    );
    expect(contents(selected.observations)).toEqual(["y".repeat(40)]);
    expect(selected.tokens).toBe(10);
  });
});
