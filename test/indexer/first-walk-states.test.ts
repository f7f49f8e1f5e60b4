import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { STATE_COLUMNS } from "../../src/store/directory-state-repository.js";
import { drain } from "../helpers/drain.js";
import { withProjectDatabase } from "../helpers/project-database.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let services: ProjectServices;

beforeEach(() => {
  project = createTempProject({
    "src/a.ts": "export const a = 1;\n",
    "src/deep/b.ts": "export const b = 2;\n",
    "src/deep/c.ts": "export const c = 3;\n",
    "docs/guide.md": "# Guide\n",
    "README.md": "# Readme\n",
  });
  services = openProject({ root: project.root, env: project.env });
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

/** A table's rows, every column, ordered by path. */
function rowsOf(table: "directory_states" | "first_walk_states"): unknown[] {
  return withProjectDatabase(services.paths, (db) => db.prepare(`SELECT ${STATE_COLUMNS} FROM ${table} ORDER BY path`).raw().all());
}

describe("a first index's directory states", () => {
  it("are the rows its walk stored for grep, but those of a failed file's directory, moved to directory_states at its end", async () => {
    let walked: unknown[] = [];
    const { result } = await drain(services.indexer.run(), (progress) => {
      if (progress.phase !== "indexing" || progress.indexed > 0) return;
      walked = rowsOf("first_walk_states");
      // Gone between the walk and its read: the file fails, and its directory is not remembered, so it is tried again.
      rmSync(join(project.root, "src/deep/b.ts"));
    });

    expect(result.failures.map((failure) => failure.path)).toEqual(["src/deep/b.ts"]);
    expect(walked.map((row) => (row as unknown[])[0])).toEqual(["", "docs", "src", "src/deep"]);
    expect(rowsOf("directory_states")).toEqual(walked.filter((row) => (row as unknown[])[0] !== "src/deep"));
    expect(rowsOf("first_walk_states")).toEqual([]);
  });
});
