import type { CodeSearchHit } from "../../search/hybrid-code-searcher.js";
import type { SearchOutcome } from "../../search/search-outcome.js";

/**
 * Whether a search result from the socket has the shape its readers rely on
 * (`sylk search`'s printers, `search_codebase`, prefetch), checked by hand:
 * the client loads no zod. Whatever else a server sends is not used.
 */
export function isCodeSearchOutcome(value: unknown): value is SearchOutcome<CodeSearchHit> {
  if (!isRecord(value)) return false;
  const { hits, degraded, fulltextIdealScore } = value;
  return (
    Array.isArray(hits) &&
    hits.every(isCodeSearchHit) &&
    Array.isArray(degraded) &&
    degraded.every((note) => typeof note === "string") &&
    (fulltextIdealScore === undefined || typeof fulltextIdealScore === "number")
  );
}

function isCodeSearchHit(value: unknown): value is CodeSearchHit {
  if (!isRecord(value)) return false;
  const numbers = [value.chunkId, value.startLine, value.endLine, value.score, value.fileLineCount];
  const texts = [value.path, value.snippet, value.content];
  const optionalTexts = [value.language, value.fileDescription];
  return (
    numbers.every((field) => typeof field === "number") &&
    texts.every((field) => typeof field === "string") &&
    optionalTexts.every((field) => field === null || typeof field === "string") &&
    Array.isArray(value.symbols) &&
    value.symbols.every((symbol) => typeof symbol === "string") &&
    isRecord(value.signals) &&
    Object.values(value.signals).every(
      (evidence) => isRecord(evidence) && typeof evidence.rank === "number" && typeof evidence.score === "number",
    )
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
