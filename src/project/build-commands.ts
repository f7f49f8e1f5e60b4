import { existsSync } from "node:fs";
import { join } from "node:path";
import { readRegularFileInside } from "../files/read-inside.js";

/** A build file larger than this is not read (a generated Makefile of megabytes says nothing /init needs). */
const MAX_BUILD_FILE_BYTES = 1024 * 1024;

/** A command a build file names, as the user would type it, and what it runs when the file says. */
export interface BuildCommand {
  run: string;
  does?: string;
}

/** The commands one build file offers. */
export interface BuildCommands {
  /** The file, and how its commands are run (`package.json (pnpm)`). */
  source: string;
  commands: BuildCommand[];
}

/** The most commands listed per file: a Makefile of a hundred targets is not a summary. */
const MAX_PER_FILE = 12;

/**
 * The build and test commands the project's own files name, read from the
 * project root: package.json scripts, Makefile and justfile targets,
 * Cargo.toml, go.mod, pyproject.toml, tox.ini and pytest's settings. Only
 * what a file says is listed (a Cargo or Go module's standard commands are
 * what its tool runs for it).
 */
export function buildCommandsIn(root: string): BuildCommands[] {
  // A planted link `Makefile -> ~/.pgpass` must not put that file's words into AGENTS.md, nor a FIFO hold /init.
  const read = (name: string): string | undefined => {
    const path = join(root, name);
    try {
      return existsSync(path) ? readRegularFileInside(path, root, MAX_BUILD_FILE_BYTES) : undefined;
    } catch {
      return undefined;
    }
  };
  const found = [
    packageScripts(read("package.json"), packageManager(root)),
    makeTargets(read("Makefile") ?? read("makefile") ?? read("GNUmakefile"), "Makefile", "make"),
    justRecipes(read("justfile") ?? read("Justfile") ?? read(".justfile")),
    cargoCommands(read("Cargo.toml")),
    goCommands(read("go.mod")),
    pythonCommands(read("pyproject.toml"), read("tox.ini"), read("pytest.ini"), read("setup.cfg")),
  ];
  return found
    .filter((entry): entry is BuildCommands => entry !== undefined && entry.commands.length > 0)
    .map((entry) => ({ ...entry, commands: entry.commands.slice(0, MAX_PER_FILE) }));
}

function packageManager(root: string): string {
  if (existsSync(join(root, "pnpm-lock.yaml"))) return "pnpm";
  if (existsSync(join(root, "yarn.lock"))) return "yarn";
  if (existsSync(join(root, "bun.lockb")) || existsSync(join(root, "bun.lock"))) return "bun";
  return "npm";
}

function packageScripts(text: string | undefined, manager: string): BuildCommands | undefined {
  const scripts = parseJsonObject(text)?.scripts;
  if (!isRecord(scripts)) return undefined;
  const commands = Object.entries(scripts)
    .filter((entry): entry is [string, string] => typeof entry[1] === "string")
    .map(([name, does]) => ({
      run: manager === "npm" && !["test", "start"].includes(name) ? `npm run ${name}` : `${manager} ${name}`,
      does,
    }));
  return { source: `package.json (${manager})`, commands };
}

/** Targets of a Makefile: `name:` at the start of a line, not a variable (`x := y`), a special target (`.PHONY`) or a pattern (`%.o`). */
function makeTargets(text: string | undefined, source: string, tool: string): BuildCommands | undefined {
  if (text === undefined) return undefined;
  const names = [...text.matchAll(/^([A-Za-z0-9][\w.-]*(?:[ \t]+[A-Za-z0-9][\w.-]*)*)[ \t]*:(?![=:])/gm)].flatMap((match) =>
    (match[1] ?? "").split(/[ \t]+/),
  );
  return { source, commands: unique(names).map((name) => ({ run: `${tool} ${name}` })) };
}

/** Recipes of a justfile: `name params…:` at the start of a line (settings and assignments are `set …`, `x := …` and `x = …`). */
function justRecipes(text: string | undefined): BuildCommands | undefined {
  if (text === undefined) return undefined;
  const names = [...text.matchAll(/^@?([A-Za-z_][\w-]*)(?:[ \t]+(?!=)[^:\n]*)?:(?!=)/gm)]
    .map((match) => match[1] ?? "")
    .filter((name) => name !== "set" && name !== "alias");
  return { source: "justfile", commands: unique(names).map((name) => ({ run: `just ${name}` })) };
}

function cargoCommands(text: string | undefined): BuildCommands | undefined {
  if (text === undefined) return undefined;
  const workspace = /^\[workspace\]/m.test(text);
  const scope = workspace ? " --workspace" : "";
  return { source: "Cargo.toml", commands: [{ run: `cargo build${scope}` }, { run: `cargo test${scope}` }] };
}

function goCommands(text: string | undefined): BuildCommands | undefined {
  if (text === undefined) return undefined;
  const module = /^module\s+(\S+)/m.exec(text)?.[1];
  return { source: `go.mod${module ? ` (${module})` : ""}`, commands: [{ run: "go build ./..." }, { run: "go test ./..." }] };
}

/** pytest where pyproject.toml, pytest.ini or setup.cfg configure it, tox where tox.ini is, and a project's console scripts. */
function pythonCommands(
  pyproject: string | undefined,
  tox: string | undefined,
  pytestIni: string | undefined,
  setupCfg: string | undefined,
): BuildCommands | undefined {
  const commands: BuildCommand[] = [];
  const pytest =
    pytestIni !== undefined || /^\[tool\.pytest(\.ini_options)?\]/m.test(pyproject ?? "") || /^\[tool:pytest\]/m.test(setupCfg ?? "");
  const runner = /^\[tool\.poetry\]/m.test(pyproject ?? "") ? "poetry run " : /^\[tool\.uv\]/m.test(pyproject ?? "") ? "uv run " : "";
  if (pytest) commands.push({ run: `${runner}pytest` });
  if (tox !== undefined) commands.push({ run: "tox", ...(envList(tox) ? { does: `environments ${envList(tox)}` } : {}) });
  if (commands.length === 0 && pyproject === undefined) return undefined;
  return { source: pyproject !== undefined ? "pyproject.toml" : tox !== undefined ? "tox.ini" : "pytest.ini", commands };
}

function envList(tox: string): string | undefined {
  return /^envlist\s*=\s*(.+)$/m.exec(tox)?.[1]?.trim();
}

/** `[project.scripts]` of a pyproject.toml: the console commands it installs, `name = "module:function"`. */
export function pythonScripts(text: string | undefined): string[] {
  const section = /^\[project\.scripts\]\s*\n([\s\S]*?)(?=^\[|$(?![\s\S]))/m.exec(text ?? "")?.[1] ?? "";
  return [...section.matchAll(/^\s*([\w.-]+)\s*=\s*"([^"]+)"/gm)].map((match) => `${match[1]} (${match[2]})`);
}

export function parseJsonObject(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names.filter((name) => name.length > 0))];
}
