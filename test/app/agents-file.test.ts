import { afterEach, describe, expect, it } from "vitest";
import { projectFacts, renderAgentsFile } from "../../src/app/agents-file.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** /init's AGENTS.md: languages, commands, layout and entry points from the index and the build files, the same text for the same facts. */

let project: TempProject | undefined;
afterEach(() => project?.cleanup());

describe("the AGENTS.md generator", () => {
  it("writes what the index and the build files say, and nothing else", () => {
    project = createTempProject({
      "package.json": JSON.stringify({ name: "shop", bin: { shop: "./bin/shop.js" }, scripts: { build: "tsc", test: "vitest run" } }),
      Makefile: "release:\n\tnpm publish\n",
    });
    const paths = [
      "README.md",
      "package.json",
      "bin/shop.js",
      "src/index.ts",
      "src/cart/cart.ts",
      "src/cart/price.ts",
      "test/cart.test.ts",
      "docs/guide.md",
    ];
    const facts = projectFacts(project.root, {
      languages: [
        { language: "typescript", files: 4 },
        { language: "javascript", files: 1 },
      ],
      paths,
    });
    expect(facts.entryPoints).toEqual(["bin/shop.js", "src/index.ts"]);
    expect(renderAgentsFile(facts)).toBe(
      [
        "# shop",
        "",
        "Notes for coding agents working in this repository. Written by Sylk's `/init` from its index of the project; edit it to add what only people know (conventions, what not to touch).",
        "",
        "## Languages",
        "",
        "- typescript: 4 files",
        "- javascript: 1 file",
        "",
        "## Build and test",
        "",
        "From package.json (npm):",
        "",
        "- `npm run build`: tsc",
        "- `npm test`: vitest run",
        "",
        "From Makefile:",
        "",
        "- `make release`",
        "",
        "## Layout",
        "",
        "- `src/`: 3 files",
        "- `bin/`: 1 file",
        "- `docs/`: 1 file",
        "- `test/`: 1 file",
        "- 2 files at the top level",
        "",
        "## Entry points",
        "",
        "- `bin/shop.js`",
        "- `src/index.ts`",
        "",
      ].join("\n"),
    );
  });

  it("leaves out what it does not know: no commands, no entry points; the folder names the project", () => {
    project = createTempProject({ "notes/a.md": "# a\n" });
    const text = renderAgentsFile(projectFacts(project.root, { languages: [{ language: "markdown", files: 1 }], paths: ["notes/a.md"] }));
    expect(text.startsWith("# project\n")).toBe(true);
    expect(text).not.toContain("## Build and test");
    expect(text).not.toContain("## Entry points");
    expect(text).toContain("- `notes/`: 1 file");
  });

  it("names a dozen folders, then counts the rest", () => {
    project = createTempProject();
    const paths = Array.from({ length: 15 }, (_, index) => `dir${String(index).padStart(2, "0")}/file.go`);
    const text = renderAgentsFile(projectFacts(project.root, { languages: [], paths }));
    expect(text).toContain("- `dir11/`: 1 file\n- 3 more folders\n");
  });
});
