import { loadBashParser, type ShellSyntaxParser } from "../../parsing/bash-parser.js";
import type { ToolKind, ToolTargets } from "../tools/tool.js";
import { textFragments } from "./command-fragments.js";
import { dangerousCommandReason } from "../../security/dangerous-commands.js";
import { decideMemoryCall, memoryRulesOf, type MemoryRule } from "./memory-permissions.js";
import type { PermissionMode } from "./permission-modes.js";
import {
  commandCoverage,
  commandDenial,
  coversPaths,
  describeDenial,
  parseRule,
  ruleNamesTool,
  type Coverage,
  type Denial,
  type ParsedRule,
} from "./permission-rules.js";
import { protectedPaths } from "./protected-paths.js";
import { SessionRules, type RuleList } from "./session-rules.js";
import { analyseShellCommand, type ShellAnalysis } from "./shell-commands.js";
import { unquotedText } from "./simple-command.js";
import { errorMessage } from "../../errors.js";

export { PERMISSION_MODES, type PermissionMode } from "./permission-modes.js";

export type PermissionDecision =
  | { behavior: "allow" }
  | { behavior: "deny"; reason: string }
  /**
   * `once`: only an answer for this one call counts (protected paths): no "always" answer covers it.
   * `unattended`: what a run that cannot ask answers instead, when the general answer would mislead.
   */
  | { behavior: "ask"; reason: string; once?: boolean; unattended?: string };

/**
 * Rules in the form `tool` or `tool(pattern)`. A command rule
 * (`run_command(npm test*)`) judges each simple command of a command line
 * (`shell-commands.ts`): allow rules cover the line when they cover every
 * one, a deny or ask rule applies when it matches any. Path rules
 * (`edit_file(src/**)`) match paths by glob. Deny rules win over ask rules,
 * ask rules over allow rules, wherever each came from.
 */
export interface PermissionRules {
  allow: readonly string[];
  deny: readonly string[];
  /** Asked about every time: no allow rule, "always" answer or mode skips the question. */
  ask?: readonly string[];
}

/** The "always allow for this session" answers given so far. */
export interface SessionAnswers {
  /** Tools whose every file change is allowed. */
  tools: string[];
  /** Exact command lines allowed again (`tool: command`). */
  commands: string[];
  /** `tool(scope:…)` for calls that keep something beyond the session. */
  memory: string[];
}

export interface PermissionRequest {
  tool: string;
  kind: ToolKind;
  targets: ToolTargets;
  /** For a write: what the repository's git runs from inside the project (`gitRunPaths`), protected as `.git` is. */
  gitRuns?: readonly string[];
}

/** The rule name that opens the sandbox's network: `network` or `network(npm install*)`. */
export const NETWORK_RULE = "network";

export class PermissionPolicy {
  private readonly configRules: Record<RuleList, ParsedRule[]>;
  /** "Always allow for this session" answers: every call of a tool that runs no command (file changes)... */
  private readonly sessionTools = new Set<string>();
  /** ...or one exact command line again. */
  private readonly sessionCommands = new Set<string>();
  private readonly shellParser: Promise<ShellSyntaxParser | Error>;
  /** The configuration's rules as calls of kind `remember` read them (see `memory-permissions.ts`). */
  private readonly memoryRules: { allow: MemoryRule[]; deny: MemoryRule[]; ask: MemoryRule[] };
  /** "Always" answers to calls of kind `remember`. */
  private readonly memoryAnswers: MemoryRule[] = [];
  /** Allow rules of the runs under way that brought their own (a custom command's `allowed-tools`). */
  private readonly runGrants: ParsedRule[][] = [];

  /**
   * `shellParser`: reads command lines; it starts loading here, at the
   * start of the session. If it fails to load, no command line can be
   * judged by rules: each is asked about, and deny rules still look at its
   * pieces. `session`: the rules the user added for this session
   * (`/permissions`), read at each decision.
   */
  constructor(
    private currentMode: PermissionMode,
    rules: PermissionRules = { allow: [], deny: [] },
    shellParser: Promise<ShellSyntaxParser> = loadBashParser(),
    private readonly session: SessionRules = new SessionRules(),
  ) {
    this.configRules = { allow: rules.allow.map(parseRule), ask: (rules.ask ?? []).map(parseRule), deny: rules.deny.map(parseRule) };
    this.shellParser = shellParser.catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    this.memoryRules = {
      allow: memoryRulesOf(rules.allow, "allow"),
      deny: memoryRulesOf(rules.deny, "deny"),
      ask: memoryRulesOf(rules.ask ?? [], "allow"),
    };
  }

  get mode(): PermissionMode {
    return this.currentMode;
  }

  /** The user switched modes in the session (Shift+Tab); rules and "always" answers stay. */
  setMode(mode: PermissionMode): void {
    this.currentMode = mode;
  }

  /** The "always" answers given in this conversation, for `/permissions`. */
  sessionAnswers(): SessionAnswers {
    return {
      tools: [...this.sessionTools],
      commands: [...this.sessionCommands].map((key) => key.replace("\u0000", ": ")),
      memory: this.memoryAnswers.map((rule) => `${rule.tool}(scope:${rule.scope})`),
    };
  }

  /** `/permissions reset`: the "always" answers are forgotten (the session's rules are the caller's to clear). */
  forgetSessionAnswers(): void {
    this.sessionTools.clear();
    this.sessionCommands.clear();
    this.memoryAnswers.length = 0;
  }

  async decide(request: PermissionRequest): Promise<PermissionDecision> {
    if (request.kind === "remember") return this.decideMemory(request);
    if (request.kind === "network") return this.decideFetch(request);
    const command = request.targets.command;
    const analysis = command === undefined ? undefined : await this.analyse(command);
    if (command !== undefined && analysis) {
      const danger = blocklisted(command, analysis);
      if (danger) return { behavior: "deny", reason: `Refused in every permission mode: the command looks like ${danger}.` };
    }
    const denial = this.matching(this.rules("deny"), request, analysis);
    if (denial) {
      const where = this.session.rules("deny").includes(denial.rule) ? "the user set for this session" : "in the configuration";
      return { behavior: "deny", reason: describeDenial(request.tool, denial, where) };
    }
    const asked = this.askedByRule(request, analysis);
    if (request.kind === "read") return asked ?? { behavior: "allow" };
    if (request.kind === "mcp") return asked ?? this.decideMcp(request);
    if (request.targets.unsandboxed) return this.decideUnsandboxed(command ?? request.tool);
    const guarded = request.kind === "write" ? protectedPaths(request.targets.paths ?? [], request.gitRuns) : [];
    if (guarded.length > 0) {
      if (this.mode === "plan") return { behavior: "deny", reason: "Plan mode is read-only: describe the change instead of making it." };
      return {
        behavior: "ask",
        once: true,
        reason: `Change a protected file: ${guarded.map((entry) => entry.reason).join("; ")}`,
      };
    }
    if (asked)
      return this.mode === "plan"
        ? { behavior: "deny", reason: "Plan mode is read-only: describe the change instead of making it." }
        : asked;
    const coverage = this.coverage(request, analysis);
    if (coverage.covered) return { behavior: "allow" };
    const runReason = `Run a command: ${command ?? request.tool}${coverage.why ? ` (${coverage.why})` : ""}`;
    switch (this.mode) {
      case "bypass":
        return { behavior: "allow" };
      case "plan":
        return { behavior: "deny", reason: "Plan mode is read-only: describe the change instead of making it." };
      case "accept-edits":
        if (request.kind === "write") return { behavior: "allow" };
        return { behavior: "ask", reason: runReason };
      case "default":
        return {
          behavior: "ask",
          reason: request.kind === "write" ? `Change ${request.targets.paths?.join(", ") ?? "a file"}` : runReason,
        };
    }
  }

  /**
   * Allow rules for one run (a custom command's `allowed-tools`), its
   * sub-agents' calls included since they share this policy; the returned
   * function takes them back. They are allow rules like the configuration's:
   * deny and ask rules, protected paths, the blocklist and plan mode still
   * win over them. Throws on a malformed rule.
   */
  grantForRun(rules: readonly string[]): () => void {
    const grant = rules.map(parseRule);
    this.runGrants.push(grant);
    return () => {
      const index = this.runGrants.indexOf(grant);
      if (index >= 0) this.runGrants.splice(index, 1);
    };
  }

  /** The configuration's rules of one kind, then the session's (and, for allow, those granted to the runs under way). */
  private rules(list: RuleList): ParsedRule[] {
    return [...this.configRules[list], ...this.session.rules(list), ...(list === "allow" ? this.runGrants.flat() : [])];
  }

  /**
   * An ask rule that matches the call: it is asked about each time (no
   * "always" answer covers it), whatever allow rules and the mode say.
   */
  private askedByRule(request: PermissionRequest, analysis: ShellAnalysis | undefined): PermissionDecision | undefined {
    const match = this.matching(this.rules("ask"), request, analysis);
    if (!match) return undefined;
    const command = request.targets.command;
    const what =
      command !== undefined
        ? `Run a command: ${command}`
        : `${request.kind === "write" ? "Change" : "Read"} ${request.targets.paths?.join(", ") ?? `with ${request.tool}`}`;
    return {
      behavior: "ask",
      once: true,
      reason: `${what} (the ask rule ${match.rule.text} matches)`,
      unattended: `The ask rule ${match.rule.text} asks the user about this ${request.tool} call, and this run cannot ask. Tell the user what you wanted to do instead.`,
    };
  }

  /**
   * A request out of the machine (`web_fetch`), judged by its host: a rule
   * `web_fetch(domain:<host>)` names exactly one host, `web_fetch` all of
   * them. No mode but bypass allows it alone: plan mode changes no file, and
   * a fetch changes none, but a request out can carry what the agent read,
   * so plan mode asks as the default mode does.
   */
  private decideFetch(request: PermissionRequest): PermissionDecision {
    const host = request.targets.fetch?.host.toLowerCase() ?? "";
    const url = request.targets.fetch?.url ?? "";
    const matching = (list: RuleList) =>
      this.rules(list).find((rule) => rule.tool === request.tool && (!rule.pattern || (host !== "" && rule.pattern.domain === host)));
    const denied = matching("deny");
    if (denied)
      return { behavior: "deny", reason: `A deny rule forbids this ${request.tool} call: ${host || url} matches ${denied.text}.` };
    const asked = matching("ask");
    if (asked)
      return {
        behavior: "ask",
        once: true,
        reason: `Fetch ${url} (the ask rule ${asked.text} matches)`,
        unattended: `The ask rule ${asked.text} asks the user about fetching from ${host}, and this run cannot ask.`,
      };
    if (matching("allow") || this.sessionCommands.has(sessionKey(request.tool, `domain:${host}`))) return { behavior: "allow" };
    if (this.mode === "bypass" && !request.targets.fetch?.local) return { behavior: "allow" };
    if (request.targets.fetch?.local)
      return {
        behavior: "ask",
        reason: `Fetch ${url} from ${host}, this machine or a private network`,
        unattended: `${host} is this machine or a private network, which no permission mode opens on its own, and this run cannot ask: a rule ${request.tool}(domain:${host}) in permissions.allow allows it.`,
      };
    return {
      behavior: "ask",
      reason: `Fetch ${url} from ${host || "the web"}`,
      unattended: `Fetching from ${host} needs the user's approval, and this run cannot ask: a rule ${request.tool}(domain:${host}) in permissions.allow allows it.`,
    };
  }

  private decideMemory(request: PermissionRequest): PermissionDecision {
    const rules = {
      allow: [...this.memoryRules.allow, ...memoryRulesOf(this.session.texts("allow"), "allow"), ...this.memoryAnswers],
      deny: [...this.memoryRules.deny, ...memoryRulesOf(this.session.texts("deny"), "deny")],
      ask: [...this.memoryRules.ask, ...memoryRulesOf(this.session.texts("ask"), "allow")],
    };
    return decideMemoryCall({ tool: request.tool, memory: request.targets.memory }, this.mode, rules);
  }

  /**
   * An MCP server's tool may change anything the server reaches, and its
   * `readOnlyHint` is only the server's word: it asks unless a rule or an
   * "always" answer covers it, and bypass allows it. Plan mode asks about
   * each call, whatever the rules say (no "always"): planning often needs a
   * server's reads (an issue, a page of docs), which refusing would stop,
   * while only the user can tell a read from a change.
   */
  private decideMcp(request: PermissionRequest): PermissionDecision {
    const reason = `Use ${request.tool}, a tool of the MCP server "${request.targets.mcpServer ?? "?"}"`;
    if (this.mode === "plan") {
      return {
        behavior: "ask",
        once: true,
        reason: `${reason} (plan mode: asked each time)`,
        unattended: `Plan mode asks the user about every MCP tool call, and this run cannot ask. Describe what you would do with ${request.tool} instead.`,
      };
    }
    if (this.coverage(request, undefined).covered || this.mode === "bypass") return { behavior: "allow" };
    return {
      behavior: "ask",
      reason,
      unattended: `${request.tool} is a tool of an MCP server, and this run cannot ask. Allow it with a rule in .sylkrc (permissions.allow: "${request.tool}", or "mcp__${request.targets.mcpServer ?? "server"}" for all of its tools) or --permission-mode bypass.`,
    };
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
   * `network` (every command) says so, or `network(<command pattern>)`
   * rules that cover each of its simple commands; a deny rule of the same
   * form that matches any of them wins.
   */
  async allowsNetwork(command: string): Promise<boolean> {
    const analysis = await this.analyse(command);
    if (commandDenial(this.rules("deny"), NETWORK_RULE, analysis)) return false;
    return commandCoverage(this.rules("allow"), NETWORK_RULE, analysis, false).covered;
  }

  /**
   * The user chose "always allow for this session": file changes with that
   * tool from now on, or that exact command line again, or (kind `remember`)
   * that tool's calls for the same scope. Never a prefix: a
   * line approved once covers no line built on it (`npm test; curl …`).
   */
  allowForSession(request: PermissionRequest): void {
    if (request.kind === "remember") {
      this.memoryAnswers.push({ tool: request.tool, scope: request.targets.memory?.scope ?? "user" });
      return;
    }
    // A host, never the tool: "always" for one site is no answer for every other.
    if (request.kind === "network") {
      this.sessionCommands.add(sessionKey(request.tool, `domain:${request.targets.fetch?.host.toLowerCase() ?? ""}`));
      return;
    }
    const command = request.targets.command;
    if (command === undefined) this.sessionTools.add(request.tool);
    else this.sessionCommands.add(sessionKey(request.tool, command));
  }

  /** The first of these rules that applies to the call: a command rule matching any of its simple commands, a path rule covering all its paths. */
  private matching(rules: readonly ParsedRule[], request: PermissionRequest, analysis: ShellAnalysis | undefined): Denial | undefined {
    if (analysis) return commandDenial(rules, request.tool, analysis);
    const { mcpServer } = request.targets;
    const rule = rules.find(
      (candidate) => ruleNamesTool(candidate, request.tool, mcpServer) && coversPaths(candidate, request.targets.paths ?? []),
    );
    return rule ? { rule } : undefined;
  }

  private coverage(request: PermissionRequest, analysis: ShellAnalysis | undefined): Coverage {
    const command = request.targets.command;
    if (command !== undefined && this.sessionCommands.has(sessionKey(request.tool, command))) return { covered: true };
    const allow = this.rules("allow");
    if (analysis) return commandCoverage(allow, request.tool, analysis, true);
    if (this.sessionTools.has(request.tool)) return { covered: true };
    const paths = request.targets.paths ?? [];
    return { covered: allow.some((rule) => ruleNamesTool(rule, request.tool, request.targets.mcpServer) && coversPaths(rule, paths)) };
  }

  /** The command line's simple commands; never throws: what cannot be read is unparseable. */
  private async analyse(command: string): Promise<ShellAnalysis> {
    const parser = await this.shellParser;
    if (parser instanceof Error) return unparseable(command, `Sylk could not load its shell parser (${parser.message})`);
    try {
      const analysis = analyseShellCommand(command, parser);
      return analysis.parsed ? analysis : { ...analysis, commands: [...analysis.commands, ...textFragments(command)] };
    } catch (error) {
      return unparseable(command, `reading it failed (${errorMessage(error)})`);
    }
  }
}

/** Some of these allow rules open the sandbox's network for some commands. */
export function opensNetwork(allow: readonly string[]): boolean {
  return allow.some((rule) => parseRule(rule).tool === NETWORK_RULE);
}

function unparseable(command: string, reason: string): ShellAnalysis {
  return { parsed: false, reason, commands: textFragments(command) };
}

function sessionKey(tool: string, command: string): string {
  return `${tool}\u0000${command.trim()}`;
}

/** The blocklist judges the whole line and each simple command in it, as written and unquoted. */
function blocklisted(command: string, analysis: ShellAnalysis): string | undefined {
  const whole = dangerousCommandReason(command);
  if (whole) return whole;
  for (const simple of analysis.commands) {
    const reason = dangerousCommandReason(simple.text) ?? dangerousCommandReason(unquotedText(simple));
    if (reason) return reason;
  }
  return undefined;
}
