import * as z from "zod";
import { defineTool, toolDescription, type ToolDefinition } from "./tool.js";

export interface RecordInquiryDeps {
  record(input: { topic: string; question: string; context: string }): { id: string };
}

/** `record_inquiry(topic, question, context)`: a question for the user; Sylk's own record, so kind `read`. */
export function createRecordInquiryTool(deps: RecordInquiryDeps): ToolDefinition {
  return defineTool({
    name: "record_inquiry",
    description: toolDescription(import.meta.url, "record-inquiry.txt"),
    schema: z.strictObject({
      topic: z.string().min(1).max(60).describe("A few words: what it is about."),
      question: z.string().min(1).max(500).describe("The question, as the user should read it."),
      context: z.string().min(1).max(500).describe("Why it matters: what you could not find or decide without it."),
    }),
    kind: "read",
    targets: () => ({}),
    async execute(input) {
      const inquiry = deps.record(input);
      return {
        output: `Recorded the question for the user (id ${inquiry.id.slice(0, 8)}). Go on with what you can do without the answer.`,
        display: `question for you: ${input.question}`,
      };
    },
  });
}
