import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WalkedTrees } from "../../../src/agent/tools/grep-walk.js";
import { defaultConfig } from "../../../src/config/schema.js";
import { scanProject } from "../../../src/indexer/scanner.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

let project: TempProject;
beforeEach(() => {
  project = createTempProject({
    ".gitignore": "out/\n",
    "src/a.ts": "a\n",
    "src/deep/b.ts": "b\n",
    "out/c.js": "c\n",
    ".env": "KEY=1\n",
  });
});
afterEach(() => project.cleanup());

const config = defaultConfig().index;
const scanned = async () => (await scanProject(project.root, config)).files.map((file) => file.path).sort();

describe("the files of a tree walked before", () => {
  it("are those a full walk finds, after files are added, removed and ignored between walks", async () => {
    const walked = new WalkedTrees();
    expect((await walked.list(project.root, config)).sort()).toEqual(await scanned());
    project.write("src/deep/new.ts", "n\n");
    project.remove("src/a.ts");
    expect((await walked.list(project.root, config)).sort()).toEqual(await scanned());
    project.write(".gitignore", "out/\nsrc/deep/\n");
    expect((await walked.list(project.root, config)).sort()).toEqual(await scanned());
    expect(await walked.list(project.root, config)).not.toContain("src/deep/b.ts");
    project.write(".gitignore", "out/\n");
    expect((await walked.list(project.root, config)).sort()).toEqual(await scanned());
    expect(await walked.list(project.root, config)).toContain("src/deep/new.ts");
  });
});
