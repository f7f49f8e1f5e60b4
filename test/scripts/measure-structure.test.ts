import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

const SCRIPT = fileURLToPath(new URL("../../scripts/measure-structure.mjs", import.meta.url));

function measure(...args: string[]) {
  const result = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A function `name` spanning exactly `lines` lines, its first and last included. */
function functionOfLines(name: string, lines: number): string {
  return [
    `export function ${name}(): number {`,
    "  let total = 0;",
    ...Array.from({ length: lines - 4 }, (_, index) => `  total += ${index};`),
    "  return total;",
    "}",
  ].join("\n");
}

/** A file of exactly `lines` lines, each ending with a newline. */
const fileOfLines = (lines: number) => Array.from({ length: lines }, (_, index) => `export const line${index} = ${index};\n`).join("");

let tree: TempProject;
beforeEach(() => {
  tree = createTempProject({
    // A run-time cycle of two files.
    "app/a.ts": 'import { b } from "./b.js";\nexport const a = () => b;\n',
    "app/b.ts": 'import { a } from "./a.js";\nexport const b = () => a;\n',
    // A cycle closed only by type-only imports: erased when compiled, so no run-time cycle.
    "app/c.ts": 'import type { D } from "./d.js";\nexport type C = D | 1;\nexport const c = 1;\n',
    "app/d.ts": 'export type { C as D } from "./c.js";\nimport { c } from "./c.js";\nexport const d = c;\n',
    // `import { type X }` still loads the module (verbatimModuleSyntax), and a dynamic import does too: a run-time cycle.
    "app/e.ts": 'import { type F } from "./f.js";\nexport type E = F;\n',
    "app/f.ts": 'export type F = string;\nexport async function load() {\n  return import("./e.js");\n}\n',
    // Against the layer order: the store imports the CLI at run time and the composition root for a type.
    "store/s.ts":
      'import { run } from "../cli/flags.js";\nimport type { a } from "../app/a.js";\nexport const s = run;\nexport type S = typeof a;\n',
    // Downward imports are fine.
    "cli/flags.ts": "export const run = () => 0;\n",
    "cli/main.ts": 'import { s } from "../store/s.js";\nimport { a } from "../app/a.js";\nexport const main = () => [s, a];\n',
    // A feature's core may not import the composition root; its session part belongs there and may.
    "team/core.ts": 'import { a } from "../app/a.js";\nexport const core = a;\n',
    "team/session/host.ts": 'import { a } from "../../app/a.js";\nimport { core } from "../core.js";\nexport const host = [a, core];\n',
    // Nor its own session shell, which sits with the composition.
    "knowledge/core.ts": 'import { shell } from "./session/shell.js";\nexport const core = shell;\n',
    "knowledge/session/shell.ts": "export const shell = 1;\n",
    // A folder the layer order does not name.
    "misc/thing.ts": 'import { a } from "../app/a.js";\nexport const thing = a;\n',
    // One function just over the limit and one at it; a long method and a long arrow assigned to a name.
    "agent/long.ts": `${functionOfLines("justOver", 121)}\n${functionOfLines("atTheLimit", 120)}\n`,
    "agent/more.ts": [
      `export class Runner {\n  run(): number {\n${Array.from({ length: 122 }, () => "    void 0;").join("\n")}\n    return 1;\n  }\n}`,
      `export const handler = (): number => {\n${Array.from({ length: 124 }, () => "  void 0;").join("\n")}\n  return 2;\n};\n`,
    ].join("\n"),
    // One file just over 400 lines and one at 400.
    "search/over.ts": fileOfLines(401),
    "search/at.ts": fileOfLines(400),
  });
});
afterEach(() => tree.cleanup());

describe("scripts/measure-structure.mjs", () => {
  it("counts run-time cycles, layer violations, long files and long functions of a tree as the compiler reads it", () => {
    const result = measure("--json", tree.root);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const measured = JSON.parse(result.stdout);
    expect(measured.files).toBe(18);
    expect(measured.runTimeCycles).toEqual([
      { files: ["app/a.ts", "app/b.ts"], path: ["app/a.ts", "app/b.ts", "app/a.ts"] },
      { files: ["app/e.ts", "app/f.ts"], path: ["app/e.ts", "app/f.ts", "app/e.ts"] },
    ]);
    expect(measured.cyclesWithTypes.map((cycle: { files: string[] }) => cycle.files)).toEqual([
      ["app/a.ts", "app/b.ts"],
      ["app/c.ts", "app/d.ts"],
      ["app/e.ts", "app/f.ts"],
    ]);
    expect(measured.layerViolations).toEqual([
      {
        from: "knowledge/core.ts",
        to: "knowledge/session/shell.ts",
        line: 1,
        typeOnly: false,
        fromLayer: "features",
        toLayer: "composition",
      },
      { from: "store/s.ts", to: "cli/flags.ts", line: 1, typeOnly: false, fromLayer: "store and models", toLayer: "entry" },
      { from: "store/s.ts", to: "app/a.ts", line: 2, typeOnly: true, fromLayer: "store and models", toLayer: "composition" },
      { from: "team/core.ts", to: "app/a.ts", line: 1, typeOnly: false, fromLayer: "features", toLayer: "composition" },
    ]);
    expect(measured.foldersWithoutLayer).toEqual(["misc"]);
    expect(measured.longFiles).toEqual([{ file: "search/over.ts", lines: 401 }]);
    expect(measured.longFunctions).toEqual([
      { file: "agent/more.ts", name: "handler", line: 128, lines: 127 },
      { file: "agent/more.ts", name: "run", line: 2, lines: 125 },
      { file: "agent/long.ts", name: "justOver", line: 1, lines: 121 },
    ]);
  });

  it("prints the same figures for a reader, each cycle with its files", () => {
    const result = measure(tree.root);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(
      "Run-time import cycles: 2\n  2 files: app/a.ts, app/b.ts\n    for example app/a.ts → app/b.ts → app/a.ts\n",
    );
    expect(result.stdout).toContain("Import cycles counting type-only imports: 3");
    expect(result.stdout).toContain(
      "Imports against the layer order: 4\n  knowledge/core.ts:1 → knowledge/session/shell.ts  [features → composition]\n  store/s.ts:1 → cli/flags.ts  [store and models → entry]\n",
    );
    expect(result.stdout).toContain("Files over 400 lines: 1\n  search/over.ts: 401\n");
    expect(result.stdout).toContain("Functions over 120 lines: 3\n  agent/more.ts:128 handler: 127\n");
  });

  it("refuses what it cannot measure", () => {
    expect(measure("--yaml").status).toBe(2);
    expect(measure(`${tree.root}/absent`)).toMatchObject({ status: 2, stderr: expect.stringContaining("is not a directory") });
  });
});
