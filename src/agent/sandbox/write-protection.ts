import { basename, dirname, join } from "node:path";
import type { SandboxScope } from "./command-sandbox.js";
import { gitDirectoryOf, gitLocations, userGitConfigFiles } from "./git-locations.js";
import { MAX_DIRECTORIES, nestedSettings } from "./nested-settings.js";
import { expandHome, isWithin, kindOf, realOrSelf, shownPath } from "./sandbox-paths.js";

/** Where Sylk keeps the trust store and every project's database, and the user's environment. */
export interface UserPlaces {
  env: NodeJS.ProcessEnv;
  sylkHome: string;
}

/** A path that does not exist yet and must not be created by a sandboxed command. */
export interface AbsentPath {
  path: string;
  kind: "file" | "directory";
}

/**
 * What a sandboxed command may not change, though it lies in a writable
 * directory: everything that decides what runs later outside the sandbox.
 */
export interface WriteProtection {
  /** Existing paths, each bound read-only on itself (which also makes it impossible to rename or remove). */
  readOnly: string[];
  /** Paths that do not exist: held by an empty read-only placeholder (bubblewrap) or denied by name (Seatbelt). */
  absent: AbsentPath[];
  /** Nested repositories' `.git` entries, whose identity is compared after the command. */
  nestedRepositories: string[];
  /** What could not be covered, for the user. */
  notes: string[];
}

/** Sylk's settings in a project: what the next run in it may do, and what it indexes. */
const PROJECT_SETTINGS: readonly AbsentPath[] = [
  { path: ".sylk", kind: "directory" },
  { path: ".sylkrc", kind: "file" },
  { path: ".sylkignore", kind: "file" },
];

/**
 * The user's files that run or configure what runs in every shell and every
 * repository, guarded only when a writable directory holds them (a project
 * rooted at the home directory, or `~` made writable).
 */
const USER_FILES: readonly AbsentPath[] = [
  ...[
    ".sylkrc",
    ".gitconfig",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
  ].map((path) => ({ path: `~/${path}`, kind: "file" as const })),
  { path: "~/.config/git", kind: "directory" },
];

/**
 * Everything inside the command's writable directories that git or Sylk
 * would act on later: the project's `.git` (whatever it is: a directory, a
 * worktree's pointer file and the git directories it leads to, or nothing
 * yet), the hooks directory, included configuration files and programs its
 * configuration names, Sylk's settings, nested repositories and settings
 * that exist now, the trust store, and the user's shell and git dotfiles.
 */
export function writeProtection(scope: SandboxScope, places: UserPlaces, maxDirectories = MAX_DIRECTORIES): WriteProtection {
  const writableRoots = [scope.root, ...scope.writable];
  const readOnly = new Set<string>();
  const absent = new Map<string, AbsentPath>();
  const guard = (path: string, kind: AbsentPath["kind"]) => {
    const real = kindOf(path) === "absent" ? join(realOrSelf(dirname(path)), basename(path)) : realOrSelf(path);
    if (!writableRoots.some((writable) => isWithin(real, writable))) return;
    // Read-only over the project or a writable directory would take away what the user allowed.
    if (writableRoots.some((writable) => isWithin(writable, real))) return;
    if (kindOf(real) !== "absent") readOnly.add(real);
    else if (kindOf(dirname(real)) === "directory") absent.set(real, { path: real, kind });
  };

  const git = gitLocations(scope.root, places.env, userGitConfigFiles(places.env));
  guard(git.entry, "directory");
  for (const directory of [...git.gitDirectories, ...git.hooksDirectories]) guard(directory, "directory");
  for (const file of [...git.configFiles, ...git.programs]) guard(file, "file");
  for (const setting of PROJECT_SETTINGS) guard(join(scope.root, setting.path), setting.kind);

  const nested = nestedSettings(scope.root, maxDirectories);
  for (const path of nested.paths) {
    guard(path, "file");
    const gitDirectory = basename(path) === ".git" ? gitDirectoryOf(path) : undefined;
    if (gitDirectory) guard(gitDirectory, "directory");
  }
  for (const file of USER_FILES) guard(expandHome(file.path, places.env), file.kind);
  guard(places.sylkHome, "directory");

  const directories = [...readOnly].filter((path) => kindOf(path) === "directory");
  const coveredByAnother = (path: string) => directories.some((directory) => directory !== path && isWithin(path, directory));
  return {
    readOnly: [...readOnly].filter((path) => !coveredByAnother(path)).sort(),
    absent: [...absent.values()].filter((entry) => !coveredByAnother(entry.path)),
    nestedRepositories: nested.paths.filter((path) => basename(path) === ".git"),
    notes: nested.incomplete
      ? [
          `${shownPath(scope.root, places.env)} has more than ${maxDirectories} directories: repositories and Sylk settings nested deeper than those were not protected.`,
        ]
      : [],
  };
}
