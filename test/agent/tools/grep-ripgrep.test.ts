import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { createGrepTool } from "../../../src/agent/tools/grep.js";
import { Ripgrep } from "../../../src/agent/tools/grep-ripgrep.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

const installed = Ripgrep.onPath(process.env);
let project: TempProject;
let bin: string;

beforeEach(() => {
  project = createTempProject({
    ".gitignore": "ignored/\n*.log\n",
    ".sylkignore": "private/\n",
    "src/a.ts": "export const needle = 1;\n",
    "src/.hidden.ts": "// needle in a dotfile\n",
    "src/deep/b.ts": "const NEEDLE = 2; // needle\n",
    "ignored/c.ts": "needle\n",
    "debug.log": "needle\n",
    "private/d.ts": "needle\n",
    "node_modules/lib/e.js": "needle\n",
    ".ignore": "src/deep/\n",
    "secrets.pem": "needle\n",
  });
  project.write("big.txt", `needle\n${"x".repeat(2 << 20)}\n`);
  bin = mkdtempSync(join(tmpdir(), "sylk-rg-bin-"));
});
afterEach(() => {
  project.cleanup();
  rmSync(bin, { recursive: true, force: true });
});

/** An `rg` on a PATH of its own that notes each call in `calls.log`, then runs `body`. */
function ripgrepRunning(body: string): Ripgrep {
  const script = join(bin, "rg");
  writeFileSync(script, `#!/bin/sh\necho "$@" >> ${JSON.stringify(join(bin, "calls.log"))}\n${body}\n`);
  chmodSync(script, 0o755);
  const found = Ripgrep.onPath({ PATH: bin });
  if (!found) throw new Error("the test's rg was not found");
  return found;
}

const calls = () => {
  try {
    return readFileSync(join(bin, "calls.log"), "utf8").trim().split("\n");
  } catch {
    return [];
  }
};

async function grepWith(ripgrep: Ripgrep | undefined, input: Record<string, unknown>) {
  const registry = new ToolRegistry([createGrepTool(ripgrep ? { ripgrep } : {})], new PermissionPolicy("bypass"));
  return registry.run({ id: "1", name: "grep", input }, { root: project.root, signal: new AbortController().signal, extraDirectories: [] });
}

describe("grep listing files with ripgrep", () => {
  it.skipIf(!installed)(
    "lists with rg and answers as the built-in walk does: the same ignore files, exclusions, secrets and size limit",
    async () => {
      const ripgrep = ripgrepRunning(`exec ${JSON.stringify(installed?.command)} "$@"`);
      for (const input of [{ pattern: "needle" }, { pattern: "needle", ignore_case: true }, { pattern: "needle", path: "src" }]) {
        const walked = await grepWith(undefined, input);
        const listed = await grepWith(ripgrep, input);
        expect(listed.output, JSON.stringify(input)).toBe(walked.output);
      }
      expect((await grepWith(ripgrep, { pattern: "needle", ignore_case: true })).output.split("\n")).toEqual([
        "src/.hidden.ts:1: // needle in a dotfile",
        "src/a.ts:1: export const needle = 1;",
        "src/deep/b.ts:1: const NEEDLE = 2; // needle",
      ]);
      expect(calls()).toHaveLength(4);
      expect(calls()[0]).toContain("--regexp needle -- .");
    },
  );

  it("falls back to the built-in walk when rg fails, and does not call it for a pattern without a literal", async () => {
    const failing = ripgrepRunning("exit 2");
    expect((await grepWith(failing, { pattern: "needle" })).output.split("\n")).toEqual([
      "src/.hidden.ts:1: // needle in a dotfile",
      "src/a.ts:1: export const needle = 1;",
      "src/deep/b.ts:1: const NEEDLE = 2; // needle",
    ]);
    expect(calls()).toHaveLength(1);
    expect((await grepWith(failing, { pattern: "^(\\w+\\W+){3}\\d\\W$" })).output).toBe("src/a.ts:1: export const needle = 1;");
    expect(calls()).toHaveLength(1);
  });

  it("takes an empty answer from rg as no file holding the literal", async () => {
    const silent = ripgrepRunning("exit 1");
    expect((await grepWith(silent, { pattern: "needle" })).output).toBe("No matches for /needle/.");
  });
});
