import * as z from "zod";
import type { KnowledgeStore } from "../../content-store/knowledge-store.js";
import { extractKeywords } from "../../knowledge/extract-keywords.js";
import type { SessionLimits } from "../../knowledge/session-limits.js";
import {
  fillPlaceholders,
  MissingArgumentError,
  parseSkillDefinition,
  placeholdersOf,
  scriptCommand,
  SKILL_KINDS,
  SKILL_NAME,
  type SkillArguments,
  type SkillDefinition,
  type SkillKind,
  validateScript,
} from "../../knowledge/skill-definition.js";
import { maskSecrets } from "../../security/secrets.js";
import type { KnowledgeItem } from "../../store/knowledge-repository.js";
import { defineTool, toolDescription, ToolError, type ToolContext, type ToolDefinition, type ToolOutput } from "./tool.js";
import type { ToolCall, ToolRunResult } from "./tool-registry.js";
import { errorMessage } from "../../errors.js";

const LAYER = "skill_patterns";
const LISTED = 50;
const ONE_LINE = 200;

/**
 * What the skill tools need from the session. `runTool` must be the
 * `ToolRegistry.run` of the registry that holds `run_skill` itself (the
 * session's), so every step of a skill is validated and judged by the same
 * permission policy and approver as a call the model makes.
 */
export interface SkillToolsDeps {
  /** The project's knowledge store: skills are its `skill_patterns` items. */
  store: Pick<KnowledgeStore, "save" | "byKey" | "list" | "search" | "used">;
  /** The session's reserve-slot limits: each new skill takes a `skills` slot. */
  limits: SessionLimits;
  sessionId(): string;
  /** Runs one call through the session's registry (schema, policy, approver). */
  runTool(call: ToolCall, context: ToolContext): Promise<ToolRunResult>;
  /** The session's tool names, to refuse a composite step calling a tool that is not there (unchecked when absent). */
  toolNames?(): readonly string[];
}

const argumentValue = z.union([z.string(), z.number(), z.boolean()]);

/**
 * `create_skill`, `list_skills`, `run_skill`. Creating a skill keeps it for
 * this project's later sessions, where it is offered to the model, so it is
 * kind `remember` (approved like a write, with the definition shown); the
 * other two only read Sylk's records. What a skill does runs through the
 * registry, call by call, so the policy and the approver judge every step
 * and every script as if the model had called it.
 */
export function createSkillTools(deps: SkillToolsDeps): ToolDefinition[] {
  return [createSkillTool(deps), listSkillsTool(deps), runSkillTool(deps)];
}

/** `create_skill`: a composite, script or template skill kept for the project's later sessions. */
function createSkillTool(deps: SkillToolsDeps): ToolDefinition {
  return defineTool({
    name: "create_skill",
    description: toolDescription(import.meta.url, "create-skill.txt"),
    schema: z.strictObject({
      name: z
        .string()
        .regex(SKILL_NAME, "lower case letters, digits and dashes, starting with a letter, at most 40 characters")
        .describe("The skill's name: lower case, digits and dashes (run-tests, lint-fix)."),
      kind: z.enum(SKILL_KINDS).describe("composite, script or template."),
      description: z.string().trim().min(1).max(500).describe("What the skill does and when to use it (what a search finds it by)."),
      definition: z
        .record(z.string(), z.unknown())
        .describe(
          'composite: {"steps": [{"tool": "read_file", "input": {"path": "{{file}}"}}, …]} (at most 20 steps); ' +
            'script: {"script": "…", "shell": "bash" | "sh"}; template: {"template": "… {{name}} …"}. {{name}} placeholders are filled from run_skill\'s arguments.',
        ),
    }),
    kind: "remember",
    targets: (input) => ({
      memory: {
        scope: "project",
        what: `${input.kind} skill "${input.name}": ${input.description} Definition: ${JSON.stringify(input.definition)}`,
      },
    }),
    async execute(input) {
      const parsed = parseSkillDefinition(input.kind, input.definition);
      if (!parsed.ok) throw new ToolError(`Not created: the ${input.kind} definition does not fit: ${parsed.error}.`, "malformed_input");
      const skill = parsed.skill;
      checkDefinition(skill, deps.toolNames?.());
      const secrets = maskSecrets(stringsOf(skill.definition).join("\n")).findings;
      if (secrets.length > 0) {
        throw new ToolError(
          `Not created: the definition holds a secret (${[...new Set(secrets)].join(", ")}), and secrets are never stored. Make it an argument ({{token}}) instead.`,
        );
      }
      // Looking for a namesake and saving happen in one synchronous step, so two creations cannot both take a name.
      if (deps.store.byKey(LAYER, input.name)) {
        throw new ToolError(`Not created: a skill named "${input.name}" already exists. Choose another name, or run it with run_skill.`);
      }
      if (!deps.limits.reserve("skills")) {
        throw new ToolError(
          `This session has created ${deps.limits.cap("skills")} skills, its limit (knowledge.maxSkillsPerSession). Create only the ones that matter most, in a later session.`,
        );
      }
      const args = placeholdersOf(skill.definition);
      try {
        const item = deps.store.save({
          layer: LAYER,
          kind: skill.kind,
          key: input.name,
          content: `${input.description} [${skill.kind}${args.length > 0 ? `; arguments: ${args.join(", ")}` : ""}]`,
          source: "agent",
          details: { definition: skill.definition, arguments: args },
          sessionId: deps.sessionId() || null,
        });
        return {
          output: `Created ${skill.kind} skill "${item.key}"${args.length > 0 ? ` (arguments: ${args.join(", ")})` : ""}. Run it with run_skill.`,
          display: `created ${skill.kind} skill: ${item.key}`,
        };
      } catch (error) {
        deps.limits.release("skills");
        throw new ToolError(`Not created: ${errorMessage(error)}.`);
      }
    },
  });
}

function listSkillsTool(deps: SkillToolsDeps): ToolDefinition {
  return defineTool({
    name: "list_skills",
    description: toolDescription(import.meta.url, "list-skills.txt"),
    schema: z.strictObject({
      query: z.string().trim().min(1).optional().describe("Words the skill's name or description should match; all skills when absent."),
    }),
    kind: "read",
    targets: () => ({}),
    async execute(input) {
      const skills = input.query === undefined ? deps.store.list({ layer: LAYER, limit: LISTED }) : findSkills(deps.store, input.query);
      if (skills.length === 0)
        return { output: input.query === undefined ? "No skills yet." : "No skill matches.", display: "no skills found" };
      return { output: skills.map(describeSkill).join("\n"), display: `${skills.length} skills` };
    },
  });
}

/** `run_skill`: a template filled, or a script or composite run step by step through the session's registry. */
function runSkillTool(deps: SkillToolsDeps): ToolDefinition {
  return defineTool({
    name: "run_skill",
    description: toolDescription(import.meta.url, "run-skill.txt"),
    schema: z.strictObject({
      name: z.string().min(1).describe("The skill's name, as list_skills shows it."),
      arguments: z.record(z.string(), argumentValue).optional().describe("A value for each of the skill's {{placeholders}}."),
    }),
    kind: "read",
    targets: () => ({}),
    async execute(input, context) {
      const item = deps.store.byKey(LAYER, input.name);
      if (!item) throw new ToolError(`No skill is named "${input.name}"; list_skills shows them.`);
      const skill = storedDefinition(item);
      deps.store.used([item]);
      const args = input.arguments ?? {};
      switch (skill.kind) {
        case "template": {
          const text = fill(skill.definition.template, args, item.key);
          return { output: text, display: `skill ${item.key}: template filled` };
        }
        case "script":
          return runScript(deps, item.key, skill.definition, args, context);
        case "composite":
          return runComposite(deps, item.key, skill.definition.steps, args, context);
      }
    },
  });
}

async function runScript(
  deps: SkillToolsDeps,
  name: string,
  definition: Extract<SkillDefinition, { kind: "script" }>["definition"],
  args: SkillArguments,
  context: ToolContext,
): Promise<ToolOutput> {
  const script = fill(definition.script, args, name);
  // Checked again: the filled script, and a stored one is not trusted for having passed once.
  const refused = validateScript(script);
  if (refused) throw new ToolError(`Skill "${name}" refused: ${refused}. Scripts are held to run_command's hard denials.`);
  const result = await deps.runTool(
    {
      id: stepId(context, name, 1),
      name: "run_command",
      input: { command: scriptCommand(definition, script), description: `skill ${name}` },
    },
    context,
  );
  return {
    output: `Skill "${name}" (script):\n${result.output}`,
    display: `skill ${name}: ${oneLine(result)}`,
    ...(result.details !== undefined ? { details: result.details } : {}),
    ...(result.isError ? { isError: true } : {}),
  };
}

async function runComposite(
  deps: SkillToolsDeps,
  name: string,
  steps: ReadonlyArray<{ tool: string; input: Record<string, unknown> }>,
  args: SkillArguments,
  context: ToolContext,
): Promise<ToolOutput> {
  // Every step filled before any runs: a missing argument stops the skill before it changes anything.
  const calls = steps.map((step) => ({ tool: step.tool, input: fill(step.input, args, name) }));
  const lines: string[] = [];
  const relatedFiles = new Set<string>();
  let last: ToolRunResult | undefined;
  for (const [index, call] of calls.entries()) {
    if (context.signal.aborted) throw new ToolError(`Skill "${name}" was cancelled before step ${index + 1} of ${calls.length}.`);
    const result = await deps.runTool({ id: stepId(context, name, index + 1), name: call.tool, input: call.input }, context);
    result.relatedFiles?.forEach((file) => {
      relatedFiles.add(file);
    });
    lines.push(`${index + 1}. ${call.tool}: ${oneLine(result)}`);
    last = result;
    if (result.isError) {
      return {
        output: [
          `Skill "${name}" stopped at step ${index + 1} of ${calls.length} (${call.tool}), which failed:`,
          ...lines,
          "",
          result.output,
        ].join("\n"),
        display: `skill ${name}: step ${index + 1} (${call.tool}) failed`,
        isError: true,
        ...(relatedFiles.size > 0 ? { relatedFiles: [...relatedFiles] } : {}),
      };
    }
  }
  return {
    output: [
      `Skill "${name}": ${calls.length} of ${calls.length} steps ran.`,
      ...lines,
      "",
      `Output of step ${calls.length} (${calls.at(-1)?.tool}):`,
      last?.output ?? "",
    ].join("\n"),
    display: `skill ${name}: ${calls.length} steps`,
    ...(relatedFiles.size > 0 ? { relatedFiles: [...relatedFiles] } : {}),
  };
}

/** What a definition's schema cannot see: a script on the blocklist, a step calling a tool the session lacks. */
function checkDefinition(skill: SkillDefinition, toolNames: readonly string[] | undefined): void {
  if (skill.kind === "script") {
    const refused = validateScript(skill.definition.script);
    if (refused) throw new ToolError(`Not created: ${refused}. Scripts are held to run_command's hard denials.`);
  }
  if (skill.kind === "composite" && toolNames) {
    const unknown = skill.definition.steps.map((step) => step.tool).filter((tool) => !toolNames.includes(tool));
    if (unknown.length > 0)
      throw new ToolError(
        `Not created: no tool is named ${[...new Set(unknown)].join(", ")}. Available tools: ${toolNames.join(", ")}.`,
        "malformed_input",
      );
  }
}

/** A stored skill's definition, checked again against its kind's schema. */
function storedDefinition(item: KnowledgeItem): SkillDefinition {
  if (!(SKILL_KINDS as readonly string[]).includes(item.kind))
    throw new ToolError(`Skill "${item.key}" has an unknown kind (${item.kind}).`);
  const parsed = parseSkillDefinition(item.kind as SkillKind, item.details.definition);
  if (!parsed.ok) throw new ToolError(`Skill "${item.key}" cannot run: its stored definition does not fit: ${parsed.error}.`);
  return parsed.skill;
}

function fill<T>(value: T, args: SkillArguments, name: string): T {
  try {
    return fillPlaceholders(value, args);
  } catch (error) {
    if (error instanceof MissingArgumentError) {
      throw new ToolError(
        `Skill "${name}" needs the argument "${error.argument}": call run_skill again with arguments {"${error.argument}": …}.`,
        "malformed_input",
      );
    }
    throw error;
  }
}

function findSkills(store: SkillToolsDeps["store"], query: string): KnowledgeItem[] {
  const hits = store.search(extractKeywords(query) ?? [query], { layers: [LAYER], limit: 20 }).map(({ item }) => item);
  const needle = query.toLowerCase();
  const byName = store
    .list({ layer: LAYER, limit: LISTED })
    .filter((item) => item.key.includes(needle) && !hits.some((hit) => hit.id === item.id));
  return [...byName, ...hits];
}

function describeSkill(item: KnowledgeItem): string {
  const steps = (item.details.definition as { steps?: Array<{ tool?: unknown }> } | undefined)?.steps;
  const tools = item.kind === "composite" && Array.isArray(steps) ? ` · steps: ${steps.map((step) => String(step.tool)).join(" → ")}` : "";
  return `- ${item.key}: ${item.content}${tools}`;
}

function oneLine(result: ToolOutput): string {
  const line = (result.display ?? result.output.split("\n").find((text) => text.trim() !== "") ?? "").trim();
  return line.length > ONE_LINE ? `${line.slice(0, ONE_LINE - 1)}…` : line || "(no output)";
}

function stepId(context: ToolContext, name: string, step: number): string {
  return `${context.toolUseId ?? "skill"}:${name}:${step}`;
}

/** Every string in a value (keys included), to look for secrets before a definition is stored. */
function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([key, child]) => [key, ...stringsOf(child)]);
  return [];
}
