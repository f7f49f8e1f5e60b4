import { describe, expect, it, onTestFinished, vi } from "vitest";
import { AccessTracker } from "../../src/context/prefetch/access-tracker.js";
import { CircuitBreaker } from "../../src/context/prefetch/circuit-breaker.js";
import { HotCache } from "../../src/context/prefetch/hot-cache.js";
import { MemoryPressureMonitor } from "../../src/context/prefetch/memory-pressure.js";
import { PrefetchMetrics } from "../../src/context/prefetch/prefetch-metrics.js";
import { predictedQuery } from "../../src/context/prefetch/prefetch-situation.js";
import { PrefetchFuture } from "../../src/context/prefetch/speculative-prefetcher.js";
import type { AugmentedQuery } from "../../src/context/prefetch/query-augmenter.js";
import { createPrefetcher } from "../../src/context/prefetch/create-prefetcher.js";
import { INITIAL_PRIORS } from "../../src/context/prefetch/prefetch-config.js";

describe("AccessTracker (bounded)", () => {
  it("is hot after three accesses in the window or one in the last five turns", () => {
    const tracker = new AccessTracker();
    tracker.recordAccess("a", 1, "tool_retrieved");
    expect(tracker.isHot("a", 6)).toBe(true);
    expect(tracker.isHot("a", 7)).toBe(false);
    tracker.recordAccess("b", 1, "prefetch_used");
    tracker.recordAccess("b", 2, "prefetch_used");
    tracker.recordAccess("b", 3, "prefetch_used");
    expect(tracker.isHot("b", 20)).toBe(true);
    expect(tracker.isHot("missing", 1)).toBe(false);
  });

  it("forgets old accesses, least recently used ids, and keeps a fixed-size log", () => {
    const tracker = new AccessTracker({ countWindow: 10, maxTracked: 100, logSize: 50 });
    for (let turn = 1; turn <= 3; turn++) tracker.recordAccess("old", turn, "in_response");
    expect(tracker.isHot("old", 12)).toBe(false); // the three accesses decayed out of the window
    for (let index = 0; index < 1_000; index++) tracker.recordAccess(`id${index}`, 20, "tool_retrieved");
    expect(tracker.trackedCount).toBe(100);
    expect(tracker.isHot("id0", 20)).toBe(false);
    expect(tracker.isHot("id999", 20)).toBe(true);
    expect(tracker.recentEvents()).toHaveLength(50);
    expect(tracker.recentEvents().at(-1)?.contentId).toBe("id999");
    expect(tracker.shed(0.5)).toBe(50);
  });
});

describe("HotCache (an evictable cache)", () => {
  it("searches by term coverage, evicts least recently used, and shrinks to a new maximum", () => {
    const cache = new HotCache(1_000);
    cache.put("a", "src/a.ts", "jwt token validation");
    cache.put("b", "src/b.ts", "database migration");
    expect(cache.search(["jwt", "validation"], 5).map((hit) => [hit.entry.id, hit.coverage])).toEqual([["a", 1]]);
    cache.get("a");
    cache.put("c", "src/c.ts", "x".repeat(480)); // over the limit: b (least recently used) goes first
    expect(cache.has("b")).toBe(false);
    expect(cache.has("a")).toBe(true);
    expect(cache.currentSize()).toBeLessThanOrEqual(1_000);
    cache.setMaxSize(200);
    expect(cache.currentSize()).toBeLessThanOrEqual(200);
    expect(cache.evict(1)).toBeGreaterThanOrEqual(0);
    expect(cache.count).toBe(0);
  });
});

describe("CircuitBreaker", () => {
  it("opens after consecutive failures and lets a probe through after the reset time", () => {
    let now = 0;
    const breaker = new CircuitBreaker("vector", 3, 1_000, () => now);
    breaker.recordFailure();
    breaker.recordFailure();
    expect(breaker.allow()).toBe(true);
    breaker.recordFailure();
    expect(breaker.isOpen).toBe(true);
    now = 1_500;
    expect(breaker.allow()).toBe(true);
    breaker.recordSuccess();
    now = 1_600;
    expect(breaker.allow()).toBe(true);
  });
});

describe("MemoryPressureMonitor", () => {
  it("maps heap use to levels, shrinks registered caches and tells listeners", () => {
    let ratio = 0.1;
    const monitor = new MemoryPressureMonitor(() => ratio);
    const cache = new HotCache(1_000);
    monitor.registerEvictableCache(cache);
    const levels: string[] = [];
    monitor.onChange((level) => levels.push(level));
    for (const value of [0.1, 0.65, 0.8, 0.95, 0.2]) {
      ratio = value;
      monitor.check();
    }
    expect(levels).toEqual(["elevated", "high", "critical", "normal"]);
    expect(monitor.level).toBe("normal");
    cache.put("a", "s", "y".repeat(400));
    ratio = 0.8;
    monitor.check();
    expect(cache.currentSize()).toBeLessThanOrEqual(500);
  });
});

describe("speculative prefetch", () => {
  it("takes a result only if it is ready within the budget", async () => {
    // The clock is the test's: how long the budget is must not depend on how busy the machine is.
    vi.useFakeTimers();
    onTestFinished(() => void vi.useRealTimers());
    const result = { excerpts: [], summaries: [] } as unknown as AugmentedQuery;
    const ready = new PrefetchFuture(Promise.resolve(result));
    expect(await ready.getIfReady(10)).toBe(result);
    const answerAfter = (readyAfterMs: number) => {
      const answer = { settled: false, value: undefined as AugmentedQuery | undefined };
      void new PrefetchFuture(new Promise((resolve) => setTimeout(() => resolve(result), readyAfterMs))).getIfReady(10).then((value) => {
        Object.assign(answer, { settled: true, value });
      });
      return answer;
    };
    const slow = answerAfter(200);
    const soon = answerAfter(6);
    await vi.advanceTimersByTimeAsync(9);
    expect(slow.settled).toBe(false);
    expect(soon).toEqual({ settled: true, value: result });
    // The budget spent, the slow one gives up at once rather than at 200 ms.
    await vi.advanceTimersByTimeAsync(1);
    expect(slow).toEqual({ settled: true, value: undefined });
    expect(await new PrefetchFuture(Promise.reject(new Error("boom"))).getIfReady(10)).toBeUndefined();
  });

  it("predicts the next query from a tool call", () => {
    expect(predictedQuery("search_codebase", { query: "auth flow" })).toBe("auth flow");
    expect(predictedQuery("read_file", { path: "src/auth/jwt.ts" })).toBe("jwt");
    expect(predictedQuery("grep", { pattern: "validate\\(.*\\)" })).toMatch(/^validate\s+$/);
    expect(predictedQuery("run_command", { command: "ls" })).toBeUndefined();
  });
});

describe("PrefetchMetrics", () => {
  it("counts excerpts the answer used, hints a tool call expanded, and tokens saved", () => {
    const metrics = new PrefetchMetrics();
    const augmented = {
      excerpts: [
        { key: "chunk:1", path: "src/jwt.ts", source: "src/jwt.ts:1-10", content: "export function validateToken() {}" },
        { key: "chunk:2", path: "src/other.ts", source: "src/other.ts:1-2", content: "noise" },
      ],
      summaries: [{ key: "chunk:3", path: "src/middleware.ts", source: "src/middleware.ts" }],
      tokensUsed: 120,
    } as unknown as AugmentedQuery;
    const heard: string[][] = [];
    metrics.onOutcome((outcome) => heard.push(outcome.usedKeys));
    const outcome = metrics.recordOutcome(augmented, "The bug is in src/jwt.ts:4.", ['{"path":"src/middleware.ts"}']);
    expect(outcome.injectedKeys).toEqual(["chunk:1", "chunk:2", "chunk:3"]);
    expect(outcome.usedKeys).toEqual(["chunk:1", "chunk:3"]);
    expect(outcome.usedExcerpts.map((excerpt) => excerpt.path)).toEqual(["src/jwt.ts"]);
    expect(heard).toEqual([["chunk:1", "chunk:3"]]);
    expect(metrics.snapshot()).toEqual({
      totalPrefetches: 1,
      excerptsInjected: 2,
      excerptsUsed: 1,
      summariesInjected: 1,
      summariesExpanded: 1,
      tokensInjected: 120,
      tokensSaved: 500,
    });
  });
});

describe("PrefetchMetrics, a conversation entry's hint", () => {
  const augmented = {
    excerpts: [],
    summaries: [
      {
        key: "entry:e-41",
        entryId: "e-41",
        turn: 4,
        source: "turn 4 · agent_response",
        description: "The quota is seven birds per enclosure, counted at t…",
      },
      { key: "entry:e-77", entryId: "e-77", source: "turn 2 · agent_response · session 0a1b2c3d", description: "Another session's answer" },
      { key: "entry:e-90", source: "turn 9 · tool_result", description: "a hot entry without an id" },
    ],
    tokensUsed: 60,
  } as unknown as AugmentedQuery;
  const used = (response: string, calls: string[]) => new PrefetchMetrics().recordOutcome(augmented, response, calls).usedKeys;

  it("counts as used when retrieve_context names its entry, get_turn_range covers its turn, or the answer quotes or cites it", () => {
    expect(used("Done.", ['{"entry_id":"e-41","max_tokens":2000}'])).toEqual(["entry:e-41"]);
    expect(used("Done.", ['{"from_turn":3,"to_turn":5,"max_tokens":5000}'])).toEqual(["entry:e-41"]);
    expect(used('You said "The quota is seven birds per enclosure, counted at the census".', [])).toEqual(["entry:e-41"]);
    expect(used("As turn 9 · tool_result showed, it failed.", [])).toEqual(["entry:e-90"]);
  });

  it("does not count a turn range outside its turn, nor one over another session's entry (get_turn_range reads this session)", () => {
    expect(used("Done.", ['{"from_turn":5,"to_turn":8,"max_tokens":5000}'])).toEqual([]);
    expect(used("Done.", ['{"from_turn":1,"to_turn":3,"max_tokens":5000}'])).toEqual([]);
    expect(used("Done.", ["not json", '{"path":"turn 4"}'])).toEqual([]);
  });
});

describe("hot-cache promotion after a prefetch's outcome", () => {
  const augmented = {
    excerpts: [
      { key: "chunk:1", path: "src/jwt.ts", source: "src/jwt.ts:1-10", content: "export function validateToken() {}" },
      { key: "chunk:2", path: "src/other.ts", source: "src/other.ts:1-2", content: "noise" },
    ],
    summaries: [],
    tokensUsed: 80,
  } as unknown as AugmentedQuery;
  const prefetcherWith = (promoteUnused: boolean) =>
    createPrefetcher({
      services: { codeSearcher: { search: async () => ({ hits: [], degraded: [] }) }, contentStore: {} as never },
      windowTokens: 100_000,
      thresholds: () => ({ ...INITIAL_PRIORS, promoteUnused }),
    });

  it("promotes the excerpts the answer used, and the unused ones only when the learned settings say so", () => {
    const strict = prefetcherWith(false);
    strict.metrics.recordOutcome(augmented, "See src/jwt.ts.", []);
    expect(strict.hotCache.has("chunk:1")).toBe(true);
    expect(strict.hotCache.has("chunk:2")).toBe(false);
    const generous = prefetcherWith(true);
    generous.metrics.recordOutcome(augmented, "See src/jwt.ts.", []);
    expect(generous.hotCache.has("chunk:2")).toBe(true);
  });
});
