import { useCallback, useEffect } from "react";
import type { BackgroundIndexing, IndexNotice, IndexView } from "../../app/background-indexing.js";
import type { ConsentStore } from "../../project/consent.js";
import type { AgentControls } from "./use-agent.js";
import { useIndexConsent } from "./use-index-consent.js";
import { useIndexing } from "./use-indexing.js";

/**
 * The background index as the screen sees it: its progress, its notices in
 * the transcript, the question whether it may run at all, and the user's
 * edits passed on to the conversation.
 */
export function useScreenIndexing(
  indexing: BackgroundIndexing,
  consentStore: ConsentStore,
  agent: AgentControls,
): { index: IndexView; consent: ReturnType<typeof useIndexConsent> } {
  const onNotice = useCallback((notice: IndexNotice) => agent.print({ kind: "note", tone: notice.tone, text: notice.text }), [agent.print]);
  // Files changed between answers are the user's edits: self-tuning retrieval reads them as an outcome.
  const agentSession = agent.session;
  useEffect(() => indexing.onFilesChanged((paths) => agentSession.filesChanged(paths)), [indexing, agentSession]);
  const index = useIndexing(indexing, onNotice);
  const consent = useIndexConsent(consentStore, (granted) => {
    if (granted) return indexing.start();
    indexing.disable();
    agent.print({
      kind: "note",
      tone: "warning",
      text: "Indexing is off: search_codebase and /search find nothing. `sylk index` allows it later.",
    });
  });
  return { index, consent };
}
