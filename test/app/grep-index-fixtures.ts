import { expect } from "vitest";
import { PermissionPolicy } from "../../src/agent/permissions/permission-policy.js";
import type { GrepIndex } from "../../src/agent/tools/grep-files.js";
import { createGrepTool } from "../../src/agent/tools/grep.js";
import type { Ripgrep } from "../../src/agent/tools/grep-ripgrep.js";
import type { GrepThread } from "../../src/agent/tools/grep-thread.js";
import { ToolRegistry } from "../../src/agent/tools/tool-registry.js";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import type { IndexConfig } from "../../src/config/schema.js";
import { drainIndex } from "../helpers/drain.js";
import type { TempProject } from "../helpers/temp-project.js";

/** What the grep-index tests search: an identifier in code and prose, an ignored copy, a secret on a matching line. */
export const GREP_PROJECT_FILES: Record<string, string> = {
  ".gitignore": "ignored/\n",
  "src/account.ts": "export function createUserAccount(name: string) {\n  return { name };\n}\n",
  "src/caller.ts": "import { createUserAccount } from './account';\nconst made = createUserAccount('x');\n",
  "src/other.ts": "export const userCount = 3;\n",
  "docs/notes.md": "Call createUserAccount( with a name.\n",
  "ignored/copy.ts": "createUserAccount(\n",
  "config.ts": `const apiKey = "sk-ant-${"abcdEFGH1234".repeat(3)}"; // createUserAccount(\n`,
};

/** A binary file that starts with "create": grep must skip it whichever way it lists files. */
export function writeBinaryBlob(project: TempProject): void {
  project.write("blob.bin", new Uint8Array([99, 114, 101, 97, 116, 101, 0, 1]));
}

/** Searches whose answers an indexed grep must give exactly as the walk does. */
export const SAME_AS_WALK_PATTERNS = [
  { pattern: "createUserAccount\\(" },
  { pattern: "createUserAccount" },
  { pattern: "USERACCOUNT", ignore_case: true },
  { pattern: "user(Count|Account)" },
  { pattern: "REDACTED" },
  { pattern: "name", path: "src" },
  { pattern: "create", glob: "*.md" },
  { pattern: "createUserAccount\\(", path: "src" },
  { pattern: "user", path: "src/added" },
  { pattern: "user", path: "ignored" },
];

export type GrepCall = (input: Record<string, unknown>) => Promise<string>;

/**
 * The project opened and indexed once its directories' last change is past:
 * read after it, their listings are trusted (racy window 0), so a search in
 * one directory needs no walk of the rest.
 */
export async function openIndexedProject(project: TempProject): Promise<ProjectServices> {
  await new Promise((resolve) => setTimeout(resolve, 20));
  const services = openProject({ root: project.root, env: project.env, racyWindowMs: 0 });
  await drainIndex(services);
  return services;
}

/** grep on an opened project (its index settings) rooted at `root`, through `grepThrough`: with an index or a walk per call, and ripgrep when given. */
export function grepOnProject(
  services: ProjectServices,
  thread: GrepThread,
  root: string,
): (index: GrepIndex | undefined, ripgrep?: Ripgrep) => GrepCall {
  return (index, ripgrep) =>
    grepThrough({ thread, config: services.loadedConfig.config.index, root, index, ...(ripgrep ? { ripgrep } : {}) });
}

/** grep through a registry, as the agent calls it: with the project index or with a walk per call, and ripgrep when given. */
export function grepThrough(options: {
  thread: GrepThread;
  config: IndexConfig;
  root: string;
  index?: GrepIndex | undefined;
  ripgrep?: Ripgrep;
  signal?: AbortSignal;
}): GrepCall {
  const { thread, config, root, index, ripgrep, signal = new AbortController().signal } = options;
  const registry = new ToolRegistry(
    [createGrepTool({ thread, config, ...(index ? { index } : {}), ...(ripgrep ? { ripgrep } : {}) })],
    new PermissionPolicy("bypass"),
  );
  return async (input) => (await registry.run({ id: "1", name: "grep", input }, { root, signal, extraDirectories: [] })).output;
}

/** Every search of `SAME_AS_WALK_PATTERNS` answered by `indexed` exactly as by `walked`. */
export async function expectSameAnswers(indexed: GrepCall, walked: GrepCall): Promise<void> {
  for (const input of SAME_AS_WALK_PATTERNS) expect(await indexed(input), JSON.stringify(input)).toBe(await walked(input));
}
