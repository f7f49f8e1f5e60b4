import * as z from "zod";

/**
 * Fields shared by the structured tools that end a pipeline stage
 * (`submit_plan`, `submit_design`, `report_issues`, `report_test_results`):
 * what they record is read by the next stage and stored, so it is checked
 * as strictly as the model can be told how to correct it.
 */

/** A short id the model chooses (`t1`, `step-2`, `SEC-1`). */
export const shortId = () =>
  z
    .string()
    .trim()
    .min(1)
    .max(40)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "an id is letters, digits, '.', '_' or '-', starting with a letter or digit");

/** One finding, step or note: a line or a short paragraph. */
export const note = (max = 2_000) => z.string().trim().min(1).max(max);

/** A list of notes, empty when left out. */
export const notes = (maxItems = 50) => z.array(note()).max(maxItems).default([]);

/** A path relative to the project root: not absolute, no drive, no home, no `..` segment. */
export const relativePath = () =>
  z
    .string()
    .trim()
    .min(1)
    .max(500)
    .refine((path) => isRelativePath(path), "a path relative to the project root (like src/app.ts): not absolute, no '~', no '..'");

export function isRelativePath(path: string): boolean {
  if (path.includes("\0") || /^[/\\~]/.test(path) || /^[A-Za-z]:/.test(path)) return false;
  return !path.split(/[/\\]/).some((segment) => segment === "..");
}

/** Adds an issue for each id given more than once, at the path of its second use. */
export function checkUnique(
  values: readonly string[],
  what: string,
  path: (index: number) => PropertyKey[],
  context: z.RefinementCtx,
): void {
  const seen = new Set<string>();
  values.forEach((value, index) => {
    if (seen.has(value)) context.addIssue({ code: "custom", message: `${what} "${value}" is given more than once`, path: path(index) });
    seen.add(value);
  });
}

/** "1 issue", "2 issues". */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
