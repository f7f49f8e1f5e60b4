import type { ToolHooks } from "../../agent/tools/tool-hooks.js";
import type { SessionHooks } from "../session-hooks.js";

/** The session's `PreToolUse` and `PostToolUse` hooks, as the tool registry asks them. */
export function toolHooksOf(hooks: SessionHooks): ToolHooks {
  return {
    async beforeTool(call, context) {
      if (!hooks.has("PreToolUse")) return {};
      const input = { tool_name: call.name, tool_input: call.input, tool_use_id: call.id };
      const outcome = await hooks.run("PreToolUse", input, context.signal);
      return {
        ...(outcome.blocked !== undefined ? { blocked: outcome.blocked } : {}),
        ...(outcome.permissionDecision ? { permissionDecision: outcome.permissionDecision } : {}),
        ...(outcome.permissionReason ? { reason: outcome.permissionReason } : {}),
        ...(outcome.additionalContext ? { additionalContext: outcome.additionalContext } : {}),
      };
    },
    async afterTool(call, result, context) {
      if (!hooks.has("PostToolUse")) return {};
      const input = {
        tool_name: call.name,
        tool_input: call.input,
        tool_use_id: call.id,
        tool_response: { output: result.output, is_error: result.isError },
      };
      const outcome = await hooks.run("PostToolUse", input, context.signal);
      return {
        ...(outcome.blocked !== undefined ? { feedback: outcome.blocked } : {}),
        ...(outcome.additionalContext ? { additionalContext: outcome.additionalContext } : {}),
      };
    },
  };
}
