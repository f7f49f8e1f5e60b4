import * as z from "zod";
import { dangerousCommandReason } from "../security/dangerous-commands.js";

/**
 * Skills: what the model saves to run again, as
 * `skill_patterns` knowledge items whose `details.definition` holds one of
 * three kinds. Pure: the schemas, placeholder filling and script
 * validation; storing and running them is the skill tools' part.
 */
export const SKILL_KINDS = ["composite", "script", "template"] as const;
export type SkillKind = (typeof SKILL_KINDS)[number];

/** A skill's name: lower case, digits and dashes, starting with a letter, at most 40 characters. */
export const SKILL_NAME = /^[a-z][a-z0-9-]{0,39}$/;
const MAX_COMPOSITE_STEPS = 20;
const MAX_SCRIPT_CHARACTERS = 20_000;
const MAX_TEMPLATE_CHARACTERS = 20_000;
/** Tools a composite step may not call: a skill neither runs skills nor makes them. */
const TOOLS_NOT_IN_STEPS: readonly string[] = ["run_skill", "create_skill"];

/** `{{name}}`, spaces inside the braces allowed: `{{ file }}`. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}$/;

const compositeDefinition = z.strictObject({
  steps: z
    .array(
      z.strictObject({
        tool: z
          .string()
          .min(1)
          .refine((tool) => !TOOLS_NOT_IN_STEPS.includes(tool), { message: "a step may not call run_skill or create_skill" }),
        input: z.record(z.string(), z.unknown()),
      }),
    )
    .min(1)
    .max(MAX_COMPOSITE_STEPS),
});

const scriptDefinition = z.strictObject({
  script: z.string().trim().min(1).max(MAX_SCRIPT_CHARACTERS),
  shell: z.enum(["bash", "sh"]).optional(),
});

const templateDefinition = z.strictObject({
  template: z.string().trim().min(1).max(MAX_TEMPLATE_CHARACTERS),
});

export type CompositeDefinition = z.infer<typeof compositeDefinition>;
export type ScriptDefinition = z.infer<typeof scriptDefinition>;
export type TemplateDefinition = z.infer<typeof templateDefinition>;

export type SkillDefinition =
  | { kind: "composite"; definition: CompositeDefinition }
  | { kind: "script"; definition: ScriptDefinition }
  | { kind: "template"; definition: TemplateDefinition };

/** The definition checked against its kind's schema, or why it does not fit. */
export function parseSkillDefinition(
  kind: SkillKind,
  definition: unknown,
): { ok: true; skill: SkillDefinition } | { ok: false; error: string } {
  const parsed =
    kind === "composite"
      ? compositeDefinition.safeParse(definition)
      : kind === "script"
        ? scriptDefinition.safeParse(definition)
        : templateDefinition.safeParse(definition);
  if (!parsed.success) return { ok: false, error: z.prettifyError(parsed.error).replace(/\n/g, "; ") };
  return { ok: true, skill: { kind, definition: parsed.data } as SkillDefinition };
}

/** A skill's argument values: a whole-value placeholder keeps the value's type, one inside text becomes text. */
export type SkillArguments = Readonly<Record<string, string | number | boolean>>;

/** Thrown when a placeholder has no argument. */
export class MissingArgumentError extends Error {
  constructor(readonly argument: string) {
    super(`missing argument "${argument}"`);
    this.name = "MissingArgumentError";
  }
}

/** The placeholders' names in a value (strings, arrays and objects, recursively), in first-seen order. */
export function placeholdersOf(value: unknown): string[] {
  const names: string[] = [];
  const visit = (node: unknown): void => {
    if (typeof node === "string") {
      for (const match of node.matchAll(PLACEHOLDER)) if (!names.includes(match[1] as string)) names.push(match[1] as string);
    } else if (Array.isArray(node)) {
      node.forEach(visit);
    } else if (node !== null && typeof node === "object") {
      for (const [key, child] of Object.entries(node)) {
        visit(key);
        visit(child);
      }
    }
  };
  visit(value);
  return names;
}

/**
 * The value with every `{{name}}` replaced by its argument, in strings at
 * any depth (object keys included). A string that is one placeholder and
 * nothing else takes the argument as it is (a number stays a number).
 * Throws `MissingArgumentError` naming the first placeholder without an argument.
 */
export function fillPlaceholders<T>(value: T, args: SkillArguments): T {
  const argument = (name: string): string | number | boolean => {
    if (!Object.hasOwn(args, name)) throw new MissingArgumentError(name);
    return args[name] as string | number | boolean;
  };
  const fill = (node: unknown): unknown => {
    if (typeof node === "string") {
      const whole = WHOLE_PLACEHOLDER.exec(node);
      if (whole) return argument(whole[1] as string);
      return node.replace(PLACEHOLDER, (_match, name: string) => String(argument(name)));
    }
    if (Array.isArray(node)) return node.map(fill);
    if (node !== null && typeof node === "object") {
      return Object.fromEntries(Object.entries(node).map(([key, child]) => [String(fill(key)), fill(child)]));
    }
    return node;
  };
  return fill(value) as T;
}

/**
 * Why a script is refused, or undefined when it may run: the same blocklist
 * as `run_command`'s hard denials (`dangerousCommandReason`), applied to the
 * whole script and to each of its lines (defence in depth; the sandbox and
 * the permission policy still judge the run).
 */
export function validateScript(script: string): string | undefined {
  // Line by line first, to say where; then the whole, for what spans lines (a function defined over several).
  const lines = script.replace(/\\\n/g, " ").split("\n");
  for (const [index, line] of lines.entries()) {
    const reason = dangerousCommandReason(line);
    if (reason) return `line ${index + 1} of the script looks like ${reason}`;
  }
  const whole = dangerousCommandReason(script);
  return whole ? `the script looks like ${whole}` : undefined;
}

/** The command `run_command` runs for a script: the shell given the script as one single-quoted argument (nothing written to disk). */
export function scriptCommand(definition: ScriptDefinition, script: string = definition.script): string {
  return `${definition.shell ?? "bash"} -c ${shellQuote(script)}`;
}

/** One shell word holding the text exactly: single quotes, each `'` inside written as `'\''`. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
