import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { createPrefetcher } from "../../src/context/prefetch/create-prefetcher.js";
import { INITIAL_PRIORS } from "../../src/context/prefetch/prefetch-config.js";
import { renderAugmentation } from "../../src/context/prefetch/query-augmenter.js";
import { drainIndex } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let services: ProjectServices;

beforeAll(async () => {
  project = createTempProject({
    "src/auth/jwt.ts": [
      "// Validates JSON web tokens and their expiration.",
      "export function validateTokenExpiration(token: string, now: number): boolean {",
      "  const expiration = decodeExpiration(token);",
      "  return expiration > now;",
      "}",
      "",
    ].join("\n"),
    "src/billing/invoice.ts": "// Renders invoices.\nexport function renderInvoice(total: number) {\n  return `Total: ${total}`;\n}\n",
    "src/billing/tax.ts": "// Computes sales tax.\nexport function salesTax(amount: number) {\n  return amount * 0.2;\n}\n",
  });
  services = openProject({ root: project.root, env: project.env });
  await drainIndex(services);
});
afterAll(async () => {
  await services.close();
  project.cleanup();
});

const situation = { turn: 1, inWindow: new Set<string>(), pathsInWindow: new Set<string>() };

describe("QueryAugmenter", () => {
  it("injects a confident excerpt in the AUTO-RETRIEVED format, within 10 % of the remaining window", async () => {
    const prefetcher = createPrefetcher({ services, windowTokens: 200_000 });
    const augmented = await prefetcher.augmenter.augment("validate token expiration", 50_000, situation);
    expect(augmented.budgetMax).toBe(5_000);
    expect(augmented.tokensUsed).toBeLessThanOrEqual(5_000);
    expect(augmented.excerpts[0]).toMatchObject({ path: "src/auth/jwt.ts", lineRange: [1, 5] });
    expect(augmented.excerpts[0]?.confidence).toBeGreaterThanOrEqual(0.9);
    const text = renderAugmentation(augmented);
    expect(text).toMatch(
      /^\[AUTO-RETRIEVED: src\/auth\/jwt\.ts:1-5 \| confidence: (0\.9\d|1\.00)\]\n```typescript\n\/\/ Validates JSON web tokens/,
    );
    expect(text).toContain('[Full file: read_file("src/auth/jwt.ts")]');
    expect(augmented.excerpts.length).toBeLessThanOrEqual(INITIAL_PRIORS.maxExcerpts);
    expect(augmented.summaries.length).toBeLessThanOrEqual(INITIAL_PRIORS.maxSummaries);
  });

  it("gives one-line hints between the thresholds, and nothing below them", async () => {
    const prefetcher = createPrefetcher({
      services,
      windowTokens: 200_000,
      thresholds: () => ({ ...INITIAL_PRIORS, excerptThreshold: 2 }), // no excerpt can qualify
    });
    const augmented = await prefetcher.augmenter.augment("validate token expiration", 50_000, situation);
    expect(augmented.excerpts).toEqual([]);
    expect(renderAugmentation(augmented)).toMatch(
      /^\[RELATED: src\/auth\/jwt\.ts - Validates JSON web tokens and their expiration\., 5 lines\]/,
    );
    const nothing = await prefetcher.augmenter.augment("kubernetes helm chart values", 50_000, situation);
    expect(nothing.excerpts.length + nothing.summaries.length).toBe(0);
  });

  it("skips what the window already shows or what is hot, and honours the budget", async () => {
    const prefetcher = createPrefetcher({ services, windowTokens: 200_000 });
    const shown = await prefetcher.augmenter.augment("validate token expiration", 50_000, {
      ...situation,
      pathsInWindow: new Set(["src/auth/jwt.ts"]),
    });
    expect([...shown.excerpts, ...shown.summaries].some((item) => item.path === "src/auth/jwt.ts")).toBe(false);
    const tiny = await prefetcher.augmenter.augment("validate token expiration", 300, situation);
    expect(tiny.tokensUsed).toBeLessThanOrEqual(30);
    const first = await prefetcher.augmenter.augment("render invoice total", 50_000, situation);
    expect(first.excerpts.length + first.summaries.length).toBeGreaterThan(0);
    const again = await prefetcher.augmenter.augment("render invoice total", 50_000, { ...situation, turn: 2 });
    expect(again.excerpts.length + again.summaries.length).toBe(0); // just injected: hot now
  });

  it("raises the bar when only one signal answers", async () => {
    const prefetcher = createPrefetcher({ services, windowTokens: 200_000 });
    prefetcher.searcher.setMaxTier("warm"); // full text only
    const result = await prefetcher.searcher.search("validate token expiration", { budgetMs: 200 });
    expect(result).toMatchObject({ tierReached: "warm", singleSignal: true });
    // biome-ignore lint/complexity/useLiteralKeys: deps is private; an index reaches it for the test.
    for (let failure = 0; failure < 3; failure++) prefetcher.searcher["deps"].breakers.vector.recordFailure();
    prefetcher.searcher.setMaxTier("full");
    const degraded = await prefetcher.searcher.search("validate token expiration", { budgetMs: 200 });
    expect(degraded).toMatchObject({ tierReached: "full", singleSignal: true });
    const hot = createPrefetcher({ services, windowTokens: 200_000 });
    hot.searcher.setMaxTier("hot");
    expect((await hot.searcher.search("anything", { budgetMs: 200 })).tierReached).toBe("hot");
  });

  it("knows where a hot entry came from: a conversation entry's id, a code chunk's path", async () => {
    const prefetcher = createPrefetcher({ services, windowTokens: 200_000 });
    prefetcher.hotCache.put("entry:e-12", "turn 3 · agent_response", "the ledger reconciliation runs on Fridays");
    prefetcher.hotCache.put("chunk:9", "src/ledger/reconcile.ts:3-9", "export function reconcileLedger() {}");
    prefetcher.searcher.setMaxTier("hot");
    const found = await prefetcher.searcher.search("ledger reconciliation", { budgetMs: 200 });
    const byKey = Object.fromEntries(found.candidates.map((candidate) => [candidate.key, candidate]));
    expect(byKey["entry:e-12"]).toMatchObject({ entryId: "e-12" });
    expect(byKey["entry:e-12"]?.path).toBeUndefined();
    expect(byKey["chunk:9"]).toMatchObject({ path: "src/ledger/reconcile.ts" });
  });

  it("never puts an observation or a reflection in front of the model: they are in the request's Conversation Memory already", async () => {
    await services.contentStore.indexContents([
      {
        sessionId: "om",
        agentId: "observer",
        agentType: "observer",
        contentType: "observation",
        content: "- User: the quarterly ledger reconciliation deadline is Friday.",
        turnNumber: 0,
      },
      {
        sessionId: "om",
        agentId: "engineer-1",
        agentType: "engineer",
        contentType: "user_prompt",
        content: "When is the quarterly ledger reconciliation deadline?",
        turnNumber: 1,
      },
    ]);
    const prefetcher = createPrefetcher({
      services: { codeSearcher: services.codeSearcher, contentStore: services.contentStore },
      sessionId: "om",
      windowTokens: 200_000,
    });
    const found = await prefetcher.searcher.search("quarterly ledger reconciliation deadline", {
      limit: 10,
      sessionId: "om",
      budgetMs: 60_000,
    });
    const history = found.candidates.filter((candidate) => candidate.kind === "history");
    expect(history.map((candidate) => candidate.source)).toEqual(["turn 1 · user_prompt"]);
  });
});
