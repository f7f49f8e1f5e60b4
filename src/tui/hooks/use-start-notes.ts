import { useEffect } from "react";
import { describeSandbox, keptReadable } from "../../agent/sandbox/command-sandbox.js";
import type { ScreenReadModel } from "../../app/screen-read-model.js";
import { RECAP_ITEMS, recapEntries } from "../session-recap.js";
import type { TranscriptEntry } from "../transcript.js";
import type { AgentControls } from "./use-agent.js";

/**
 * Once, at start: the banner, what opening the project found wrong (the
 * command line's warnings, said here because the screen is already drawn),
 * whether commands can be sandboxed here, and, when resuming, where the
 * conversation stopped.
 */
export function useStartNotes(
  agent: AgentControls,
  project: Pick<ScreenReadModel, "recap">,
  banner: () => TranscriptEntry,
  openingNotices: readonly string[] = [],
): void {
  // biome-ignore lint/correctness/useExhaustiveDependencies: printed once; a later session or provider prints its own notes.
  useEffect(() => {
    const { sandbox, provider } = agent.session;
    const unsandboxed = [...(sandbox.state === "unavailable" ? [`${describeSandbox(sandbox)}.`] : []), ...keptReadable(sandbox)];
    const warnings: TranscriptEntry[] = [...openingNotices, ...(provider ? unsandboxed : [])].map((text) => ({
      kind: "note",
      tone: "warning",
      text,
    }));
    if (!agent.session.started) return agent.print(banner(), ...warnings);
    const resumedId = agent.session.sessionId;
    if (!resumedId) return agent.print(banner(), ...warnings);
    const recap = project.recap(resumedId, RECAP_ITEMS);
    const resumed: TranscriptEntry = {
      kind: "note",
      tone: "dim",
      text: `Resumed session ${resumedId.slice(0, 8)}${recap?.title ? `: ${recap.title}` : ""}`,
    };
    agent.print(banner(), ...warnings, resumed, ...recapEntries(recap?.items ?? []));
  }, []);
}
