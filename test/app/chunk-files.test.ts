import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChunkFiles } from "../../src/app/chunk-files.js";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { drainIndex } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let services: ProjectServices;

beforeEach(async () => {
  project = createTempProject({
    "src/a.ts": "export const alpha = 1;\n",
    "src/b.ts": "export function beta() {\n  return 2;\n}\n",
  });
  services = openProject({ root: project.root, env: project.env, racyWindowMs: 0 });
  await drainIndex(services);
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

/** chunk id → file id as the store has it now. */
function storedChunks(): Map<number, number> {
  return new Map([...services.files.chunkFiles()].map(([chunk, file]) => [chunk, file]));
}

describe("ChunkFiles", () => {
  it("names the file of each chunk, also of chunks stored after its first lookup, and no file for a chunk no longer stored", async () => {
    let wholeReads = 0;
    const chunkFiles = new ChunkFiles({
      allChunkFileIds: () => {
        wholeReads++;
        return services.files.allChunkFileIds();
      },
      fileIdsOf: (chunks) => services.files.fileIdsOf(chunks),
    });
    const before = storedChunks();
    expect(before.size).toBeGreaterThan(1);
    for (const [chunk, file] of before) expect(chunkFiles.filesOf([chunk])).toEqual(new Set([file]));
    expect(chunkFiles.filesOf([...before.keys()])).toEqual(new Set(before.values()));

    // A changed file gets new chunks, with ids above every chunk known so far.
    project.write("src/a.ts", "export const alpha = 1;\nexport const gamma = 3;\n");
    project.write("src/c.ts", "export const delta = 4;\n");
    await drainIndex(services);
    const after = storedChunks();
    const added = [...after.keys()].filter((chunk) => !before.has(chunk));
    expect(added.length).toBeGreaterThan(0);
    expect(chunkFiles.filesOf(added)).toEqual(new Set(added.map((chunk) => after.get(chunk))));
    expect(wholeReads).toBe(1);

    const missing = Math.max(...after.keys()) + 1_000;
    expect(chunkFiles.filesOf([missing])).toEqual(new Set());
  });
});
