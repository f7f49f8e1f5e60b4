import { truncate } from "./truncate.js";
import { visible } from "./visible-text.js";

type Input = Record<string, unknown>;

/** The fields a call is recognised by, most telling first, for tools with no summary of their own. */
const TELLING_FIELDS = [
  "path",
  "command",
  "url",
  "pattern",
  "query",
  "symbol",
  "name",
  "file",
  "topic",
  "question",
  "task",
  "content",
  "ref",
  "id",
];

/** Tools whose one argument does not say what the call does. */
const SUMMARIES: Record<string, (input: Input) => string | undefined> = {
  grep: (input) => searched(input.pattern, input.path, input.glob),
  glob: (input) => searched(input.pattern, input.path),
  todo_write: (input) => (Array.isArray(input.todos) ? tasks(input.todos) : undefined),
  get_symbol_context: (input) =>
    typeof input.symbol === "string" ? `${input.symbol}${typeof input.file === "string" ? ` in ${input.file}` : ""}` : undefined,
};

/**
 * `grep("isIdentifierName" in packages)`: what a tool call does, on one line
 * beside its name, in words a user reads at a glance, never the call's JSON.
 * The TUI and `sylk ask`'s progress lines both show calls this way.
 * Control characters are shown escaped before the line is cut, so the cut
 * counts what is drawn.
 */
export function summariseCall(name: string, input: unknown, max = 80): string {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return "";
  const record = input as Input;
  const summary = SUMMARIES[name]?.(record) ?? tellingField(record) ?? "";
  return truncate(visible(summary, { newlines: false, tabs: "escape" }), max);
}

function searched(pattern: unknown, path: unknown, glob?: unknown): string | undefined {
  if (typeof pattern !== "string") return undefined;
  const where = typeof path === "string" && path !== "" && path !== "." ? ` in ${path}` : "";
  return `${JSON.stringify(pattern)}${where}${typeof glob === "string" ? ` (${glob})` : ""}`;
}

function tasks(todos: readonly unknown[]): string {
  const done = todos.filter((todo) => (todo as Input | null)?.status === "done").length;
  return `${todos.length} ${todos.length === 1 ? "task" : "tasks"}${done > 0 ? `, ${done} done` : ""}`;
}

/** A telling field's text; else the first text field; else how many items the first list holds. */
function tellingField(input: Input): string | undefined {
  for (const field of TELLING_FIELDS) if (typeof input[field] === "string") return input[field];
  const text = Object.values(input).find((value): value is string => typeof value === "string");
  if (text !== undefined) return text;
  const list = Object.entries(input).find(([, value]) => Array.isArray(value));
  return list ? `${list[0]}: ${(list[1] as unknown[]).length} items` : undefined;
}
