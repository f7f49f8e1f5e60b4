import * as z from "zod";
import { defineTool, toolDescription, type ToolDefinition } from "./tool.js";

const TASK_STATUSES = ["pending", "in_progress", "done"] as const;

export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface TaskList {
  items: Array<{ content: string; status: TaskStatus }>;
  /** Key decisions, oldest first: kept across calls and handoffs. */
  decisions: string[];
  /** Problems hit and not yet solved. */
  blockers: string[];
}

/** Where the session's task list lives (the project database; the prepared context reads it). */
export interface TaskListStore {
  load(): TaskList;
  save(list: TaskList): void;
  /** Decisions this call added (not noted before), kept where they can be searched (`search_decisions`). */
  recordDecisions?(decisions: readonly string[]): Promise<void>;
}

/** Notes are kept, not repeated: a list of a few hundred short lines at most. */
const MAX_NOTES = 200;
const MAX_NOTE_CHARS = 500;
const MAX_ITEMS = 100;

const schema = z.strictObject({
  todos: z
    .array(
      z.strictObject({
        content: z.string().trim().min(1).max(MAX_NOTE_CHARS).describe('What the item is, imperative: "Add a --json flag".'),
        status: z.enum(TASK_STATUSES).describe("pending, in_progress or done."),
      }),
    )
    .max(MAX_ITEMS)
    .describe("The whole list, in order; it replaces the previous one."),
  decisions: z.array(z.string().trim().min(1).max(MAX_NOTE_CHARS)).optional().describe("New key decisions, with their reason."),
  blockers: z.array(z.string().trim().min(1).max(MAX_NOTE_CHARS)).optional().describe("New problems hit and not yet solved."),
});

/**
 * The model's task list (`todo_write`, as users know it from other agents):
 * shown in the TUI's task panel, carried into a handoff's prepared context
 * verbatim, and stored with the session so `--continue` finds it.
 */
export function createTodoWriteTool(store: TaskListStore): ToolDefinition {
  return defineTool({
    name: "todo_write",
    description: toolDescription(import.meta.url, "todo-write.txt"),
    schema,
    // It changes nothing of the user's: Sylk's own record, allowed in every mode, plan included.
    kind: "read",
    targets: () => ({}),
    async execute(input) {
      const previous = store.load();
      const list: TaskList = {
        items: input.todos,
        decisions: appendNew(previous.decisions, input.decisions ?? []),
        blockers: appendNew(previous.blockers, input.blockers ?? []),
      };
      store.save(list);
      const added = list.decisions.filter((note) => !previous.decisions.includes(note));
      if (added.length > 0) await store.recordDecisions?.(added);
      const done = list.items.filter((item) => item.status === "done").length;
      return { output: renderTaskList(list), display: `${done}/${list.items.length} done` };
    },
  });
}

function appendNew(notes: readonly string[], added: readonly string[]): string[] {
  const seen = new Set(notes);
  const merged = [...notes];
  for (const note of added) {
    if (!seen.has(note)) merged.push(note);
    seen.add(note);
  }
  return merged.slice(-MAX_NOTES);
}

const MARKS: Record<TaskStatus, string> = { pending: "[ ]", in_progress: "[~]", done: "[x]" };

/** The list as the model and a handoff's state read it. */
export function renderTaskList(list: TaskList): string {
  const lines = list.items.length > 0 ? list.items.map((item) => `${MARKS[item.status]} ${item.content}`) : ["(no tasks)"];
  if (list.decisions.length > 0) lines.push("", "Decisions:", ...list.decisions.map((note) => `- ${note}`));
  if (list.blockers.length > 0) lines.push("", "Blockers:", ...list.blockers.map((note) => `- ${note}`));
  return lines.join("\n");
}
