import type { PermissionMode, PermissionPolicy, SessionAnswers } from "../../agent/permissions/permission-policy.js";
import { NETWORK_RULE } from "../../agent/permissions/permission-policy.js";
import { RULE_LISTS, type RuleList, type SessionRules } from "../../agent/permissions/session-rules.js";
import type { LoadedConfig } from "../../config/load-config.js";

/** Where a rule came from: a configuration layer, or the user in this session. */
export type RuleOrigin = "user" | "project" | "environment" | "flag" | "session";

export interface ListedRule {
  list: RuleList;
  rule: string;
  origin: RuleOrigin;
  /** The file of a `user` or `project` rule. */
  file?: string;
}

export interface PermissionsView {
  mode: PermissionMode;
  /** Deny rules first (they win), then ask, then allow; the configuration's before the session's. */
  rules: ListedRule[];
  answers: SessionAnswers;
}

/** `/permissions`: what is allowed now, and the rules the user adds for this session only. */
export interface SessionPermissions {
  view(): PermissionsView;
  /** Adds a rule for this session; throws, saying why, for a malformed rule or one that names no tool of this session. */
  add(list: RuleList, rule: string): void;
  /** Drops this session's rules and "always" answers; the configuration's rules stay. */
  reset(): void;
}

/**
 * The session tree's policy as `/permissions` sees and changes it. Rules
 * added here go to the tree's `SessionRules`, which no file ever holds; the
 * configuration's rules are listed with the layer that set them (a list set
 * in a file replaces the lower layer's whole list).
 */
export function sessionPermissions(
  tree: { policy: PermissionPolicy; sessionRules: SessionRules },
  loaded: LoadedConfig,
  toolNames: readonly string[],
): SessionPermissions {
  const tools = new Set([...toolNames, NETWORK_RULE]);
  return {
    view: () => ({
      mode: tree.policy.mode,
      rules: [...RULE_LISTS]
        .reverse()
        .flatMap((list) => [
          ...configRules(loaded, list),
          ...tree.sessionRules.texts(list).map((rule) => ({ list, rule, origin: "session" as const })),
        ]),
      answers: tree.policy.sessionAnswers(),
    }),
    add(list, rule) {
      const tool = /^\s*([a-z_]+)/.exec(rule)?.[1];
      // An MCP server's tools come and go with it: a rule may name one that is not connected yet.
      if (tool !== undefined && !tool.startsWith("mcp__") && !tools.has(tool)) {
        throw new Error(`No tool is named ${tool}: a rule names one of ${[...tools].sort().join(", ")}.`);
      }
      tree.sessionRules.add(list, rule);
    },
    reset() {
      tree.sessionRules.clear();
      tree.policy.forgetSessionAnswers();
    },
  };
}

function configRules(loaded: LoadedConfig, list: RuleList): ListedRule[] {
  const source = loaded.sources.get(`permissions.${list}`);
  // The defaults hold no rules: a rule was set by a layer.
  if (!source || source.source === "default") return [];
  const origin: RuleOrigin = source.source === "env" ? "environment" : source.source;
  const file = source.source === "user" || source.source === "project" ? { file: source.origin } : {};
  return loaded.config.permissions[list].map((rule) => ({ list, rule, origin, ...file }));
}
