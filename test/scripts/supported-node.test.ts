import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../../scripts/supported-node.mjs", import.meta.url));
const PRETEND_NODE_20 = `data:text/javascript,${encodeURIComponent(
  'Object.defineProperty(process, "version", { value: "v20.20.2" }); Object.defineProperty(process, "versions", { value: { ...process.versions, node: "20.20.2" } });',
)}`;

let cache: string;
beforeEach(() => {
  cache = mkdtempSync(join(tmpdir(), "sylk-node-cache-"));
});
afterEach(() => rmSync(cache, { recursive: true, force: true }));

/** Runs the script with `nodeArgs` before it, a private cache, and a command that prints which node it found. */
function run(nodeArgs: string[]) {
  return spawnSync(process.execPath, [...nodeArgs, SCRIPT, "sh", "-c", 'echo "$(node --version) nodedir=${npm_config_nodedir:-none}"'], {
    env: { ...process.env, SYLK_NODE_CACHE: cache, npm_config_nodedir: "" },
    encoding: "utf8",
  });
}

describe("scripts/supported-node.mjs (npm test and npm run demo)", () => {
  it("runs the command as it is on a supported Node, fetching nothing", () => {
    const result = run([]);
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(`${process.version} nodedir=none`);
    expect(result.stderr).toBe("");
    expect(readdirSync(cache)).toEqual([]);
  });

  it("on an older Node runs the command on the pinned Node 24, its headers as npm's nodedir", () => {
    // A stand-in for the fetched Node 24 in the cache, so that this test needs no registry.
    const directory = join(cache, `node-${process.platform}-${process.arch}-24.21.0`);
    mkdirSync(join(directory, "bin"), { recursive: true });
    writeFileSync(join(directory, "bin", "node"), "#!/bin/sh\necho v24.21.0\n");
    chmodSync(join(directory, "bin", "node"), 0o755);
    const result = run(["--import", PRETEND_NODE_20]);
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(`v24.21.0 nodedir=${directory}`);
    expect(result.stderr).toBe(`Node v20.20.2 is older than Sylk supports (22.14.0): running on Node 24.21.0 from ${directory}\n`);
  });

  it("passes on the command's exit code", () => {
    const result = spawnSync(process.execPath, [SCRIPT, "sh", "-c", "exit 7"], { encoding: "utf8" });
    expect(result.status).toBe(7);
  });
});
