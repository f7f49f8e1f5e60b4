// What probes observe of the machine after an attack: the laboratory's processes, files under a
// directory and their bytes, and the databases Sylk wrote (read with the project's own driver).
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

/** The processes this laboratory started (marked by SYLK_PROBE_LAB): pid, argv and the command line. */
export function labProcesses(base) {
  const wanted = Buffer.from(`SYLK_PROBE_LAB=${base}\0`);
  let entries = [];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`).indexOf(wanted) === -1) continue;
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      found.push({ pid, argv, command: argv.join(" ") });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** The laboratory's `node bin/sylk.js …` process (the TUI's, in a terminal), not the shells and tmux around it. */
export function sylkProcess(base) {
  return labProcesses(base).find(({ argv }) => argv[0] === process.execPath && argv[1]?.endsWith("bin/sylk.js"));
}

/** Kills, by pid, the processes this laboratory started that outlived their parent. */
export function killLabProcesses(base) {
  for (const { pid } of labProcesses(base)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}

/** A number from /proc/<pid>/status (`Threads`, `VmRSS` in kB), or undefined once the process is gone. */
export function processStatus(pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Where Sylk keeps a project's data (`$SYLK_HOME/projects/<hash>`), as src/project/project-paths.ts computes it. */
export function projectDataDir(sylkHome, root) {
  return join(sylkHome, "projects", createHash("sha256").update(realpathSync(root)).digest("hex").slice(0, 16));
}

/** Every regular file under `directory` whose bytes contain one of `needles`: [{ path, needle }]. */
export function filesContaining(directory, needles) {
  const found = [];
  for (const path of walkFiles(directory)) {
    let bytes;
    try {
      bytes = readFileSync(path);
    } catch {
      continue;
    }
    for (const needle of needles) if (bytes.includes(Buffer.from(needle))) found.push({ path, needle });
  }
  return found;
}

/** Regular files below `directory` (symbolic links are not followed). */
function* walkFiles(directory) {
  for (const { path, stats } of entriesBelow(directory)) if (stats.isFile()) yield path;
}

/** Everything below `directory` with its lstat, depth first. */
export function* entriesBelow(directory) {
  let names;
  try {
    names = readdirSync(directory);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(directory, name);
    let stats;
    try {
      stats = lstatSync(path);
    } catch {
      continue;
    }
    yield { path, stats };
    if (stats.isDirectory()) yield* entriesBelow(path);
  }
}

/** True while a process with this pid exists (and is not a zombie). */
export function isAlive(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return !/^State:\s+Z/m.test(status);
  } catch {
    return existsSync(`/proc/${pid}`);
  }
}

/** Opens a SQLite file with the project's own driver, read-only unless asked: to look at what Sylk stored. */
export function openDatabase(repo, path, { readonly = true } = {}) {
  const Database = createRequire(join(repo, "package.json"))("better-sqlite3");
  const db = new Database(path, { readonly, fileMustExist: true });
  db.pragma("busy_timeout = 10000");
  return db;
}
