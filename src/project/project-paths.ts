import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, realpathSync } from "node:fs";
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
 * Creates the project's data directory readable by the user alone: it holds
 * the project's code, every conversation and the warm-index socket. A
 * directory made by an older version (0755) is narrowed too; `SYLK_HOME`
 * itself is only created so, never changed, as the user may share it.
 */
export function ensureDataDirectory(paths: ProjectPaths): void {
  mkdirSync(paths.dataDir, { recursive: true, mode: 0o700 });
  chmodSync(paths.dataDir, 0o700);
}

/** `$SYLK_HOME/profiles.db`: what is learned about the user over all of their projects (handoff profiles, the retrieval profile). */
export function userProfilesPath(home: string): string {
  return join(home, "profiles.db");
}
