import * as z from "zod";
import type { ArchitectDesign } from "../../team/stage-state.js";
import { checkUnique, count, note, notes, relativePath, shortId } from "./structured-fields.js";
import type { StageSubmitDeps } from "./submit-plan.js";
import { defineTool, toolDescription, type ToolDefinition } from "./tool.js";

const schema = z
  .strictObject({
    summary: note().describe("The design in a few sentences: the approach, and why this one."),
    steps: z
      .array(
        z.strictObject({
          id: shortId().describe("A short id the engineer reports against: s1, s2, ..."),
          description: note().describe("What to do in this step."),
          files: z
            .array(relativePath())
            .max(50)
            .describe("Files the step creates or changes, relative to the project root (empty when none)."),
          done_when: note(500).describe("How to tell the step is done: a check anyone can make."),
        }),
      )
      .min(1)
      .max(50)
      .describe("The steps in the order they should be done."),
    key_decisions: notes().describe("Design decisions, each with its reason."),
    risks: notes().describe("What could go wrong, or is uncertain."),
  })
  .superRefine((design, context) =>
    checkUnique(
      design.steps.map((step) => step.id),
      "step id",
      (index) => ["steps", index, "id"],
      context,
    ),
  );

/** `submit_design`: the architect's design for a pipeline (Sylk's `ArchitectDesign`). */
export function createSubmitDesignTool(deps: StageSubmitDeps<ArchitectDesign>): ToolDefinition {
  return defineTool({
    name: "submit_design",
    description: toolDescription(import.meta.url, "submit-design.txt"),
    schema,
    // Sylk's own record of the design: it changes nothing of the user's.
    kind: "read",
    targets: () => ({}),
    async execute(input) {
      await deps.submit(input);
      const parts = [count(input.steps.length, "step"), count(input.key_decisions.length, "decision"), count(input.risks.length, "risk")];
      return {
        output: `Design recorded: ${parts.join(", ")}. End your turn now.`,
        display: `design: ${count(input.steps.length, "step")}`,
      };
    },
  });
}
