import { Box, Text } from "ink";
import { useRef, useState } from "react";
import { visible } from "../../format/visible-text.js";
import { useKeys } from "../hooks/use-keys.js";
import { useTheme } from "../theme.js";

export interface Choice<T> {
  value: T;
  label: string;
  /** A letter that picks this choice at once (`y`, `n`), besides its number. */
  key?: string;
}

interface SelectListProps<T> {
  choices: ReadonlyArray<Choice<T>>;
  onSelect: (value: T) => void;
  /** Esc; absent when there is no way out but a choice. */
  onCancel?: () => void;
  /** The choice highlighted at first (default: the first). */
  initialIndex?: number;
}

/**
 * Numbered choices: ↑/↓ and Enter, the choice's number, or its letter; Esc
 * cancels. Answers once. Keys can arrive several in one chunk (a fast typist
 * or a script sends `y\r` at once), so a chunk is read key by key: `y\r`
 * answers with the `y` choice, `↓\r` with the second.
 */
export function SelectList<T>({ choices, onSelect, onCancel, initialIndex = 0 }: SelectListProps<T>) {
  const theme = useTheme();
  const [index, setIndex] = useState(initialIndex);
  // Refs: two keys in one chunk ("↓" then Enter) must see each other's effect, and a choice is final.
  const indexRef = useRef(initialIndex);
  const answered = useRef(false);

  const choose = (value: T | undefined) => {
    if (value === undefined || answered.current) return;
    answered.current = true;
    onSelect(value);
  };
  const move = (delta: number) => {
    indexRef.current = (indexRef.current + delta + choices.length) % choices.length;
    setIndex(indexRef.current);
  };
  const typed = (character: string) => {
    if (character === "\r" || character === "\n") return choose(choices[indexRef.current]?.value);
    if (/^[1-9]$/.test(character)) return choose(choices[Number(character) - 1]?.value);
    const lower = character.toLowerCase();
    const match = choices.find((choice) => choice.key === lower);
    if (match) choose(match.value);
  };

  useKeys((input, key) => {
    if (answered.current) return;
    if (key.upArrow) move(-1);
    else if (key.downArrow || key.tab) move(1);
    else if (key.return) choose(choices[indexRef.current]?.value);
    else if (key.escape && onCancel) {
      answered.current = true;
      onCancel();
    } else if (!key.ctrl && !key.meta) {
      for (const character of input) {
        typed(character);
        if (answered.current) break;
      }
    }
  });

  return (
    <Box flexDirection="column">
      {choices.map((choice, position) => {
        const selected = position === index;
        return (
          <Text key={choice.label} color={selected ? theme.accent : undefined} bold={selected}>
            {selected ? "❯ " : "  "}
            {position + 1}. {visible(choice.label, { newlines: false })}
            {choice.key ? <Text dimColor> ({choice.key})</Text> : null}
          </Text>
        );
      })}
    </Box>
  );
}
