import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { ConfigError } from "../errors.js";

/** Where Sylk keeps one project's data, under `$SYLK_HOME/projects/<hash>/`. */
export interface ProjectPaths {
  /** Absolute, symlink-resolved project root. */
  root: string;
  /** Checked: never inside the project, but for the default `~/.sylk` of a project at or above the home directory. */
  sylkHome: string;
  /**
   * `$SYLK_HOME` relative to the root when it lies inside the project (the
   * default `~/.sylk` of a project at or above the home directory): the
   * index leaves it out and tools refuse it. Undefined otherwise.
   */
  sylkHomeInProject?: string;
  /** `$SYLK_HOME/projects/<hash of root>` */
  dataDir: string;
  /** The one SQLite file (WAL mode, sqlite-vec loaded). */
  database: string;
  /** Present while a process indexes the project. */
  indexLock: string;
  /** Per-project facts that must exist before the index does (consent). */
  projectFile: string;
  /** The prompts typed in the interactive session, one JSON object a line (`src/app/prompt-history.ts`). */
  promptHistory: string;
  /** Self-tuning retrieval's episodes, each fsynced before it is applied (`src/store/observation-log.ts`). */
  observationLog: string;
}

/**
 * `$SYLK_HOME`, or `~/.sylk`. An empty (or blank) variable counts as unset:
 * resolved as a path it would be the working directory, which is usually
 * the project. Not checked against a project: see `checkedSylkHome`.
 */
export function sylkHome(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(nonBlank(env.SYLK_HOME) ?? defaultSylkHome(env));
}

function defaultSylkHome(env: NodeJS.ProcessEnv): string {
  return resolve(nonBlank(env.HOME) ?? homedir(), ".sylk");
}

function nonBlank(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

export interface CheckedSylkHome {
  home: string;
  /** Relative to the project root when the default home lies inside it (see `ProjectPaths.sylkHomeInProject`). */
  inProject?: string;
}

/**
 * `$SYLK_HOME` for a project, refused when it lies in the project (or is
 * it): the databases and the trust store would be where the repository can
 * ship them or the agent write them, and a shipped `trusted-folders.json`
 * would trust the repository itself. The one exception is the default
 * `~/.sylk` of a project at or above the home directory (`sylk` started in
 * `~`): the user did not choose it, and it is then kept out of the index and
 * out of the tools' reach instead.
 */
export function checkedSylkHome(projectRoot: string, env: NodeJS.ProcessEnv = process.env): CheckedSylkHome {
  const home = sylkHome(env);
  const root = realpathOfNearestExisting(resolve(projectRoot));
  const realHome = realpathOfNearestExisting(home);
  if (realHome !== root && !realHome.startsWith(root.endsWith(sep) ? root : root + sep)) return { home };
  if (realHome === realpathOfNearestExisting(defaultSylkHome(env)) && realHome !== root) {
    return { home, inProject: relative(root, realHome).split(sep).join("/") };
  }
  const variable = nonBlank(env.SYLK_HOME) ? `SYLK_HOME (${home})` : `The default Sylk home (${home})`;
  throw new ConfigError(
    `${variable} is inside the project ${root}. Sylk keeps every conversation and the folders you trust there, ` +
      "which a repository must never hold or ship. Set SYLK_HOME to a directory outside the project, or unset it to use ~/.sylk.",
  );
}

export function projectHash(root: string): string {
  return createHash("sha256").update(root).digest("hex").slice(0, 16);
}

export function resolveProjectPaths(root: string, env: NodeJS.ProcessEnv = process.env): ProjectPaths {
  const absoluteRoot = realpathSync(resolve(root));
  const { home, inProject } = checkedSylkHome(absoluteRoot, env);
  const dataDir = join(home, "projects", projectHash(absoluteRoot));
  return {
    root: absoluteRoot,
    sylkHome: home,
    ...(inProject !== undefined ? { sylkHomeInProject: inProject } : {}),
    dataDir,
    database: join(dataDir, "vector.db"),
    indexLock: join(dataDir, "index.lock"),
    projectFile: join(dataDir, "project.json"),
    promptHistory: join(dataDir, "prompt-history.jsonl"),
    observationLog: join(dataDir, "observations.log"),
  };
}

/**
 * Creates `$SYLK_HOME`, its `projects/` and the project's data directory,
 * readable by the user alone: together they hold every project's code and
 * conversations, the trust store and the warm-index socket. A directory an
 * older version (or the user's umask) left open to others is narrowed to
 * 0700; what was narrowed is returned, for the user to be told once.
 */
export function ensureDataDirectory(paths: Pick<ProjectPaths, "sylkHome" | "dataDir">): string[] {
  return [paths.sylkHome, join(paths.sylkHome, "projects"), paths.dataDir].flatMap(ownerOnlyDirectory);
}

/** `$SYLK_HOME` alone (the trust store, the user's own databases): created or narrowed to 0700, as `ensureDataDirectory`. */
export function ensureSylkHome(home: string): string[] {
  return ownerOnlyDirectory(home);
}

function ownerOnlyDirectory(directory: string): string[] {
  let mode: number;
  try {
    mode = statSync(directory).mode & 0o777;
  } catch {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    // mkdir's mode passes through the umask: a 0o700 request can only come out narrower.
    return [];
  }
  if ((mode & 0o077) === 0) return [];
  chmodSync(directory, 0o700);
  return [
    `Made ${directory} readable by you alone (it was ${mode.toString(8).padStart(4, "0")}, now 0700): it holds your conversations, indexed code and trust decisions.`,
  ];
}

/** `$SYLK_HOME/profiles.db`: what is learned about the user over all of their projects (handoff profiles, the retrieval profile). */
export function userProfilesPath(home: string): string {
  return join(home, "profiles.db");
}

/** realpath of the path, or of its nearest existing ancestor joined with the rest (a home not created yet). */
function realpathOfNearestExisting(path: string): string {
  let current = path;
  const rest: string[] = [];
  while (!existsSync(current)) {
    const parent = dirname(current);
    if (parent === current) break;
    rest.unshift(current.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
    current = parent;
  }
  const real = existsSync(current) ? realpathSync(current) : current;
  return rest.length > 0 ? resolve(real, ...rest) : real;
}
