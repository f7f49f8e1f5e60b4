import { Text } from "ink";
import { visible } from "../../format/visible-text.js";

/** Prompts sent while a turn runs (or before the session opened), under the prompt, each in one line. */
export function QueuedPrompts({ prompts }: { prompts: readonly string[] }) {
  return prompts.map((prompt, position) => (
    <Text key={position} dimColor wrap="truncate-end">
      {"  "}queued: {visible(firstLine(prompt), { newlines: false })}
    </Text>
  ));
}

/** A queued prompt in one line: a long paste would otherwise be drawn in full under the prompt. */
function firstLine(prompt: string): string {
  const end = prompt.indexOf("\n");
  return end === -1 ? prompt : `${prompt.slice(0, end)} …`;
}
