import { rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildCommandsIn, pythonScripts } from "../../src/project/build-commands.js";
import { plantFifo } from "../helpers/fifo.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** The build and test commands a project's own files name: read, never invented. */

let project: TempProject | undefined;
afterEach(() => project?.cleanup());
const commandsOf = (files: Record<string, string>) => {
  project = createTempProject(files);
  return buildCommandsIn(project.root);
};

describe("build commands", () => {
  it("lists package.json's scripts as the lockfile's package manager runs them", () => {
    const scripts = JSON.stringify({ scripts: { build: "tsc -p .", test: "vitest run", lint: "eslint ." } });
    expect(commandsOf({ "package.json": scripts })).toEqual([
      {
        source: "package.json (npm)",
        commands: [
          { run: "npm run build", does: "tsc -p ." },
          { run: "npm test", does: "vitest run" },
          { run: "npm run lint", does: "eslint ." },
        ],
      },
    ]);
    expect(commandsOf({ "package.json": scripts, "pnpm-lock.yaml": "" })[0]?.commands[0]).toEqual({ run: "pnpm build", does: "tsc -p ." });
  });

  it("reads a Makefile's targets, not its variables, special targets, patterns or recipe lines", () => {
    const makefile = [
      "CC := gcc",
      "PREFIX ?= /usr/local",
      ".PHONY: all test",
      "all: build",
      "build test: deps",
      "\techo not: a target",
      "%.o: %.c",
      "# note: a comment",
      "install:",
      "",
    ].join("\n");
    expect(commandsOf({ Makefile: makefile })).toEqual([
      { source: "Makefile", commands: ["all", "build", "test", "install"].map((name) => ({ run: `make ${name}` })) },
    ]);
  });

  it("reads a justfile's recipes, Cargo and Go modules, pytest and tox", () => {
    expect(
      commandsOf({
        justfile:
          'set shell := ["bash", "-c"]\nversion := "1"\nurl = "http://x"\n\nbuild:\n    cargo build\n\ntest filter=\'\': build\n    cargo test {{filter}}\n',
      }),
    ).toEqual([{ source: "justfile", commands: [{ run: "just build" }, { run: "just test" }] }]);
    expect(commandsOf({ "Cargo.toml": '[workspace]\nmembers = ["a"]\n' })).toEqual([
      { source: "Cargo.toml", commands: [{ run: "cargo build --workspace" }, { run: "cargo test --workspace" }] },
    ]);
    expect(commandsOf({ "go.mod": "module example.com/shop\n\ngo 1.22\n" })).toEqual([
      { source: "go.mod (example.com/shop)", commands: [{ run: "go build ./..." }, { run: "go test ./..." }] },
    ]);
    expect(
      commandsOf({
        "pyproject.toml": '[tool.poetry]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
        "tox.ini": "[tox]\nenvlist = py311, lint\n",
      }),
    ).toEqual([{ source: "pyproject.toml", commands: [{ run: "poetry run pytest" }, { run: "tox", does: "environments py311, lint" }] }]);
  });

  it("lists nothing where no build file says anything", () => {
    expect(commandsOf({ "README.md": "# x\n", "pyproject.toml": '[project]\nname = "x"\n', "package.json": "{ not json" })).toEqual([]);
  });

  it("reads a pyproject's console scripts", () => {
    expect(
      pythonScripts('[project]\nname = "x"\n\n[project.scripts]\nshop = "shop.cli:main"\nshop-admin = "shop.admin:run"\n\n[tool.ruff]\n'),
    ).toEqual(["shop (shop.cli:main)", "shop-admin (shop.admin:run)"]);
  });
  it("does not read a build file that is a link out of the project, nor wait on one that is a FIFO", () => {
    project = createTempProject({ "src/a.ts": "a\n" });
    const outside = join(project.root, "..", `${project.root.split("/").pop()}-pgpass`);
    writeFileSync(outside, "db.internal.example:5432:app:admin:hunter2\n");
    try {
      symlinkSync(outside, join(project.root, "Makefile"));
      const fifo = plantFifo(join(project.root, "justfile"));
      try {
        const started = performance.now();
        expect(buildCommandsIn(project.root)).toEqual([]);
        expect(performance.now() - started).toBeLessThan(5_000);
      } finally {
        fifo.remove();
      }
    } finally {
      rmSync(outside, { force: true });
    }
  });
});
