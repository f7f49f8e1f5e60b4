import type { SandboxScope } from "./command-sandbox.js";
import { expandHome, isWithin, kindOf, realOrSelf, shownPath } from "./sandbox-paths.js";
import type { UserPlaces } from "./write-protection.js";

/**
 * The usual places of credentials: keys, tokens and the sockets of agents
 * that sign or log in for the user. A sandboxed command has no reason to
 * read them, and one that follows a hostile repository's instructions must
 * not be able to.
 */
const CREDENTIAL_PATHS: readonly string[] = [
  "~/.ssh",
  "~/.aws",
  "~/.gnupg",
  "~/.config/gh",
  "~/.config/hub",
  "~/.config/gcloud",
  "~/.config/op",
  "~/.config/github-copilot",
  "~/.azure",
  "~/.kube",
  "~/.oci",
  "~/.password-store",
  "~/.local/share/keyrings",
  "~/.docker/config.json",
  "~/.netrc",
  "~/.git-credentials",
  "~/.config/git/credentials",
  "~/.npmrc",
  "~/.pypirc",
  "~/.pgpass",
  "~/.my.cnf",
  "~/.vault-token",
  "~/.cargo/credentials",
  "~/.cargo/credentials.toml",
  "~/.gem/credentials",
  "~/.terraform.d/credentials.tfrc.json",
  "~/.claude/.credentials.json",
  "~/.codex/auth.json",
  // Sylk's own settings: its MCP servers' environment and headers hold their tokens.
  "~/.sylkrc",
  // What was typed at a prompt: keys exported by hand, passwords given on a command line.
  "~/.bash_history",
  "~/.zsh_history",
  "~/.local/share/fish/fish_history",
  "~/.python_history",
  "~/.node_repl_history",
  "~/.psql_history",
  "~/.mysql_history",
  // Whoever reaches the Docker daemon's socket is root on the machine; the network namespace does not cover Unix sockets.
  "/var/run/docker.sock",
  "/run/docker.sock",
];

/** Variables that name more credential places: files, directories, agents' sockets. */
const CREDENTIAL_VARIABLES: readonly string[] = [
  "SSH_AUTH_SOCK",
  "XDG_RUNTIME_DIR",
  "GNUPGHOME",
  "DOCKER_CONFIG",
  "KUBECONFIG",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "AWS_SHARED_CREDENTIALS_FILE",
];

export interface HiddenPath {
  /** A real path. */
  path: string;
  /** A directory is covered by an empty read-only one, anything else by an empty read-only file. */
  kind: "directory" | "file";
}

export interface ReadDenial {
  hidden: HiddenPath[];
  /** Places that are not hidden because the command needs what is inside them, with why. */
  kept: Array<{ path: string; reason: string }>;
}

/**
 * What sandboxed commands cannot read: `$SYLK_HOME` (the trust store and
 * every project's database), the credential places that exist, and the
 * user's `sandbox.denyRead`. A place that holds the project or a writable
 * directory is kept, and said so: hiding it would hide the project.
 */
export function readDenial(scope: SandboxScope, places: UserPlaces, denyRead: readonly string[]): ReadDenial {
  const { env } = places;
  const fromVariables = CREDENTIAL_VARIABLES.flatMap((name) => (env[name] ?? "").split(name === "KUBECONFIG" ? ":" : "\n")).filter((path) =>
    path.startsWith("/"),
  );
  const candidates = [places.sylkHome, ...CREDENTIAL_PATHS, ...fromVariables, ...denyRead].map((path) => expandHome(path, env));
  const hidden = new Map<string, HiddenPath>();
  const kept: ReadDenial["kept"] = [];
  for (const candidate of candidates) {
    if (kindOf(candidate) === "absent") continue;
    const path = realOrSelf(candidate);
    if (hidden.has(path) || kept.some((entry) => entry.path === shownPath(path, env))) continue;
    const holds = [scope.root, ...scope.writable].find((writable) => isWithin(writable, path));
    if (holds !== undefined) {
      const what = holds === scope.root ? "the project" : `the writable directory ${shownPath(holds, env)}`;
      kept.push({ path: shownPath(path, env), reason: `it holds ${what}` });
      continue;
    }
    hidden.set(path, { path, kind: kindOf(path) === "directory" ? "directory" : "file" });
  }
  // Inside a hidden directory there is nothing left to hide (and no place to mount over).
  const directories = [...hidden.values()].filter((entry) => entry.kind === "directory").map((entry) => entry.path);
  const covered = (path: string) => directories.some((directory) => directory !== path && isWithin(path, directory));
  return { hidden: [...hidden.values()].filter((entry) => !covered(entry.path)), kept };
}
