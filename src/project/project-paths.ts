import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Where Sylk keeps one project's data, under `$SYLK_HOME/projects/<hash>/`. */
export interface ProjectPaths {
  /** Absolute, symlink-resolved project root. */
  root: string;
  sylkHome: string;
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

export function sylkHome(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.SYLK_HOME ?? join(env.HOME ?? homedir(), ".sylk"));
}

export function projectHash(root: string): string {
  return createHash("sha256").update(root).digest("hex").slice(0, 16);
}

export function resolveProjectPaths(root: string, env: NodeJS.ProcessEnv = process.env): ProjectPaths {
  const absoluteRoot = realpathSync(resolve(root));
  const home = sylkHome(env);
  const dataDir = join(home, "projects", projectHash(absoluteRoot));
  return {
    root: absoluteRoot,
    sylkHome: home,
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
  return [`Made ${directory} readable by you alone (it was ${mode.toString(8).padStart(4, "0")}, now 0700): it holds your conversations, indexed code and trust decisions.`];
}

/** `$SYLK_HOME/profiles.db`: what is learned about the user over all of their projects (handoff profiles, the retrieval profile). */
export function userProfilesPath(home: string): string {
  return join(home, "profiles.db");
}
