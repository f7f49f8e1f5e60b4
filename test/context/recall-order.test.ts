import { describe, expect, it } from "vitest";
import { candidateCount, NO_WINDOW, recallOrder, windowViewOf } from "../../src/context/recall-order.js";
import type { ContentEntry } from "../../src/store/content-types.js";
import type { SessionMessageRow } from "../../src/store/session-repository.js";

function row(
  ordinal: number,
  message: SessionMessageRow["message"],
  entryIds: string[],
  evictedBy: string | null = null,
): SessionMessageRow {
  return { ordinal, message, turn: ordinal, entryIds, evictedBy };
}

/** A conversation: a prompt and a file read that left the window, then a prompt and the call that searches, still in it. */
const rows: SessionMessageRow[] = [
  row(0, { role: "user", content: [{ type: "text", text: "Read big.txt" }] }, ["prompt-1"], "ref1"),
  row(
    1,
    { role: "assistant", content: [{ type: "tool_use", id: "read_1", name: "read_file", input: { path: "big.txt" } }] },
    ["answer-1", "call-read"],
    "ref1",
  ),
  row(
    2,
    { role: "user", content: [{ type: "tool_result", toolUseId: "read_1", content: "NEEDLE-00", isError: false }] },
    ["result-read"],
    "ref1",
  ),
  row(3, { role: "user", content: [{ type: "text", text: "Where was NEEDLE-00?" }] }, ["prompt-2", "prefetch-2"]),
  row(
    4,
    {
      role: "assistant",
      content: [
        { type: "text", text: "Searching for NEEDLE-00." },
        { type: "tool_use", id: "grep_1", name: "grep", input: { pattern: "NEEDLE-00" } },
        { type: "tool_use", id: "retrieve_1", name: "retrieve_context", input: { query: "NEEDLE-00" } },
      ],
    },
    ["answer-2", "call-grep", "call-retrieve"],
  ),
];

function entry(id: string, parentId?: string, content = id): { entry: ContentEntry } {
  return {
    entry: {
      id,
      sessionId: "s",
      agentId: "a",
      agentType: "engineer",
      contentType: "tool_result",
      content,
      contentHash: id,
      tokenCount: 1,
      timestamp: 0,
      turnNumber: 0,
      keywords: [],
      entities: [],
      childIds: [],
      relatedFiles: [],
      metadata: {},
      ...(parentId ? { parentId } : {}),
    },
  };
}

describe("the window a history search ranks by", () => {
  it("holds every entry of a message no reference evicted, and names the message holding the call as the caller", () => {
    const view = windowViewOf({ rows: () => rows }, "retrieve_1");
    expect([...view.inWindow].sort()).toEqual(["answer-2", "call-grep", "call-retrieve", "prefetch-2", "prompt-2"]);
    expect([...view.calling].sort()).toEqual(["answer-2", "call-grep", "call-retrieve"]);
    expect(windowViewOf({ rows: () => rows }, undefined).calling.size).toBe(0);
    // A call of an evicted message (a resumed session's old id) names no caller.
    expect(windowViewOf({ rows: () => rows }, "read_1").calling.size).toBe(0);
  });

  it("leaves out the calling message and empty entries, and puts what the window holds after what left it, each in the search's order", () => {
    const view = windowViewOf({ rows: () => rows }, "retrieve_1");
    const hits = [
      entry("prompt-2"),
      entry("call-retrieve"),
      entry("answer-2"),
      // Another call of the same message already answered: its result goes to the model with this one.
      entry("result-grep", "call-grep"),
      entry("result-read", "call-read"),
      entry("other-session"),
      entry("prefetch-2"),
      entry("prompt-1"),
      // An answer that was only tool calls: the vector signal finds it near anything.
      entry("calls-only", undefined, ""),
    ];
    expect(recallOrder(hits, view).map((hit) => hit.entry.id)).toEqual([
      "result-read",
      "other-session",
      "prompt-1",
      "prompt-2",
      "result-grep",
      "prefetch-2",
    ]);
    // Without a window every hit with text stays, in order.
    expect(recallOrder(hits, NO_WINDOW)).toEqual(hits.slice(0, -1));
  });

  it("puts the entries the query's words matched before those only the vector signal found, each part with what left the window first", () => {
    const view = windowViewOf({ rows: () => rows }, "retrieve_1");
    const byVectors = (id: string) => ({ ...entry(id), signals: { vectors: { rank: 1 } } });
    const byWords = (id: string) => ({ ...entry(id), signals: { fulltext: { rank: 1 } } });
    const hits = [byVectors("prompt-1"), byVectors("prefetch-2"), byWords("prompt-2"), byWords("result-read"), byVectors("other-session")];
    expect(recallOrder(hits, view).map((hit) => hit.entry.id)).toEqual([
      "result-read",
      "prompt-2",
      "prompt-1",
      "other-session",
      "prefetch-2",
    ]);
  });

  it("asks the search for enough candidates to make up for those it moves down or drops, within a bound", () => {
    const view = windowViewOf({ rows: () => rows }, "retrieve_1");
    expect(candidateCount(10, view)).toBe(10 + 3 + 5);
    expect(candidateCount(10, NO_WINDOW)).toBe(10);
    const wide = { calling: new Set<string>(), inWindow: new Set(Array.from({ length: 1_000 }, (_, index) => `e${index}`)) };
    expect(candidateCount(50, wide)).toBe(200);
  });
});
