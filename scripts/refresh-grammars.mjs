#!/usr/bin/env node
// Refreshes the vendored tree-sitter grammars in grammars/ from their npm
// packages, and records where each came from in grammars/manifest.json.
//
// Why vendored: Sylk uses the official grammar packages only for their
// prebuilt `.wasm` files, yet installing them brought their C sources, native
// Node bindings and install scripts (281 MB of node_modules for ~20 MB of
// grammars). The `.wasm` files are copied here byte for byte instead.
//
//   node scripts/refresh-grammars.mjs                          # fetch every grammar again at its recorded version
//   node scripts/refresh-grammars.mjs tree-sitter-go@0.25.1 …  # move these packages to these versions (or add them)
//   node scripts/refresh-grammars.mjs --check                  # the files match the manifest (no network)
//
// Each grammar must load in the web-tree-sitter that package.json pins: its
// ABI version is recorded beside the file's SHA-256 and the package's
// tarball integrity, repository and release tag.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Language, Parser } from "web-tree-sitter";

const repo = fileURLToPath(new URL("..", import.meta.url));
const grammarsDirectory = join(repo, "grammars");
const manifestPath = join(grammarsDirectory, "manifest.json");

const sha256 = (path) => createHash("sha256").update(readFileSync(path)).digest("hex");

function run(command, args) {
  const result = spawnSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status})`);
  return result.stdout;
}

function readManifest() {
  return existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, "utf8")) : { packages: [] };
}

/**
 * Copies the package's top-level `.wasm` files (only `keep`, when given: a
 * package may ship grammars Sylk does not use) and says where they came from.
 */
function fetchPackage(name, version, keep) {
  const staging = mkdtempSync(join(tmpdir(), "sylk-grammar-"));
  try {
    const [packed] = JSON.parse(run("npm", ["pack", `${name}@${version}`, "--pack-destination", staging, "--json", "--silent"]));
    const tarball = join(staging, packed.filename);
    const wasmFiles = run("tar", ["-tzf", tarball])
      .split("\n")
      .filter((entry) => /^package\/[^/]+\.wasm$/.test(entry))
      .map((entry) => entry.slice("package/".length))
      .filter((file) => !keep || keep.includes(file));
    if (wasmFiles.length === 0) throw new Error(`${name}@${version} ships none of the .wasm files wanted (${keep?.join(", ") ?? "any"})`);
    run("tar", ["-xzf", tarball, "-C", staging, "package/package.json", ...wasmFiles.map((file) => `package/${file}`)]);
    const packageJson = JSON.parse(readFileSync(join(staging, "package", "package.json"), "utf8"));
    for (const file of wasmFiles) copyFileSync(join(staging, "package", file), join(grammarsDirectory, file));
    const repository = typeof packageJson.repository === "string" ? packageJson.repository : packageJson.repository?.url;
    return {
      package: name,
      version,
      integrity: packed.integrity,
      repository: repository?.replace(/^git\+/, "").replace(/\.git$/, ""),
      // npm records no commit for these packages; upstream tags each release.
      tag: `v${version}`,
      files: wasmFiles,
    };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

async function describeFiles(files) {
  await Parser.init();
  const described = {};
  for (const file of files) {
    const path = join(grammarsDirectory, file);
    const language = await Language.load(readFileSync(path));
    described[file] = { sha256: sha256(path), abi: language.abiVersion };
  }
  return described;
}

function check(manifest) {
  const problems = [];
  for (const entry of manifest.packages) {
    for (const [file, { sha256: expected }] of Object.entries(entry.files)) {
      const path = join(grammarsDirectory, file);
      if (!existsSync(path)) problems.push(`${file} is missing`);
      else if (sha256(path) !== expected) problems.push(`${file} differs from ${entry.package}@${entry.version} (SHA-256)`);
    }
  }
  return problems;
}

async function refresh(requested) {
  const manifest = readManifest();
  const wanted = new Map(manifest.packages.map((entry) => [entry.package, entry.version]));
  const kept = new Map(manifest.packages.map((entry) => [entry.package, Object.keys(entry.files)]));
  for (const spec of requested) {
    const at = spec.lastIndexOf("@");
    if (at <= 0) throw new Error(`name a package with its exact version: ${spec}`);
    wanted.set(spec.slice(0, at), spec.slice(at + 1));
  }
  const packages = [];
  for (const [name, version] of [...wanted].sort(([a], [b]) => a.localeCompare(b))) {
    process.stderr.write(`${name}@${version}\n`);
    const fetched = fetchPackage(name, version, kept.get(name));
    packages.push({ ...fetched, files: await describeFiles(fetched.files) });
  }
  const webTreeSitter = JSON.parse(readFileSync(join(repo, "node_modules", "web-tree-sitter", "package.json"), "utf8")).version;
  writeFileSync(manifestPath, `${JSON.stringify({ loadedWith: `web-tree-sitter@${webTreeSitter}`, packages }, null, 2)}\n`);
}

const args = process.argv.slice(2);
if (args[0] === "--check") {
  const problems = check(readManifest());
  for (const problem of problems) console.error(problem);
  process.exitCode = problems.length > 0 ? 1 : 0;
} else {
  await refresh(args);
}
