import * as z from "zod";
import { AGENT_TYPES } from "../../roles/agent-types.js";
import type { SubmittedPlan } from "../../team/stage-state.js";
import { checkUnique, count, note, notes, shortId } from "./structured-fields.js";
import { defineTool, toolDescription, type ToolDefinition } from "./tool.js";

/** Where a stage's structured result goes (the pipeline runner keeps the last one submitted). */
export interface StageSubmitDeps<Input> {
  submit(input: Input): void | Promise<void>;
}

const schema = z
  .strictObject({
    summary: note().describe("The plan in one or two sentences."),
    tasks: z
      .array(
        z.strictObject({
          id: shortId().describe("A short id other tasks can name in dependencies: t1, t2, ..."),
          description: note().describe('What the task is, imperative: "Add the --json option to sylk sessions".'),
          assigned_to: z
            .enum(AGENT_TYPES)
            .describe("The agent type that does it: architect designs, engineer implements, inspector reviews, tester tests."),
          dependencies: z.array(shortId()).max(50).optional().describe("Ids of the tasks that must be done first."),
        }),
      )
      .min(1)
      .max(50)
      .describe("The tasks in the order they should be done."),
    key_decisions: notes().describe("Decisions the plan makes, each with its reason."),
  })
  .superRefine((plan, context) => {
    const ids = plan.tasks.map((task) => task.id);
    checkUnique(ids, "task id", (index) => ["tasks", index, "id"], context);
    const known = new Set(ids);
    plan.tasks.forEach((task, index) => {
      for (const dependency of task.dependencies ?? []) {
        if (dependency === task.id)
          context.addIssue({ code: "custom", message: `task "${task.id}" depends on itself`, path: ["tasks", index, "dependencies"] });
        else if (!known.has(dependency))
          context.addIssue({
            code: "custom",
            message: `task "${task.id}" depends on "${dependency}", which is not a task of this plan`,
            path: ["tasks", index, "dependencies"],
          });
      }
    });
  });

/** `submit_plan`: the orchestrator's plan for a pipeline (tasks, each assigned to an agent type). */
export function createSubmitPlanTool(deps: StageSubmitDeps<SubmittedPlan>): ToolDefinition {
  return defineTool({
    name: "submit_plan",
    description: toolDescription(import.meta.url, "submit-plan.txt"),
    schema,
    // Sylk's own record of the plan: it changes nothing of the user's.
    kind: "read",
    targets: () => ({}),
    async execute(input) {
      await deps.submit(input);
      const byAgent = new Map<string, number>();
      for (const task of input.tasks) byAgent.set(task.assigned_to, (byAgent.get(task.assigned_to) ?? 0) + 1);
      const agents = [...byAgent].map(([agent, n]) => `${agent} ${n}`).join(", ");
      return {
        output: `Plan recorded: ${count(input.tasks.length, "task")} (${agents}). End your turn now.`,
        display: `plan: ${count(input.tasks.length, "task")}`,
      };
    },
  });
}
