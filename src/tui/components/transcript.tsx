import { Box, Static } from "ink";
import type { AgentViewState } from "../agent-state.js";
import type { TranscriptItem } from "../transcript.js";
import { useTerminalWidth } from "../hooks/use-terminal-width.js";
import { DiffView } from "./diff-view.js";
import { HelpView } from "./help-view.js";
import { AssistantMessage, Banner, Note, UserMessage } from "./message.js";
import { SearchResults } from "./search-results.js";
import { ThinkingLine } from "./thinking-line.js";
import { ToolCall } from "./tool-call.js";

/**
 * The conversation. Finished entries are printed once (Ink's <Static>), so a
 * long session costs nothing to redraw; only the running turn is live.
 */
export function Transcript({ state, awaitingApproval }: { state: AgentViewState; awaitingApproval: boolean }) {
  const idle = state.streaming === "" && state.tools.length === 0;
  // Printed entries are laid out apart from the screen's root: without a width, a row of columns (/help) grows past the terminal's.
  const columns = useTerminalWidth();
  return (
    <>
      <Static key={state.epoch} items={state.history}>
        {(item) => (
          <Box key={item.id} paddingX={1} flexDirection="column" width={columns}>
            <Entry item={item} expanded={state.expanded} />
          </Box>
        )}
      </Static>
      <Box paddingX={1} flexDirection="column">
        {state.streaming !== "" && <AssistantMessage text={state.streaming} live continued={state.streamedOut} />}
        {state.tools.map((call, index) => (
          <ToolCall key={call.id} call={call} awaitingApproval={awaitingApproval && index === state.tools.length - 1} />
        ))}
        {state.running && idle && <ThinkingLine />}
      </Box>
    </>
  );
}

function Entry({ item, expanded }: { item: TranscriptItem; expanded: boolean }) {
  switch (item.kind) {
    case "banner":
      return <Banner root={item.root} model={item.model} />;
    case "user":
      return <UserMessage text={item.text} />;
    case "assistant":
      return <AssistantMessage text={item.text} continued={item.continued ?? false} />;
    case "tool":
      return <ToolCall call={item.call} expanded={expanded} />;
    case "note":
      return <Note text={item.text} tone={item.tone} />;
    case "search":
      return <SearchResults response={item.response} />;
    case "help":
      return <HelpView commands={item.commands} />;
    case "diff":
      return <DiffView diff={item.diff} maxLines={Number.MAX_SAFE_INTEGER} withFiles />;
  }
}
