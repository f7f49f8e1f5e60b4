import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";
import { useTheme } from "../theme.js";

export interface Choice<T> {
  value: T;
  label: string;
}

interface SelectListProps<T> {
  choices: ReadonlyArray<Choice<T>>;
  onSelect: (value: T) => void;
  /** Esc; absent when there is no way out but a choice. */
  onCancel?: () => void;
}

/** Numbered choices: ↑/↓ and Enter, or the choice's number; Esc cancels. Answers once. */
export function SelectList<T>({ choices, onSelect, onCancel }: SelectListProps<T>) {
  const theme = useTheme();
  const [index, setIndex] = useState(0);
  // Refs: two keys in one chunk ("↓" then Enter) must see each other's effect, and a choice is final.
  const indexRef = useRef(0);
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

  useInput((input, key) => {
    if (answered.current) return;
    if (key.upArrow) move(-1);
    else if (key.downArrow || key.tab) move(1);
    else if (key.return) choose(choices[indexRef.current]?.value);
    else if (key.escape && onCancel) {
      answered.current = true;
      onCancel();
    } else if (/^[1-9]$/.test(input)) choose(choices[Number(input) - 1]?.value);
  });

  return (
    <Box flexDirection="column">
      {choices.map((choice, position) => {
        const selected = position === index;
        return (
          <Text key={choice.label} color={selected ? theme.accent : undefined} bold={selected}>
            {selected ? "❯ " : "  "}
            {position + 1}. {choice.label}
          </Text>
        );
      })}
    </Box>
  );
}
