import { PERMISSION_RULE_FORM, PERMISSION_RULE_HINT } from "../../config/permission-rule-form.js";
import { parseRule, type ParsedRule } from "./permission-rules.js";

/** The three kinds of rule, in the order they win: deny over ask, ask over allow. */
export const RULE_LISTS = ["allow", "ask", "deny"] as const;
export type RuleList = (typeof RULE_LISTS)[number];

/**
 * Rules the user added for this session (`/permissions allow <rule>`): the
 * configuration's syntax and parser, kept in memory only, never written to a
 * file. One set serves every conversation the user opens until they leave
 * (`/clear`, `/model` and `/resume` keep it); the policies of those
 * conversations read it at each decision.
 */
export class SessionRules {
  private readonly lists: Record<RuleList, ParsedRule[]> = { allow: [], ask: [], deny: [] };

  /** Adds a rule; throws with what is wrong with a malformed one. The same rule twice is kept once. */
  add(list: RuleList, rule: string): ParsedRule {
    const text = rule.trim();
    if (!PERMISSION_RULE_FORM.test(text)) {
      throw new Error(
        `"${rule}" is not a rule: a rule looks like ${PERMISSION_RULE_HINT}, e.g. run_command(npm test*), edit_file(src/**) or mcp__github__create_issue.`,
      );
    }
    const existing = this.lists[list].find((parsed) => parsed.text === text);
    if (existing) return existing;
    const parsed = parseRule(text);
    this.lists[list].push(parsed);
    return parsed;
  }

  rules(list: RuleList): readonly ParsedRule[] {
    return this.lists[list];
  }

  texts(list: RuleList): string[] {
    return this.lists[list].map((rule) => rule.text);
  }

  /** `/permissions reset`: the session's rules are dropped. */
  clear(): void {
    for (const list of RULE_LISTS) this.lists[list] = [];
  }
}
