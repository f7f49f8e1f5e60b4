import { Box, Text } from "ink";
import { visible } from "../../format/visible-text.js";
import { summariseCall } from "../../format/call-summary.js";
import { formatElapsed } from "../format/text.js";
import { useElapsedSeconds } from "../hooks/use-elapsed.js";
import { useTheme, type Theme } from "../theme.js";
import type { SubAgentView, ToolCallView } from "../transcript.js";
import { DiffView } from "./diff-view.js";

/** Lines of a command's output shown beneath it, live and afterwards. */
const OUTPUT_LINES = 5;

interface ToolCallProps {
  call: ToolCallView;
  awaitingApproval?: boolean;
  /** The transcript view (Ctrl+O): the call's whole output instead of its last lines. */
  expanded?: boolean;
}

/**
 * `⏺ run_command(npm test)`, then `⎿` and the result on one line, and
 * beneath it the last lines of the command's output: live with the elapsed
 * time while it runs, the end of it once it returned (Ctrl+O shows all).
 * Names, arguments, results and output come from the model, files and
 * programs: their control characters are shown escaped, never acted on.
 */
export function ToolCall({ call, awaitingApproval = false, expanded = false }: ToolCallProps) {
  const theme = useTheme();
  const running = call.status === "running";
  // An edit's output is its summary (the result line) and the raw diff, which the numbered diff below shows better.
  const body = running ? call.tail : (call.details ?? (expanded && !call.diff ? call.output : undefined));
  return (
    <Box flexDirection="column">
      <Text>
        <Text color={markerColor(call.status, theme)}>⏺ </Text>
        <Text bold>{visible(call.name, { newlines: false })}</Text>({summariseCall(call.name, call.input)})
      </Text>
      <Box marginLeft={2}>
        {running && !awaitingApproval ? (
          <RunningLine startedAt={call.startedAt} />
        ) : (
          <Text color={resultColor(call.status, theme)} wrap="truncate-end">
            ⎿ {awaitingApproval ? "waiting for your answer…" : visible(resultText(call), { newlines: false })}
          </Text>
        )}
      </Box>
      {call.subagent && <SubAgentLines view={call.subagent} all={expanded} />}
      {body !== undefined && body.trim() !== "" && <OutputLines text={body} all={expanded && !running} printedLines={call.printedLines} />}
      {call.diff && (
        <Box marginLeft={4}>
          <DiffView diff={call.diff} maxLines={expanded ? Number.MAX_SAFE_INTEGER : undefined} />
        </Box>
      )}
    </Box>
  );
}

function RunningLine({ startedAt }: { startedAt: number | undefined }) {
  const seconds = useElapsedSeconds(startedAt);
  return <Text dimColor>⎿ running… {formatElapsed(seconds)}</Text>;
}

/** A sub-agent's name and its tool calls beneath the call that started it (the last few; Ctrl+O shows all). */
function SubAgentLines({ view, all }: { view: SubAgentView; all: boolean }) {
  const theme = useTheme();
  const shown = all ? view.steps : view.steps.slice(-OUTPUT_LINES);
  const hidden = view.steps.length - shown.length;
  const tokens = view.tokens !== undefined ? ` · ${view.tokens.toLocaleString("en-US")} tokens` : "";
  return (
    <Box marginLeft={4} flexDirection="column">
      <Text dimColor>
        {visible(`${view.agentId} (${view.agentType})`, { newlines: false })} · {view.steps.length} tool calls{tokens}
      </Text>
      {hidden > 0 && <Text dimColor>… {hidden} earlier calls (Ctrl+O shows everything)</Text>}
      {shown.map((step) => (
        <Text key={step.id} wrap="truncate-end">
          <Text color={markerColor(step.status, theme)}> ⏺ </Text>
          <Text dimColor>{visible(step.text, { newlines: false })}</Text>
        </Text>
      ))}
    </Box>
  );
}

/**
 * The end of an output (or all of it), dimmed and indented under the result
 * line; a program's colours are dropped. The lines above are counted from
 * all the call printed (`printedLines`), not from the part of it kept.
 */
function OutputLines({ text, all, printedLines }: { text: string; all: boolean; printedLines: number | undefined }) {
  const lines = visible(text.replace(/\n+$/, ""), { dropColours: true }).split("\n");
  const shown = all ? lines : lines.slice(-OUTPUT_LINES);
  const hidden = all ? 0 : Math.max(printedLines ?? 0, lines.length) - shown.length;
  return (
    <Box marginLeft={4} flexDirection="column">
      {hidden > 0 && <Text dimColor>… {hidden.toLocaleString("en-US")} more lines above (Ctrl+O shows everything)</Text>}
      {shown.map((line, index) => (
        <Text key={index} dimColor wrap={all ? "wrap" : "truncate-end"}>
          {line || " "}
        </Text>
      ))}
    </Box>
  );
}

function resultText(call: ToolCallView): string {
  switch (call.status) {
    case "running":
      return "running…";
    case "denied":
      return `denied: ${call.result ?? ""}`;
    case "error":
      return `✗ ${call.result ?? ""}`;
    default:
      return call.result ?? "";
  }
}

function markerColor(status: ToolCallView["status"], theme: Theme): string | undefined {
  if (status === "done") return theme.success;
  if (status === "running") return theme.muted;
  return status === "error" ? theme.error : theme.warning;
}

function resultColor(status: ToolCallView["status"], theme: Theme): string | undefined {
  if (status === "error") return theme.error;
  if (status === "denied" || status === "interrupted") return theme.warning;
  return undefined;
}
