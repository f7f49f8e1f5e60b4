import { PERMISSION_MODES, type PermissionMode } from "../../agent/permissions/permission-modes.js";
import type { RuleList } from "../../agent/permissions/session-rules.js";
import type { ListedRule, PermissionsView } from "../../app/session/session-permissions.js";
import { visible } from "../../format/visible-text.js";
import { PERMISSION_MODE_HINTS } from "../format/permission-modes.js";
import type { TranscriptEntry } from "../transcript.js";
import type { SlashCommandContext } from "./slash-context.js";

const USAGE = "Usage: /permissions [allow|ask|deny <rule> | mode <mode> | reset], e.g. /permissions allow run_command(npm test*)";

const note = (text: string, tone: "info" | "warning" | "error" | "dim" = "info"): TranscriptEntry => ({ kind: "note", tone, text });

/**
 * `/permissions`: what is allowed now, and changes for this session only:
 * rules (the configuration's syntax), the mode, or a reset to how the
 * session started. The user types these; the model's output never reaches
 * the slash commands. Nothing a rule allows gets around what the policy
 * always holds (protected files, the sandbox, the refused commands).
 */
export function permissionsCommand(argument: string, context: SlashCommandContext): void {
  const [verb = "", ...rest] = argument.split(/\s+/);
  const value = rest.join(" ").trim();
  const { agent } = context;
  const permissions = agent.session.permissions;
  switch (verb) {
    case "":
      return agent.print(note(permissionsText(permissions.view())));
    case "allow":
    case "ask":
    case "deny":
      if (!value) return agent.print(note(USAGE, "warning"));
      permissions.add(verb, value);
      return agent.print(
        note(`For this session, ${verb}: ${value}. ${RULE_EFFECT[verb]} Nothing is written to a file; /permissions reset drops it.`),
      );
    case "mode":
      return modeCommand(value, context);
    case "reset": {
      permissions.reset();
      context.permissionMode.set(context.permissionMode.initial);
      return agent.print(
        note(`This session's rules and "always" answers are dropped; the mode is ${context.permissionMode.initial} again.`),
      );
    }
    default:
      return agent.print(note(USAGE, "warning"));
  }
}

const RULE_EFFECT: Record<RuleList, string> = {
  allow: "Calls it covers run without asking, unless a deny or ask rule says otherwise.",
  ask: "Calls it matches are asked about each time, whatever allow rules and the mode say.",
  deny: "Calls it matches are refused, whatever else allows them.",
};

function modeCommand(requested: string, context: SlashCommandContext): void {
  const modes: readonly string[] = PERMISSION_MODES;
  if (!modes.includes(requested))
    return context.agent.print(note(`Usage: /permissions mode <mode>, one of ${PERMISSION_MODES.join(", ")}`, "warning"));
  const mode = requested as PermissionMode;
  // As with Shift+Tab, no command turns every question off in a session that did not start that way.
  if (mode === "bypass" && context.permissionMode.initial !== "bypass") {
    return context.agent.print(note("Bypass mode is only for a session started in it: run sylk --permission-mode bypass.", "warning"));
  }
  context.permissionMode.set(mode);
  context.agent.print(note(`${mode} mode for this session: ${PERMISSION_MODE_HINTS[mode]}.`));
}

function permissionsText(view: PermissionsView): string {
  const width = Math.max(12, ...view.rules.map((rule) => visible(rule.rule, { newlines: false }).length)) + 2;
  const rules = view.rules.map(
    (rule) => `  ${rule.list.padEnd(6)} ${visible(rule.rule, { newlines: false }).padEnd(width)}${originText(rule)}`,
  );
  const { tools, commands, memory } = view.answers;
  const answers = [...tools, ...commands, ...memory];
  return [
    `Mode: ${view.mode}: ${PERMISSION_MODE_HINTS[view.mode]}.`,
    "",
    "Rules (deny wins over ask, ask over allow):",
    ...(rules.length > 0 ? rules : ["  none: the mode decides"]),
    ...(answers.length > 0
      ? ["", `"Always" answers in this conversation: ${answers.map((answer) => visible(answer, { newlines: false })).join("; ")}`]
      : []),
    "",
    "Whatever the rules and the mode: a change to .git, .sylk, .sylkrc or .sylkignore is asked about each time; commands run in the",
    "sandbox; a command outside it is asked about each time; commands like rm -rf / or curl … | sh are refused.",
    "",
    "For this session: /permissions allow|ask|deny <rule> (e.g. run_command(npm test*), edit_file(src/**)), /permissions mode <mode>,",
    "/permissions reset. For good: permissions.allow, ask and deny in ~/.sylkrc, or in .sylkrc once the folder is trusted.",
  ].join("\n");
}

function originText(rule: ListedRule): string {
  switch (rule.origin) {
    case "session":
      return "this session";
    case "environment":
      return `the environment (SYLK_PERMISSIONS_${rule.list.toUpperCase()})`;
    case "flag":
      return "a command-line flag";
    default:
      return visible(rule.file ?? rule.origin, { newlines: false });
  }
}
