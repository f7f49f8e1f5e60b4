import type { SessionRecorder } from "../../agent/session-recorder.js";
import type { PageToKeep } from "../../agent/tools/web-fetch.js";
import { PARTS_PER_REFERENCE } from "../../agent/tools/web-fetch.js";
import type { UniversalContentStore } from "../../content-store/universal-content-store.js";
import { generateReference, newReferenceId, renderReference } from "../../context/context-reference.js";

/**
 * A fetched page kept in the session's history: every part a `web_fetch`
 * entry (masked by the store, found by search_history), and the parts the
 * result does not show behind references of a few parts each, whose markers
 * the result lists, so that retrieve_context brings each back whole.
 */
export async function keepFetchedPage(
  store: Pick<UniversalContentStore, "getSummariesByIds" | "storeReference" | "getReference">,
  recorder: SessionRecorder | undefined,
  page: PageToKeep,
): Promise<string[]> {
  if (!recorder) return [];
  const ids: string[] = [];
  for (const [index, content] of page.parts.entries()) {
    ids.push(
      await recorder.recordDerived({
        contentType: "web_fetch",
        content,
        metadata: { url: page.url, contentType: page.contentType, part: index + 1, parts: page.parts.length },
      }),
    );
  }
  const markers: string[] = [];
  for (let start = page.shown; start < ids.length; start += PARTS_PER_REFERENCE) {
    const entries = store.getSummariesByIds(ids.slice(start, start + PARTS_PER_REFERENCE));
    if (entries.length === 0) continue;
    const reference = generateReference({
      id: newReferenceId(store),
      sessionId: recorder.sessionId,
      agentId: recorder.agent.agentId,
      entries,
    });
    store.storeReference(reference);
    const last = Math.min(start + PARTS_PER_REFERENCE, ids.length);
    markers.push(`parts ${start + 1}–${last} of ${ids.length}: ${renderReference(reference)}`);
  }
  return markers;
}
