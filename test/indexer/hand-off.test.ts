import { afterEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { drain } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject | undefined;
let services: ProjectServices | undefined;
afterEach(async () => {
  await services?.close();
  project?.cleanup();
});

function open(files: Record<string, string>): ProjectServices {
  project = createTempProject(files);
  services = openProject({ root: project.root, env: project.env });
  return services;
}

describe("a run that hands large work off", () => {
  it("changes nothing and says it handed off when there are more files to index than allowed", async () => {
    const opened = open({ "a.ts": "export const a = 1;\n", "b.ts": "export const b = 2;\n", "c.ts": "export const c = 3;\n" });
    const { events, result } = await drain(opened.indexer.run(undefined, { handOffAbove: 2 }));
    expect(result).toMatchObject({ handedOff: true, before: "missing", added: 3, indexed: 0, interrupted: false });
    expect(events.map((event) => event.phase)).toEqual(["scanning"]);
    expect(opened.files.isEmpty()).toBe(true);
    // Nothing was remembered of the walk either: the next run (the other process) sees the same work.
    const again = await drain(opened.indexer.run(undefined, { handOffAbove: 2 }));
    expect(again.result).toMatchObject({ handedOff: true, added: 3 });
  });

  it("runs as usual when the work is within the limit", async () => {
    const opened = open({ "a.ts": "export const a = 1;\n", "b.ts": "export const b = 2;\n" });
    const { result } = await drain(opened.indexer.run(undefined, { handOffAbove: 2 }));
    expect(result.handedOff).toBeUndefined();
    expect(result.indexed).toBe(2);
    expect(opened.files.has("b.ts")).toBe(true);
  });
});
