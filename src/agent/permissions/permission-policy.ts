import picomatch from "picomatch";
import type { ToolKind, ToolTargets } from "../tools/tool.js";
import { dangerousCommandReason } from "./dangerous-commands.js";
import type { PermissionMode } from "./permission-modes.js";
import { protectedPaths } from "./protected-paths.js";

export { PERMISSION_MODES, type PermissionMode } from "./permission-modes.js";

export type PermissionDecision =
  | { behavior: "allow" }
  | { behavior: "deny"; reason: string }
  /** `once`: only an answer for this one call counts (protected paths): no "always" answer covers it. */
  | { behavior: "ask"; reason: string; once?: boolean };

/**
 * Rules in the form `tool` or `tool(pattern)`: `run_command(npm test*)`
 * matches commands by prefix glob, `edit_file(src/**)` matches paths.
 * Deny rules win over allow rules.
 */
export interface PermissionRules {
  allow: readonly string[];
  deny: readonly string[];
}

interface ParsedRule {
  tool: string;
  matches: ((value: string) => boolean) | undefined;
}

export interface PermissionRequest {
  tool: string;
  kind: ToolKind;
  targets: ToolTargets;
}

/** The rule name that opens the sandbox's network: `network` or `network(npm install*)`. */
export const NETWORK_RULE = "network";

export class PermissionPolicy {
  private readonly allowRules: ParsedRule[];
  private readonly denyRules: ParsedRule[];
  /** "Always allow for this session" answers: rules added at run time. */
  private readonly sessionRules: ParsedRule[] = [];

  constructor(
    private currentMode: PermissionMode,
    rules: PermissionRules = { allow: [], deny: [] },
  ) {
    this.allowRules = rules.allow.map(parseRule);
    this.denyRules = rules.deny.map(parseRule);
  }

  get mode(): PermissionMode {
    return this.currentMode;
  }

  /** The user switched modes in the session (Shift+Tab); rules and "always" answers stay. */
  setMode(mode: PermissionMode): void {
    this.currentMode = mode;
  }

  decide(request: PermissionRequest): PermissionDecision {
    const command = request.targets.command;
    if (command !== undefined) {
      const danger = dangerousCommandReason(command);
      if (danger) return { behavior: "deny", reason: `Refused in every permission mode: the command looks like ${danger}.` };
    }
    if (this.denyRules.some((rule) => ruleMatches(rule, request))) {
      return { behavior: "deny", reason: `A deny rule in the configuration forbids this ${request.tool} call.` };
    }
    if (request.kind === "read") return { behavior: "allow" };
    if (request.targets.unsandboxed) return this.decideUnsandboxed(command ?? request.tool);
    const guarded = request.kind === "write" ? protectedPaths(request.targets.paths ?? []) : [];
    if (guarded.length > 0) {
      if (this.mode === "plan") return { behavior: "deny", reason: "Plan mode is read-only: describe the change instead of making it." };
      return {
        behavior: "ask",
        once: true,
        reason: `Change a protected file: ${guarded.map((entry) => entry.reason).join("; ")}`,
      };
    }
    if ([...this.allowRules, ...this.sessionRules].some((rule) => ruleMatches(rule, request))) return { behavior: "allow" };
    switch (this.mode) {
      case "bypass":
        return { behavior: "allow" };
      case "plan":
        return { behavior: "deny", reason: "Plan mode is read-only: describe the change instead of making it." };
      case "accept-edits":
        if (request.kind === "write") return { behavior: "allow" };
        return { behavior: "ask", reason: `Run a command: ${command ?? request.tool}` };
      case "default":
        return {
          behavior: "ask",
          reason: request.kind === "write" ? `Change ${request.targets.paths?.join(", ") ?? "a file"}` : `Run a command: ${command ?? request.tool}`,
        };
    }
  }

  /**
   * A command to run outside the sandbox escapes every protection the
   * sandbox gives, so it is the user's call each time: no mode (bypass
   * included), allow rule or "always" answer covers it, and a run that
   * cannot ask refuses it. Plan mode refuses it as it refuses any command.
   */
  private decideUnsandboxed(command: string): PermissionDecision {
    if (this.mode === "plan") return { behavior: "deny", reason: "Plan mode is read-only: describe the change instead of making it." };
    return { behavior: "ask", once: true, reason: `Run outside the sandbox: ${command}` };
  }

  /**
   * Whether a sandboxed command may reach the network: an allow rule
   * `network` (every command) or `network(<command pattern>)` says so, and
   * a deny rule of the same form wins.
   */
  allowsNetwork(command: string): boolean {
    const request: PermissionRequest = { tool: NETWORK_RULE, kind: "execute", targets: { command } };
    if (this.denyRules.some((rule) => ruleMatches(rule, request))) return false;
    return this.allowRules.some((rule) => ruleMatches(rule, request));
  }

  /**
   * The user chose "always allow for this session": file changes with that
   * tool from now on, or that exact command again.
   */
  allowForSession(request: PermissionRequest): void {
    const command = request.targets.command;
    this.sessionRules.push({ tool: request.tool, matches: command === undefined ? undefined : (value) => value === command });
  }
}

/** Some of these allow rules open the sandbox's network for some commands. */
export function opensNetwork(allow: readonly string[]): boolean {
  return allow.some((rule) => parseRule(rule).tool === NETWORK_RULE);
}

function parseRule(rule: string): ParsedRule {
  const match = /^([a-z_]+)(?:\((.*)\))?$/.exec(rule.trim());
  if (!match?.[1]) throw new Error(`Permission rule "${rule}" must look like tool or tool(pattern).`);
  const pattern = match[2];
  if (pattern === undefined || pattern === "" || pattern === "*") return { tool: match[1], matches: undefined };
  const glob = picomatch(pattern, { dot: true });
  // A trailing * on a command rule is a prefix match: `npm test*` allows `npm test -- --watch`.
  const prefix = pattern.endsWith("*") ? pattern.replace(/\*+$/, "") : undefined;
  return { tool: match[1], matches: (value) => glob(value) || (prefix !== undefined && value.startsWith(prefix)) };
}

function ruleMatches(rule: ParsedRule, request: PermissionRequest): boolean {
  if (rule.tool !== request.tool) return false;
  if (!rule.matches) return true;
  const values = request.targets.command !== undefined ? [request.targets.command] : (request.targets.paths ?? []);
  return values.length > 0 && values.every((value) => rule.matches?.(value) ?? false);
}
