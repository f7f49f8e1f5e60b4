import type { CustomCommand } from "./command-file.js";

/**
 * A custom command's prompt with its arguments in place, as Claude Code
 * expands them: `$ARGUMENTS` is everything after the name, `$1`…`$9` its
 * words (quotes group words; a missing one is empty). A body that uses
 * neither gets the arguments appended as `ARGUMENTS: …`, so they are never
 * lost. `@path` mentions are left for the prompt's attachments.
 */
export function expandCommand(command: Pick<CustomCommand, "body">, args: string): string {
  const words = splitWords(args);
  let used = false;
  const expanded = command.body.replace(/\$ARGUMENTS\b|\$([1-9])(?![0-9])/g, (_whole: string, digit: string | undefined) => {
    used = true;
    return digit === undefined ? args : (words[Number(digit) - 1] ?? "");
  });
  if (used || args === "") return expanded;
  return `${expanded}\n\nARGUMENTS: ${args}`;
}

/** Words as a shell would group them for a user: spaces split, single or double quotes hold a word together. */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3] ?? "");
  return words;
}
