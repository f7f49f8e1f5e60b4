#!/usr/bin/env node
// Runs a command on a Node.js that Sylk supports, fetching one from the npm
// registry when the running Node is older: the registry ships Node itself as
// `node-<platform>-<arch>` packages (the binary, and the headers that native
// modules build against offline), so nothing is downloaded from elsewhere.
//
//   node scripts/supported-node.mjs <command> [args…]   # `npm test`, `npm run demo`
//   node scripts/supported-node.mjs --install <22|24>    # prints the directory of that Node
//
// A developer whose Node already satisfies `engines.node` runs the command as
// it is: nothing is fetched. Otherwise the command runs with Node 24 first on
// PATH and `npm_config_nodedir` set to its directory (node-gyp then builds
// against its headers instead of downloading them).
//
// The pinned versions are the newest of each LTS line on the registry: 24.21
// is the release the better-sqlite3 12 crash was reported on, and each line's
// latest patch carries its security fixes. Fetched once into
// $SYLK_NODE_CACHE (default ~/.cache/sylk/node); npm checks each tarball's
// integrity against the registry.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isSupportedNode, minimumNodeVersion } from "../bin/node-version.js";

export const PINNED_NODE = { 22: "22.23.3", 24: "24.21.0" };

function cacheRoot() {
  return process.env.SYLK_NODE_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "sylk", "node");
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status})`);
  return result.stdout;
}

/** The directory of the pinned Node of this major line (bin/node, include/node), fetched if missing. */
export function installNode(major) {
  const version = PINNED_NODE[major];
  if (!version) throw new Error(`no pinned Node ${major}: choose one of ${Object.keys(PINNED_NODE).join(", ")}`);
  if (process.platform === "win32") throw new Error("fetching Node is not supported on Windows: install Node 22 or 24 yourself");
  const packageName = `node-${process.platform}-${process.arch}`;
  const directory = join(cacheRoot(), `${packageName}-${version}`);
  const binary = join(directory, "bin", "node");
  if (!existsSync(binary)) {
    mkdirSync(cacheRoot(), { recursive: true });
    const staging = mkdtempSync(join(cacheRoot(), ".fetch-"));
    try {
      process.stderr.write(`Fetching Node ${version} (${packageName}) from the npm registry…\n`);
      const [packed] = JSON.parse(run("npm", ["pack", `${packageName}@${version}`, "--pack-destination", staging, "--json", "--silent"]));
      const unpacked = join(staging, "package");
      run("tar", ["-xzf", join(staging, packed.filename), "-C", staging]);
      // Renamed whole, so a fetch cut short never leaves a directory that looks complete.
      try {
        renameSync(unpacked, directory);
      } catch (error) {
        if (!existsSync(binary)) throw error; // else another process fetched it first
      }
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  const reported = run(binary, ["--version"]).trim();
  if (reported !== `v${version}`) throw new Error(`${binary} reports ${reported}, expected v${version}`);
  return directory;
}

/** The environment that puts this Node first on PATH and builds native modules against its headers. */
export function environmentFor(directory, environment = process.env) {
  return { ...environment, PATH: `${join(directory, "bin")}:${environment.PATH ?? ""}`, npm_config_nodedir: directory };
}

function runOnSupportedNode(command, args) {
  let environment = process.env;
  if (!isSupportedNode(process.versions.node)) {
    const directory = installNode(24);
    process.stderr.write(
      `Node ${process.version} is older than Sylk supports (${minimumNodeVersion().join(".")}): running on Node ${PINNED_NODE[24]} from ${directory}\n`,
    );
    environment = environmentFor(directory);
  }
  const result = spawnSync(command, args, { stdio: "inherit", env: environment });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function mainCommand(argv) {
  const [first, ...rest] = argv;
  if (!first) {
    process.stderr.write("Usage: node scripts/supported-node.mjs <command> [args…] | --install <22|24>\n");
    return 2;
  }
  if (first === "--install") {
    process.stdout.write(`${installNode(Number(rest[0]))}\n`);
    return 0;
  }
  return runOnSupportedNode(first, rest);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.exitCode = mainCommand(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`supported-node: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
