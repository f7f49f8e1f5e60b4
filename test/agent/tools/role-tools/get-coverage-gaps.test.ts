import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../../src/agent/permissions/permission-policy.js";
import { createGetCoverageGapsTool } from "../../../../src/agent/tools/role-tools/get-coverage-gaps.js";
import { ToolRegistry } from "../../../../src/agent/tools/tool-registry.js";
import { createTempProject, type TempProject } from "../../../helpers/temp-project.js";
import { COBERTURA, GO_PROFILE, ISTANBUL_FINAL, ISTANBUL_SUMMARY, LCOV } from "./coverage-fixtures.js";

let project: TempProject;
let available: number;

beforeEach(() => {
  project = createTempProject();
  available = 10_000;
});
afterEach(() => project.cleanup());

const REPORT_TIME = new Date("2026-11-20T09:30:00Z");

/** Writes files, then the report, and dates the report; `changed` files are dated after it. */
function setUp(report: { path: string; content: string }, files: Record<string, string>, changed: readonly string[] = []): void {
  for (const [path, content] of Object.entries(files)) {
    project.write(path, content);
    const when = changed.includes(path) ? new Date(REPORT_TIME.getTime() + 60_000) : new Date(REPORT_TIME.getTime() - 60_000);
    utimesSync(join(project.root, path), when, when);
  }
  project.write(report.path, report.content);
  utimesSync(join(project.root, report.path), REPORT_TIME, REPORT_TIME);
}

async function gaps(input: Record<string, unknown> = {}) {
  const registry = new ToolRegistry([createGetCoverageGapsTool({ availableTokens: () => available })], new PermissionPolicy("default"));
  return registry.run(
    { id: "toolu_1", name: "get_coverage_gaps", input },
    { root: project.root, signal: new AbortController().signal, extraDirectories: [] },
  );
}

describe("get_coverage_gaps", () => {
  it("lists lcov's files by uncovered lines with their ranges, and which changed since the report", async () => {
    setUp({ path: "coverage/lcov.info", content: LCOV }, { "src/cart.ts": "…", "src/money.ts": "…" }, ["src/cart.ts"]);
    const result = await gaps();
    expect(result.isError).toBeFalsy();
    expect(result.output.split("\n")).toEqual([
      expect.stringMatching(
        /^source: coverage\/lcov\.info \(lcov, written 2026-11-20 09:30 UTC\) · 1 results · tokens: \d+ · truncated: false$/,
      ),
      "5 of 9 lines covered (55.6 %) in 2 files; 1 fully covered. 1 of the 1 files listed changed since the report (marked; their figures may be stale).",
      "- src/cart.ts · 4 of 7 lines uncovered (42.9 % covered) · lines 5-7, 12 [changed since the report]",
    ]);
  });

  it("reads the first report in its order: the json-summary before lcov, counts only", async () => {
    const root = project.root;
    setUp({ path: "coverage/lcov.info", content: LCOV }, {});
    setUp(
      { path: "coverage/coverage-summary.json", content: ISTANBUL_SUMMARY.replaceAll("/home/dev/shop", root) },
      { "src/cart.ts": "…", "src/money.ts": "…" },
    );
    const result = await gaps();
    expect(result.output.split("\n")).toEqual([
      expect.stringMatching(
        /^source: coverage\/coverage-summary\.json \(istanbul json-summary, written 2026-11-20 09:30 UTC\) · 2 results · /,
      ),
      "45 of 60 lines covered (75.0 %) in 2 files; 0 fully covered. 0 of the 2 files listed changed since the report.",
      "- src/cart.ts · 12 of 40 lines uncovered (70.0 % covered)",
      "- src/money.ts · 3 of 20 lines uncovered (85.0 % covered)",
      "(coverage-summary.json has counts only; coverage-final.json or lcov.info would give the line numbers.)",
    ]);
  });

  it("shows istanbul's absolute paths relative to the root, and says which listed files no longer exist", async () => {
    setUp({ path: "coverage/coverage-final.json", content: ISTANBUL_FINAL.replaceAll("/home/dev/shop", project.root) }, {});
    const result = await gaps();
    expect(result.output).toContain("0 of the 1 files listed changed since the report, 1 no longer exist.");
    expect(result.output).toContain("- src/money.ts · 2 of 6 lines uncovered (66.7 % covered) · lines 5, 9 [no longer exists]");
  });

  it("maps Go import paths through go.mod's module", async () => {
    setUp(
      { path: "coverage.out", content: GO_PROFILE },
      { "go.mod": "module example.com/shop\n\ngo 1.22\n", "cart/cart.go": "package cart\n", "money/money.go": "package money\n" },
    );
    const result = await gaps();
    expect(result.output).toMatch(/^source: coverage\.out \(go cover profile, written [^)]*\) · 1 results · /);
    expect(result.output).toContain("- cart/cart.go · 5 of 11 lines uncovered (54.5 % covered) · lines 16-17, 21-23");
  });

  it("reads Cobertura's names relative to its source, and narrows to a path", async () => {
    setUp(
      { path: "coverage.xml", content: COBERTURA.replace("/home/dev/api", project.root) },
      { "app/users.py": "…", "app/__init__.py": "…", "lib/other.py": "…" },
    );
    const all = await gaps();
    expect(all.output).toContain("- app/users.py · 3 of 6 lines uncovered (50.0 % covered) · lines 5-6, 9");
    const narrowed = await gaps({ path: "app/__init__.py" });
    expect(narrowed.output.split("\n").slice(1)).toEqual([
      "Under app/__init__.py: 3 of 3 lines covered (100.0 %) in 1 files; 1 fully covered.",
    ]);
    const elsewhere = await gaps({ path: "lib" });
    expect(elsewhere.output.split("\n")[1]).toBe("The report lists no file under lib.");
    const outside = await gaps({ path: "../elsewhere" });
    expect(outside.isError).toBe(true);
    expect(outside.output).toBe("../elsewhere is outside the project; give a path inside it.");
  });

  it("keeps within its token budget and says how many files did not fit", async () => {
    const lcov = Array.from({ length: 40 }, (_, index) => `SF:src/file-${index}.ts\nDA:1,1\nDA:2,0\nDA:4,0\nend_of_record\n`).join("");
    setUp({ path: "coverage/lcov.info", content: lcov }, {});
    available = 120;
    const result = await gaps({ max_tokens: 4000 });
    const header = /· (\d+) results · tokens: (\d+) · truncated: true$/.exec(result.output.split("\n")[0] ?? "");
    expect(Number(header?.[2])).toBeLessThanOrEqual(120);
    expect(result.output).toContain(
      `(${40 - Number(header?.[1])} more files with uncovered lines did not fit; ask again with a larger max_tokens, up to 4000, or a narrower path.)`,
    );
  });

  it("does not read a report that is a link leading outside the project", async () => {
    const outside = join(project.root, "..", "outside");
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, "lcov.info"), "SF:/etc/secret-file\nDA:1,0\nend_of_record\n");
    mkdirSync(join(project.root, "coverage"));
    symlinkSync(join(outside, "lcov.info"), join(project.root, "coverage", "lcov.info"));
    const result = await gaps();
    expect(result.output).not.toContain("secret-file");
    expect(result.output.split("\n").slice(0, 3)).toEqual([
      "source: coverage report · 0 results · tokens: 0 · truncated: false",
      "coverage/lcov.info leads outside the project (a symbolic link); it was not read.",
      "No coverage report found under the project root (looked for coverage/coverage-summary.json, coverage/coverage-final.json, coverage/lcov.info, coverage.out, coverage.xml).",
    ]);
  });

  it("says which report it could not parse and goes on to the next", async () => {
    setUp({ path: "coverage/coverage-final.json", content: "{ not json" }, {});
    setUp({ path: "coverage.out", content: GO_PROFILE }, { "go.mod": "module example.com/shop\n" });
    const result = await gaps();
    expect(result.output).toMatch(/^source: coverage\.out /);
    expect(result.output.split("\n").at(-1)).toMatch(/^coverage\/coverage-final\.json could not be read as istanbul json: /);
  });

  it("with no report, names the command that makes one for each stack it sees", async () => {
    project.write("package.json", JSON.stringify({ devDependencies: { vitest: "^3.2.0" } }));
    project.write("go.mod", "module example.com/shop\n");
    const result = await gaps();
    expect(result.output.split("\n").slice(2)).toEqual([
      "To make one, run:",
      "- npx vitest run --coverage --coverage.reporter=json-summary   (vitest; needs @vitest/coverage-v8)",
      "- go test -coverprofile=coverage.out ./...   (Go)",
    ]);
    project.remove("go.mod");
    project.write("package.json", JSON.stringify({ scripts: { test: "jest --ci" } }));
    project.write("pyproject.toml", "[project]\nname = 'api'\n");
    project.write("Cargo.toml", "[package]\nname = 'ledger'\n");
    expect((await gaps()).output.split("\n").slice(3)).toEqual([
      "- npx jest --coverage   (jest)",
      "- pytest --cov --cov-report=xml   (Python; needs pytest-cov)",
      "- cargo llvm-cov --lcov --output-path coverage/lcov.info   (Rust; needs cargo-llvm-cov)",
    ]);
  });

  it("says so when it recognises no stack either", async () => {
    const result = await gaps();
    expect(result.output.split("\n").at(-1)).toBe(
      "No package.json, Python project file, go.mod or Cargo.toml was found, so no command to make one can be suggested.",
    );
  });
});
