import { Box, Text } from "ink";
import { visible } from "../../format/visible-text.js";
import type { GatedSetting } from "../../config/trust-gated-keys.js";
import { useTheme } from "../theme.js";
import { SelectList, type Choice } from "./select-list.js";

/** The folder was trusted before: on this date, with other gated settings, or by a version that kept no record of them. */
export interface TrustedBefore {
  at: string;
  reason: "changed" | "unrecorded";
}

interface TrustPromptProps {
  file: string;
  settings: readonly GatedSetting[];
  trustedBefore?: TrustedBefore;
  onAnswer: (trusted: boolean) => void;
}

// "No" first and highlighted: an Enter meant for something else must not grant trust.
const CHOICES: ReadonlyArray<Choice<boolean>> = [
  { label: "No, ignore these settings", value: false, key: "n" },
  { label: "Yes, I trust this folder", value: true, key: "y" },
];

/** A value past this is cut, saying how much is left out: the start of a URL alone could look like another host. */
const MAX_VALUE_CHARACTERS = 500;

/**
 * Asked before the index consent, only when the project's `.sylkrc` sets
 * what only a trusted folder may, once per folder and again whenever those
 * settings change: they are shown as written, so the user sees where
 * requests would go and what would run without asking.
 */
export function TrustPrompt({ file, settings, trustedBefore, onAnswer }: TrustPromptProps) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.warning} paddingX={1}>
      <Text bold color={theme.warning}>
        {trustedBefore ? "Trust this folder's new settings?" : "Trust this folder?"}
      </Text>
      {trustedBefore && (
        <Text>
          {trustedBefore.reason === "changed"
            ? `You trusted this folder on ${trustedBefore.at.slice(0, 10)}, but these settings have changed since: they are ignored until you trust them.`
            : `You trusted this folder on ${trustedBefore.at.slice(0, 10)} with a version of Sylk that did not record which settings: they are ignored until you trust them.`}
        </Text>
      )}
      <Text>{printable(file)} asks for settings that only a folder you trust may set:</Text>
      <Box flexDirection="column" marginY={1}>
        {settings.map((setting, index) => (
          <Text key={index}>
            {"  "}
            {printable(setting.key)} = <Text color={theme.accent}>{shownValue(setting.value)}</Text>
          </Text>
        ))}
      </Box>
      <Text dimColor>
        They can send your API key to another server or let the agent run commands without asking. Trust the folder only if you trust
        whoever wrote its files. Trust covers these values of this folder's .sylkrc only: if they change, Sylk asks again. Without trust
        Sylk ignores them; `sylk trust` grants it later.
      </Text>
      <Box marginTop={1}>
        <SelectList choices={CHOICES} onSelect={onAnswer} onCancel={() => onAnswer(false)} />
      </Box>
    </Box>
  );
}

function shownValue(value: unknown): string {
  const text = printable(JSON.stringify(value) ?? String(value));
  return text.length > MAX_VALUE_CHARACTERS
    ? `${text.slice(0, MAX_VALUE_CHARACTERS)}… (${text.length - MAX_VALUE_CHARACTERS} more characters)`
    : text;
}

/** The file is the attacker's: control, zero-width and bidi characters are shown as escapes, never interpreted. */
function printable(text: string): string {
  return visible(text, { newlines: false, tabs: "escape" });
}
