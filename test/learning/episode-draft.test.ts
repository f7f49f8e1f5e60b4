import { describe, expect, it } from "vitest";
import { AdaptiveState } from "../../src/learning/adaptive-state.js";
import { EpisodeDraft, FOLLOW_UP_WINDOW_MS } from "../../src/learning/episode-draft.js";
import { mulberry32 } from "../helpers/random-vectors.js";

const state = new AdaptiveState();
const draft = () => new EpisodeDraft("why does the build fail", [1, 0, 0], state.sample("ctx-0", mulberry32(1)));

describe("EpisodeDraft", () => {
  it("records the sample, tool calls and the searches the model still needed", () => {
    const episode = draft();
    episode.toolUsed("read_file", { path: "a.ts" });
    episode.toolUsed("grep", { pattern: "parseConfig" });
    episode.toolUsed("search_codebase", { query: "config loading" });
    episode.toolUsed("retrieve_context", { ref: "abc" });
    episode.prefetchOutcome({ injectedKeys: ["chunk:1", "chunk:2"], usedKeys: ["chunk:2"] });
    episode.finished({ stopReason: "end_turn", response: "Fixed in a.ts." }, 1000);
    const closed = episode.close(2000);
    expect(closed.toolCalls).toBe(4);
    expect(closed.searchedAfter).toEqual(["parseConfig", "config loading", "retrieve_context"]);
    expect(closed.prefetchedKeys).toEqual(["chunk:1", "chunk:2"]);
    expect(closed.usedKeys).toEqual(["chunk:2"]);
    expect(closed.taskCompleted).toBe(true);
    expect(closed.hedging).toBe(false);
    expect(closed.sampledThresholds).toEqual(episode.sample.sampledThresholds);
    expect(closed.contextId).toBe("ctx-0");
  });

  it("a next prompt soon after is a follow-up, a correction when it opens by correcting; later it is neither", () => {
    const answered = () => {
      const episode = draft();
      episode.finished({ stopReason: "end_turn", response: "Done." }, 10_000);
      return episode;
    };
    expect(answered().close(20_000, "also add a test")).toMatchObject({ followUps: 1, corrections: 0 });
    expect(answered().close(20_000, "no, that's wrong")).toMatchObject({ followUps: 0, corrections: 1 });
    expect(answered().close(10_000 + FOLLOW_UP_WINDOW_MS + 1, "no, that's wrong")).toMatchObject({ followUps: 0, corrections: 0 });
    expect(answered().close(20_000)).toMatchObject({ followUps: 0, corrections: 0 });
  });

  it("an interrupted or failed run did not complete; a hedging answer is seen", () => {
    const interrupted = draft();
    interrupted.finished({ stopReason: "interrupted", response: "" }, 1);
    expect(interrupted.close(2).taskCompleted).toBe(false);
    const failed = draft();
    failed.finished({ stopReason: "end_turn", response: "", error: { kind: "server", message: "boom" } }, 1);
    expect(failed.close(2).taskCompleted).toBe(false);
    const hedged = draft();
    hedged.finished({ stopReason: "end_turn", response: "I'm not sure where that is set." }, 1);
    expect(hedged.close(2).hedging).toBe(true);
  });

  it("files changed after the answer, and not by the agent, are the user's edits", () => {
    const episode = draft();
    episode.fileWritten("src/a.ts");
    episode.filesChanged(["src/b.ts"]); // during the run: the agent's work, not the user's
    episode.finished({ stopReason: "end_turn", response: "Done." }, 1);
    episode.filesChanged(["src/a.ts", "src/c.ts", "src/c.ts"]);
    expect(episode.close(2).userEdits).toBe(1);
  });

  it("a follow-up asking the same question again is a repeat; a new question is a plain follow-up", () => {
    const answered = () => {
      const episode = draft();
      episode.finished({ stopReason: "end_turn", response: "Done." }, 10_000);
      return episode;
    };
    expect(answered().close(20_000, "so why does the build fail?")).toMatchObject({ followUps: 1, repeats: 1 });
    expect(answered().close(20_000, "now add a test for the parser")).toMatchObject({ followUps: 1, repeats: 0 });
    expect(answered().close(20_000, "no, the build fails for another reason")).toMatchObject({ corrections: 1, repeats: 0 });
  });

  it("an injected file the run's own search returned again was not used, nor needed from the prefetch", () => {
    const episode = draft();
    const candidates = [
      { key: "chunk:1", path: "src/build.ts", confidence: 0.95, excerptTokens: 100, summaryTokens: 10 },
      { key: "chunk:2", path: "src/config.ts", confidence: 0.9, excerptTokens: 100, summaryTokens: 10 },
    ];
    episode.toolUsed("search_codebase", { query: "build fails" });
    episode.toolResult("search_codebase", "src/build.ts:10-40 (score 0.9)\nsrc/other.ts:1-5");
    episode.toolResult("read_file", "src/config.ts is read, not searched");
    episode.prefetchOutcome({
      injectedKeys: ["chunk:1", "chunk:2"],
      usedKeys: ["chunk:1", "chunk:2"],
      neededKeys: ["chunk:1", "chunk:2"],
      scored: { candidates, remainingTokens: 10_000, penalty: 1 },
    });
    episode.finished({ stopReason: "end_turn", response: "See src/build.ts and src/config.ts." }, 1);
    const closed = episode.close(2);
    expect(closed.usedKeys).toEqual(["chunk:2"]);
    expect(closed.prefetchRounds?.[0]?.neededKeys).toEqual(["chunk:2"]);
    expect(closed.injectionArm).toBe(episode.sample.injectionArm);
  });
});
