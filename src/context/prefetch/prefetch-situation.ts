import type { SessionMessageRow } from "../../store/session-repository.js";
import type { PrefetchSituation } from "./query-augmenter.js";

const PATH_TOOLS = new Set(["read_file", "edit_file", "write_file"]);
const AUTO_RETRIEVED_PATH = /\[AUTO-RETRIEVED: ([^:\]|]+):\d+-\d+/g;

/** What the window already shows, so prefetch does not inject it again. */
export function situationOf(rows: readonly SessionMessageRow[], sessionId: string, turn: number): PrefetchSituation {
  const inWindow = new Set<string>();
  const pathsInWindow = new Set<string>();
  for (const row of rows) {
    if (row.evictedBy) continue;
    for (const id of row.entryIds) inWindow.add(`entry:${id}`);
    for (const block of row.message.content) {
      if (block.type === "tool_use" && PATH_TOOLS.has(block.name) && typeof block.input.path === "string") {
        pathsInWindow.add(block.input.path.replace(/^\.\//, ""));
      }
      if (block.type === "text") for (const match of block.text.matchAll(AUTO_RETRIEVED_PATH)) if (match[1]) pathsInWindow.add(match[1]);
    }
  }
  return { sessionId, turn, inWindow, pathsInWindow };
}

/** The situation once these tool calls' results (recorded, not yet in the message list) are in the window too. */
export function withToolResults(
  situation: PrefetchSituation,
  results: ReadonlyArray<{ call: { name: string; input: Record<string, unknown> }; entryId?: string }>,
): PrefetchSituation {
  const inWindow = new Set(situation.inWindow);
  const pathsInWindow = new Set(situation.pathsInWindow);
  for (const { call, entryId } of results) {
    if (entryId) inWindow.add(`entry:${entryId}`);
    if (PATH_TOOLS.has(call.name) && typeof call.input.path === "string") pathsInWindow.add(call.input.path.replace(/^\.\//, ""));
  }
  return { ...situation, inWindow, pathsInWindow };
}

/** What a tool call suggests the model will want next (speculative prefetch on tool calls). */
export function predictedQuery(tool: string, input: Record<string, unknown>): string | undefined {
  const value = (key: string) => (typeof input[key] === "string" ? (input[key] as string) : undefined);
  switch (tool) {
    case "search_codebase":
      return value("query");
    case "grep":
      return value("pattern")?.replace(/[\\^$.*+?()[\]{}|]/g, " ");
    case "read_file":
      return value("path")
        ?.split("/")
        .pop()
        ?.replace(/\.[^.]+$/, "");
    default:
      return undefined;
  }
}
