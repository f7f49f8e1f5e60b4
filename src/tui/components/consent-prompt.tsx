import { Box, Text } from "ink";
import { formatBytes } from "../../format/numbers.js";
import { visible } from "../../format/visible-text.js";
import type { ConsentAnswer } from "../hooks/use-index-consent.js";
import { useTheme } from "../theme.js";
import { SelectList, type Choice } from "./select-list.js";

interface ConsentPromptProps {
  root: string;
  database: string;
  maxFileSize: number;
  onAnswer: (answer: ConsentAnswer) => void;
}

/**
 * A yes is remembered, as `sylk index` remembers it: the question is not
 * asked again, and `sylk ask` may index the project. A no can wait for
 * another day, or stand.
 */
const CHOICES: ReadonlyArray<Choice<ConsentAnswer>> = [
  { label: "Yes", value: { granted: true, remember: true }, key: "y" },
  { label: "No, not now (chat without the index)", value: { granted: false, remember: false }, key: "n" },
  { label: "No, and don't ask again for this project", value: { granted: false, remember: true } },
];

/** First run in a project: what indexing reads, what it skips, where the index is kept. */
export function ConsentPrompt({ root, database, maxFileSize, onAnswer }: ConsentPromptProps) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.accent} paddingX={1}>
      <Text bold>Index this project?</Text>
      <Text>Sylk indexes the code so that it, and /search, can find things fast. It will read the files under</Text>
      <Text color={theme.accent}> {visible(root, { newlines: false })}</Text>
      <Text dimColor>
        Skipped: secrets (.env files, keys, certificates, credentials; key-like values are masked), files ignored by .gitignore or
        .sylkignore, binary files and files over {sizeLimit(maxFileSize)}.
      </Text>
      <Text dimColor>The index stays on this machine: {visible(database, { newlines: false })}</Text>
      <Box marginTop={1}>
        <SelectList choices={CHOICES} onSelect={onAnswer} />
      </Box>
    </Box>
  );
}

function sizeLimit(bytes: number): string {
  const mebibytes = bytes / (1 << 20);
  return Number.isInteger(mebibytes) ? `${mebibytes} MiB` : formatBytes(bytes);
}
