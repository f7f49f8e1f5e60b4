import { basename, join } from "node:path";
import { buildCommandsIn, parseJsonObject, pythonScripts, type BuildCommands } from "../project/build-commands.js";
import { readRegularFileInside } from "../files/read-inside.js";

/** A manifest larger than this is not read. */
const MAX_MANIFEST_BYTES = 1024 * 1024;

/** What `/init` writes about a project: read from the index and the project's build files, never from a model. */
export interface ProjectFacts {
  name: string;
  /** Indexed files by language, most first. */
  languages: ReadonlyArray<{ language: string; files: number }>;
  commands: readonly BuildCommands[];
  /** Top-level folders with the indexed files below them, most first, and the files at the top level. */
  layout: { folders: ReadonlyArray<{ folder: string; files: number }>; topLevelFiles: number };
  /** Where the program starts, when a file says so or a conventional name is there. */
  entryPoints: readonly string[];
}

/** The most folders the layout names; the rest are counted. */
const MAX_FOLDERS = 12;

/** Conventional entry points, found among the indexed paths. */
const ENTRY_PATTERNS: readonly RegExp[] = [
  /^(src\/)?(main|index|app|cli|server)\.(ts|tsx|js|mjs|py|go|rs|java|kt|rb|c|cc|cpp)$/,
  /^src\/main\.rs$/,
  /^src\/bin\/[^/]+\.rs$/,
  /^cmd\/[^/]+\/main\.go$/,
  /^(src\/)?[^/]+\/__main__\.py$/,
  /^manage\.py$/,
];

/**
 * The facts `/init` reads: languages and layout from the index's paths,
 * commands and declared entry points from the build files at the root.
 */
export function projectFacts(root: string, index: { languages: ProjectFacts["languages"]; paths: readonly string[] }): ProjectFacts {
  const manifest = parseJsonObject(readOptional(join(root, "package.json"), root));
  const name = typeof manifest?.name === "string" ? manifest.name : basename(root);
  return {
    name,
    languages: index.languages,
    commands: buildCommandsIn(root),
    layout: layoutOf(index.paths),
    entryPoints: [
      ...declaredEntryPoints(manifest, readOptional(join(root, "pyproject.toml"), root)),
      ...index.paths.filter((path) => ENTRY_PATTERNS.some((pattern) => pattern.test(path))),
    ],
  };
}

function layoutOf(paths: readonly string[]): ProjectFacts["layout"] {
  const counts = new Map<string, number>();
  let topLevelFiles = 0;
  for (const path of paths) {
    const slash = path.indexOf("/");
    if (slash === -1) topLevelFiles++;
    else counts.set(path.slice(0, slash), (counts.get(path.slice(0, slash)) ?? 0) + 1);
  }
  const folders = [...counts]
    .map(([folder, files]) => ({ folder, files }))
    .sort((a, b) => b.files - a.files || a.folder.localeCompare(b.folder));
  return { folders, topLevelFiles };
}

/** package.json's `bin` and `main`, and pyproject's console scripts. */
function declaredEntryPoints(manifest: Record<string, unknown> | undefined, pyproject: string | undefined): string[] {
  const bin = manifest?.bin;
  const bins =
    typeof bin === "string"
      ? [bin]
      : typeof bin === "object" && bin !== null
        ? Object.values(bin).filter((value): value is string => typeof value === "string")
        : [];
  const main = typeof manifest?.main === "string" ? [manifest.main] : [];
  return [...new Set([...bins, ...main].map((path) => path.replace(/^\.\//, "")))].concat(pythonScripts(pyproject));
}

/** A project file's text, when it is a regular file whose real path is in the project (not a planted link out, not a FIFO). */
function readOptional(path: string, root: string): string | undefined {
  try {
    return readRegularFileInside(path, root, MAX_MANIFEST_BYTES);
  } catch {
    return undefined;
  }
}

/**
 * The AGENTS.md text: what the index knows of the project, for the agents
 * that read it (Sylk, Codex, and others that read AGENTS.md). Pure: the
 * same facts give the same text.
 */
export function renderAgentsFile(facts: ProjectFacts): string {
  const section = (title: string, lines: readonly string[]) => (lines.length > 0 ? [`## ${title}`, "", ...lines, ""] : []);
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
  const languages = facts.languages.map(({ language, files }) => `- ${language}: ${plural(files, "file")}`);
  const commands = facts.commands.flatMap(({ source, commands: listed }) => [
    `From ${source}:`,
    "",
    ...listed.map(({ run, does }) => `- \`${run}\`${does ? `: ${does.replace(/\s+/g, " ")}` : ""}`),
    "",
  ]);
  const shown = facts.layout.folders.slice(0, MAX_FOLDERS);
  const more = facts.layout.folders.length - shown.length;
  const layout = [
    ...shown.map(({ folder, files }) => `- \`${folder}/\`: ${plural(files, "file")}`),
    ...(more > 0 ? [`- ${plural(more, "more folder")}`] : []),
    ...(facts.layout.topLevelFiles > 0 ? [`- ${plural(facts.layout.topLevelFiles, "file")} at the top level`] : []),
  ];
  const entries = [...new Set(facts.entryPoints)].map((entry) => `- \`${entry}\``);
  return [
    `# ${facts.name}`,
    "",
    "Notes for coding agents working in this repository. Written by Sylk's `/init` from its index of the project; edit it to add what only people know (conventions, what not to touch).",
    "",
    ...section("Languages", languages),
    ...(commands.length > 0 ? ["## Build and test", "", ...commands] : []),
    ...section("Layout", layout),
    ...section("Entry points", entries),
  ]
    .join("\n")
    .replace(/\n+$/, "\n");
}
