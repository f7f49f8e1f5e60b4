import { visible } from "../format/visible-text.js";

/**
 * What a command writes for a person to read, on a terminal or into a file
 * or a pipe alike (`sylk … | tee log` and `less -R` reach a terminal too):
 * the characters a terminal would act on or that hide text are shown
 * escaped (`\e`, `\r`, `\u202e`, see `visibleText`). Line breaks and tabs
 * are kept: no layout measures this text, and a file keeps them as they
 * were. Scripts that need the exact text read `--json` (or `--output-format
 * json`), where JSON escapes carry it losslessly.
 */
export function terminalText(text: string): string {
  return visible(text, { tabs: "keep" });
}

/** A one-line field within such text (a path, a title, a tool's argument): a line break in it is shown as `\n`, so it cannot pass for a line of its own. */
export function terminalField(text: string): string {
  return visible(text, { newlines: false, tabs: "escape" });
}
