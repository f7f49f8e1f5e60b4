import * as z from "zod";
import type { PermissionDecision, PermissionPolicy, PermissionRequest } from "../permissions/permission-policy.js";
import { gitRunPaths } from "../sandbox/git-locations.js";
import { hiddenPathAmong } from "./project-paths-guard.js";
import { CANCELLED_BEFORE_RUNNING, CANCELLED_WHILE_RUNNING, settledOrCancelled } from "./tool-cancellation.js";
import { FatalToolError, isInfrastructureFailure, ToolError, type ToolContext, type ToolDefinition, type ToolOutput } from "./tool.js";
import { type DeferredTools, definitionText, FIND_TOOLS, specOf } from "./deferred-tools.js";
import { createFindToolsTool, findToolsTokens } from "./find-tools.js";
import { type BeforeToolAnswer, type HookedCall, type ToolHooks, withHookContext } from "./tool-hooks.js";
import { errorMessage } from "../../errors.js";

/** A tool as the model sees it (Anthropic `tools[]`, OpenAI `functions`). */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export type ApprovalAnswer = "allow-once" | "allow-session" | "deny";

/** Asks the user about a call the policy cannot decide alone (the TUI's approval dialog). */
export type Approver = (request: ApprovalRequest) => Promise<ApprovalAnswer>;

export interface ApprovalRequest extends PermissionRequest {
  input: unknown;
  reason: string;
  /** Only this one call can be approved (a protected path): "always" answers do not apply. */
  once?: boolean;
  /** The diff the call would make, when the tool can tell beforehand. */
  diff?: string;
  /** The sub-agent that asks (absent: the agent the user talks to). */
  agentId?: string;
}

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

export interface ToolRunResult extends ToolOutput {
  /** How the permission check went: decided by policy, by the user, or refused. */
  permission: "allowed" | "approved" | "denied";
}

/**
 * The one chokepoint between the model and the tools: arguments are
 * validated against the tool's zod schema (a mistake comes back as a
 * correction the model can act on), the permission policy decides (asking
 * the user through the approver when it cannot), and every failure becomes
 * an error result the model can act on, except a failure of the machinery
 * beneath the tools (`FatalToolError`), which ends the run. A call stops
 * being waited for soon after its signal aborts (`settledOrCancelled`). The
 * user's hooks run around each valid call: `PreToolUse` before the policy,
 * which it may tighten (or block the call), `PostToolUse` after the tool,
 * whose result it may add to.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();
  private readonly hooks: ToolHooks | undefined;
  private readonly readOnly: boolean;
  private readonly dynamicTools: () => readonly ToolDefinition[];
  private readonly deferred: DeferredTools | undefined;
  private readonly findTools: ToolDefinition | undefined;

  /**
   * `dynamicTools`: tools that come and go during the session (the MCP
   * servers' tools), asked for at each listing and call, after the fixed
   * ones: a server that connects after the session opened is in the next
   * model request's list. `deferred`: which tools wait, out of the
   * requests, until the model loads them with `find_tools`.
   */
  constructor(
    tools: readonly ToolDefinition[],
    private readonly policy: PermissionPolicy,
    private readonly approver?: Approver,
    options: { readOnly?: boolean; hooks?: ToolHooks; dynamicTools?: () => readonly ToolDefinition[]; deferred?: DeferredTools } = {},
  ) {
    this.hooks = options.hooks;
    this.readOnly = options.readOnly ?? false;
    this.dynamicTools = options.dynamicTools ?? (() => []);
    const deferred = options.deferred;
    this.deferred = deferred;
    this.findTools = deferred ? createFindToolsTool({ held: () => this.held(), load: (names) => deferred.load(names) }) : undefined;
    // A read-only role's registry holds read tools only, whatever list it was given: a wrong spec cannot widen it.
    for (const tool of tools) if (this.admits(tool)) this.tools.set(tool.name, tool);
  }

  /** What each model request is sent: every tool but the deferred ones not loaded yet, which `find_tools` stands for. */
  specs(): ToolSpec[] {
    const all = this.all();
    const held = new Set(this.held(all).map((tool) => tool.name));
    const sent = all.filter((tool) => !held.has(tool.name));
    return [...sent, ...(held.size > 0 && this.findTools ? [this.findTools] : [])].map(specOf);
  }

  /** Every tool the session offers, sent or deferred (`find_tools` is machinery, not one of them). */
  names(): string[] {
    return this.all().map((tool) => tool.name);
  }

  /** The names of the tools deferred and not loaded: out of the requests until `find_tools` loads them. */
  heldNames(): string[] {
    return this.held().map((tool) => tool.name);
  }

  private held(all: readonly ToolDefinition[] = this.all()): ToolDefinition[] {
    return this.deferred ? this.deferred.held(all, findToolsTokens) : [];
  }

  /** Whether calls of this tool may run beside each other (see `ToolDefinition.concurrent`). */
  isConcurrent(name: string): boolean {
    return this.find(name)?.concurrent === true;
  }

  private admits(tool: ToolDefinition): boolean {
    return !this.readOnly || tool.kind === "read";
  }

  /** The fixed tools, then the dynamic ones whose names no fixed tool has. */
  private all(): ToolDefinition[] {
    return [...this.tools.values(), ...this.dynamicTools().filter((tool) => this.admits(tool) && !this.tools.has(tool.name))];
  }

  private find(name: string): ToolDefinition | undefined {
    if (name === FIND_TOOLS && this.findTools) return this.findTools;
    return this.tools.get(name) ?? this.dynamicTools().find((tool) => tool.name === name && this.admits(tool));
  }

  /**
   * `userApproved`: the user asked for this call themselves (`!command` in
   * the TUI), which answers a question the policy would ask; what the
   * policy denies stays denied. `unlisted`: the call is not the model's
   * (a skill's step), so it runs a deferred tool without loading it into
   * the requests.
   */
  async run(call: ToolCall, context: ToolContext, options: { userApproved?: boolean; unlisted?: boolean } = {}): Promise<ToolRunResult> {
    const tool = this.find(call.name);
    if (!tool) {
      return { ...denied(`Unknown tool "${call.name}". Available tools: ${this.names().join(", ")}.`, true), failure: "malformed_input" };
    }
    // A deferred tool the model calls by name before loading it is loaded by that call and runs at once:
    // one model step fewer than an error telling it to call find_tools, and the same checks apply.
    const unloaded = !options.unlisted && this.heldNames().includes(tool.name);
    if (unloaded) this.deferred?.load([tool.name]);
    const parsed = tool.schema.safeParse(call.input ?? {});
    if (!parsed.success) {
      // The model guessed the input of a tool it had not seen: it is told the definition it now has.
      const definition = unloaded
        ? `\n\n${tool.name} was not loaded, so you had not seen its definition; it is in your tool list from your next step:\n${definitionText(tool)}`
        : "";
      return {
        ...denied(
          `Invalid input for ${tool.name}: ${z.prettifyError(parsed.error).replace(/\n/g, "; ")}. ` +
            `Call ${tool.name} again with input matching its schema.${definition}`,
          true,
        ),
        failure: "malformed_input",
      };
    }
    const input: unknown = parsed.data;
    const hooked = { id: call.id, name: tool.name, input };
    let before: BeforeToolAnswer | undefined;
    /** Whether the tool ran: only then do PostToolUse hooks see its result. */
    let ran = false;
    let permission: ToolRunResult["permission"] = "allowed";
    try {
      const targets = tool.targets(input, context);
      const request: PermissionRequest = {
        tool: tool.name,
        kind: tool.kind,
        targets,
        ...(tool.kind === "write" && targets.paths?.length ? { gitRuns: gitRunPaths(context.root, process.env) } : {}),
      };
      const hidden = hiddenPathAmong(request.targets.paths ?? [], context);
      if (hidden !== undefined) {
        return denied(
          `Permission denied: ${hidden} is in Sylk's own data directory (conversations, indexes, trust decisions); no tool reads or writes it.`,
          false,
        );
      }
      before = await this.hooks?.beforeTool(hooked, context);
      if (before?.blocked !== undefined) {
        const blocked = denied(`A PreToolUse hook blocked this call: ${before.blocked}`, false);
        return { ...blocked, output: withHookContext(blocked.output, [before.additionalContext]) };
      }
      const decision = withHookDecision(await this.policy.decide(request), before);
      if (decision.behavior === "deny") return denied(`Permission denied: ${decision.reason}`, false);
      if (decision.behavior === "ask" && options.userApproved) {
        permission = "approved";
      } else if (decision.behavior === "ask") {
        if (!this.approver && decision.unattended) return denied(`Permission denied: ${decision.unattended}`, false);
        if (!this.approver && decision.once) {
          return denied(
            `Permission denied: ${decision.reason}. Only the user's approval of this one call allows it, ` +
              "and this run cannot ask; no permission mode or allow rule covers it. Tell the user what you need done and why instead.",
            false,
          );
        }
        if (!this.approver) {
          return denied(
            `Permission denied: this run cannot ask the user (${decision.reason}). ` +
              "Writes and commands need --permission-mode accept-edits (file edits) or bypass, or an allow rule in .sylkrc.",
            false,
          );
        }
        // A call that cannot succeed fails here, with the error it would give, before the user is asked about it.
        const preview = tool.preview?.(input, context);
        const answer = await this.approver({
          ...request,
          input,
          reason: decision.reason,
          ...(decision.once ? { once: true } : {}),
          ...(preview?.diff !== undefined ? { diff: preview.diff } : {}),
        });
        if (answer === "deny") return denied("The user denied this call. Ask how they want to proceed.", false);
        if (answer === "allow-session" && !decision.once) this.policy.allowForSession(request);
        permission = "approved";
      }
      if (context.signal.aborted) return interrupted(CANCELLED_BEFORE_RUNNING, permission);
      ran = true;
      const running = tool.execute(input, { ...context, permittedTargets: request.targets });
      const output = tool.stopsOnAbort ? await running : await settledOrCancelled(running, context.signal);
      if (output === "cancelled") return interrupted(CANCELLED_WHILE_RUNNING, permission);
      return await this.afterHooks(hooked, { ...output, permission }, before, context);
    } catch (error) {
      // A tool that stopped on the signal with a message of its own keeps it; any other failure after Esc is the interruption's.
      if (context.signal.aborted && !(error instanceof ToolError)) return interrupted(CANCELLED_WHILE_RUNNING, permission);
      if (isInfrastructureFailure(error)) throw new FatalToolError(tool.name, error);
      const message = error instanceof ToolError ? error.message : `${tool.name} failed: ${errorMessage(error) ?? String(error)}`;
      const failure = error instanceof ToolError ? error.failure : undefined;
      const failed: ToolRunResult = { output: message, display: message, isError: true, permission, ...(failure ? { failure } : {}) };
      return ran ? this.afterHooks(hooked, failed, before, context) : failed;
    }
  }

  /** A call that ran, with what its PostToolUse hooks (and its PreToolUse ones) tell the model after its result. */
  private async afterHooks(
    call: HookedCall,
    result: ToolRunResult,
    before: BeforeToolAnswer | undefined,
    context: ToolContext,
  ): Promise<ToolRunResult> {
    if (!this.hooks) return result;
    const after = await this.hooks.afterTool(call, { output: result.output, isError: result.isError ?? false }, context);
    const feedback = after.feedback !== undefined ? `\n\nA PostToolUse hook objected: ${after.feedback}` : "";
    return { ...result, output: withHookContext(`${result.output}${feedback}`, [before?.additionalContext, after.additionalContext]) };
  }
}

/**
 * The policy's decision with the PreToolUse hooks' answer. `ask` turns an
 * allow into a question for this one call. `allow` (only a hook the user
 * wrote gives one) answers the mode's question as an allow rule would, and
 * nothing more: never a refusal (the blocklist, a deny rule, plan mode),
 * nor a question only the user may answer for that one call (a protected
 * path, a run outside the sandbox).
 */
function withHookDecision(decision: PermissionDecision, hooks: BeforeToolAnswer | undefined): PermissionDecision {
  if (!hooks?.permissionDecision || decision.behavior === "deny") return decision;
  const why = hooks.reason ? `: ${hooks.reason}` : "";
  if (hooks.permissionDecision === "ask") {
    return decision.behavior === "ask"
      ? { ...decision, reason: `${decision.reason} (a PreToolUse hook asks too${why})`, once: true }
      : { behavior: "ask", once: true, reason: `a PreToolUse hook asks${why}` };
  }
  return decision.behavior === "ask" && !decision.once ? { behavior: "allow" } : decision;
}

function interrupted(message: string, permission: ToolRunResult["permission"]): ToolRunResult {
  return { output: message, display: "Interrupted", isError: true, permission };
}

function denied(message: string, isInputError: boolean): ToolRunResult {
  return { output: message, display: message, isError: true, permission: isInputError ? "allowed" : "denied" };
}
