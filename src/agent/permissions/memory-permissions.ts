import type { MemoryTarget } from "../tools/tool.js";
import type { PermissionMode } from "./permission-modes.js";

/**
 * Rules for the calls that keep something beyond the session (tool kind
 * `remember`: `save_knowledge`, `delete_knowledge`, `create_skill`): the
 * tool's name alone covers both scopes, `tool(scope:user)` or
 * `tool(scope:project)` one of them. In a deny rule an argument of another
 * form covers both scopes (a typo must not let a denied save through); in
 * an allow rule it covers nothing.
 */
export interface MemoryRule {
  tool: string;
  scope: MemoryTarget["scope"] | "any" | "none";
}

export type MemoryDecision =
  | { behavior: "allow" }
  | { behavior: "deny"; reason: string }
  /** `unattended`: what a run that cannot ask answers instead (how to allow it there). */
  | { behavior: "ask"; reason: string; unattended: string };

export function memoryRulesOf(rules: readonly string[], kind: "allow" | "deny"): MemoryRule[] {
  return rules.flatMap((rule): MemoryRule[] => {
    const match = /^([a-z_]+)(?:\((.*)\))?$/.exec(rule.trim());
    if (!match?.[1]) return [];
    return [{ tool: match[1], scope: scopeOf((match[2] ?? "").replace(/\s+/g, ""), kind) }];
  });
}

function scopeOf(argument: string, kind: "allow" | "deny"): MemoryRule["scope"] {
  if (argument === "" || argument === "*" || argument === "scope:*") return "any";
  if (argument === "scope:user") return "user";
  if (argument === "scope:project") return "project";
  return kind === "deny" ? "any" : "none";
}

function covers(rule: MemoryRule, tool: string, scope: MemoryTarget["scope"]): boolean {
  return rule.tool === tool && (rule.scope === "any" || rule.scope === scope);
}

/**
 * The policy for one `remember` call. Deny rules and plan mode refuse it;
 * an ask rule has it asked about; otherwise bypass, an allow rule or an
 * "always" answer of this session allow it;
 * accept-edits allows what stays with this project (like an edit of its
 * files, it reaches no other project), never what every project will read;
 * anything else is asked, and a run that cannot ask is told how to allow it.
 */
export function decideMemoryCall(
  request: { tool: string; memory: MemoryTarget | undefined },
  mode: PermissionMode,
  rules: { allow: readonly MemoryRule[]; deny: readonly MemoryRule[]; ask?: readonly MemoryRule[] },
): MemoryDecision {
  // A remember tool that cannot say where it keeps things is judged as keeping them for every project.
  const memory = request.memory ?? { scope: "user" as const, what: request.tool };
  const where = memory.scope === "user" ? "for every project" : "for this project";
  if (rules.deny.some((rule) => covers(rule, request.tool, memory.scope))) {
    return { behavior: "deny", reason: `A deny rule in the configuration forbids this ${request.tool} call.` };
  }
  if (mode === "plan") {
    return { behavior: "deny", reason: `Plan mode changes nothing, Sylk's memory included: say what you would keep ${where} instead.` };
  }
  const rule = `${request.tool}(scope:${memory.scope})`;
  const asked = (rules.ask ?? []).some((candidate) => covers(candidate, request.tool, memory.scope));
  if (!asked && (mode === "bypass" || rules.allow.some((candidate) => covers(candidate, request.tool, memory.scope))))
    return { behavior: "allow" };
  if (!asked && mode === "accept-edits" && memory.scope === "project") return { behavior: "allow" };
  const otherwise = memory.scope === "project" ? ", or run with --permission-mode accept-edits" : "";
  return {
    behavior: "ask",
    reason: `Keep beyond this session, ${where}: ${memory.what}`,
    unattended:
      `${request.tool} ${where} needs the user's approval, and this run cannot ask. ` +
      `To allow it in scripted runs, the user can add the allow rule "${rule}" to permissions in ~/.sylkrc${otherwise}. ` +
      "Tell the user what you wanted to keep instead.",
  };
}
