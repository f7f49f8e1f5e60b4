import { Box, Text } from "ink";
import { formatCount } from "../../format/numbers.js";
import { describeProgress } from "../../format/index-progress.js";
import type { IndexView } from "../../app/background-indexing.js";
import { useTheme } from "../theme.js";

/**
 * The background indexing line, in `sylk index`'s words:
 * `Indexing [████████░░] 80% - Indexed 1,234 / 1,542 files (412 files/s)`.
 * Nothing once the index is current.
 */
export function ProgressBar({ view }: { view: IndexView }) {
  const theme = useTheme();
  const line = progressLine(view);
  if (!line) return null;
  return (
    <Box paddingX={1}>
      <Text color={theme.accent}>{line}</Text>
    </Box>
  );
}

export function progressLine(view: IndexView): string | undefined {
  if (view.state === "embedding") return `Embedding ${formatCount(view.embedded)} (${formatCount(view.remaining)} left)`;
  if (view.state !== "indexing") return undefined;
  const { phase, total } = view.progress;
  if (phase === "indexing" && total > 0) return `Indexing ${describeProgress(view.progress)}`;
  return phase === "scanning" || phase === "saving" ? describeProgress(view.progress) : undefined;
}
