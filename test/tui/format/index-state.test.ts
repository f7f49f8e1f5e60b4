import { describe, expect, it } from "vitest";
import { checkIndex } from "../../../src/app/doctor.js";
import { sessionIndexState } from "../../../src/tui/format/index-state.js";

/** The index as /status and /doctor read it from the session: the background indexing's state, and damage met in this process. */

const damage = [{ index: "history", part: "postings bucket 3", problem: "its checksum does not match" }];

describe("the session's index state", () => {
  it("is indexing with its progress, refreshing or waiting while the indexer works: ok, searches use what is committed", () => {
    const indexing = sessionIndexState(
      { state: "indexing", progress: { phase: "indexing", indexed: 1_200, total: 3_400, failed: 0, elapsedMs: 900 } },
      [],
    );
    expect(indexing).toEqual({ state: "busy", doing: "indexing 1,200/3,400" });
    expect(checkIndex(indexing)).toMatchObject({
      status: "ok",
      detail: "indexing 1,200/3,400 (in the background; searches use what is committed)",
    });
    expect(sessionIndexState({ state: "refreshing", files: 2 }, [])).toEqual({ state: "busy", doing: "refreshing 2 files" });
    expect(sessionIndexState({ state: "waiting", holderPid: 4242 }, [])).toEqual({ state: "busy", doing: "waiting for pid 4242" });
  });

  it("is fresh, or damaged when a snapshot was found damaged, with `sylk index` as the fix", () => {
    expect(sessionIndexState({ state: "fresh" }, [])).toEqual({ state: "fresh" });
    const damaged = checkIndex(sessionIndexState({ state: "fresh" }, damage));
    expect(damaged.status).toBe("failed");
    expect(damaged.detail).toContain("the history full-text snapshot (postings bucket 3: its checksum does not match)");
    expect(damaged.fix).toMatch(/^run `sylk index`/);
  });

  it("is off before consent and once declined, and failed with the indexer's message", () => {
    expect(sessionIndexState({ state: "pending" }, [])).toEqual({ state: "off" });
    expect(sessionIndexState({ state: "off" }, damage)).toEqual({ state: "off" });
    expect(checkIndex(sessionIndexState({ state: "failed", message: "disk full" }, []))).toMatchObject({
      status: "failed",
      detail: "indexing failed: disk full",
    });
  });
});
