import { Box, Text } from "ink";
import { visible } from "../../format/visible-text.js";
import type { TaskView } from "../tool-call-views.js";
import { useTheme } from "../theme.js";

const MARKS: Record<TaskView["status"], string> = { pending: "☐", in_progress: "◐", done: "☑" };
/** Lines the panel takes at most; the items around the one in progress are shown. */
const MAX_ITEMS = 8;

/**
 * The model's task list (`todo_write`) above the prompt, as users know it
 * from other agents: shown while the agent works, the item in progress
 * highlighted, done items dimmed. Once the turn is over it leaves the
 * screen, items left or not (the agent picks them up with the next prompt;
 * its todo_write lines are in the transcript).
 */
export function TaskPanel({ tasks, running }: { tasks: readonly TaskView[]; running: boolean }) {
  const theme = useTheme();
  const done = tasks.filter((task) => task.status === "done").length;
  if (tasks.length === 0 || !running) return null;
  const focus = Math.max(
    0,
    tasks.findIndex((task) => task.status !== "done"),
  );
  const start = Math.max(0, Math.min(focus - 2, tasks.length - MAX_ITEMS));
  const shown = tasks.slice(start, start + MAX_ITEMS);
  return (
    <Box flexDirection="column" paddingX={1}>
      <Text color={theme.muted}>
        Tasks {done}/{tasks.length}
        {start > 0 ? ` (${start} earlier done)` : ""}
      </Text>
      {shown.map((task, index) => (
        <Text
          key={start + index}
          wrap="truncate-end"
          {...(task.status === "in_progress" ? { color: theme.accent, bold: true } : {})}
          {...(task.status === "done" ? { dimColor: true, strikethrough: true } : {})}
        >
          {"  "}
          {MARKS[task.status]} {visible(task.content, { newlines: false })}
        </Text>
      ))}
      {start + MAX_ITEMS < tasks.length && <Text color={theme.muted}>{`  … ${tasks.length - start - MAX_ITEMS} more`}</Text>}
    </Box>
  );
}
