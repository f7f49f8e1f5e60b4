import { afterEach, describe, expect, it } from "vitest";
import { BackgroundIndexing } from "../../src/app/background-indexing.js";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { ProjectWatcher } from "../../src/indexer/project-watcher.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject | undefined;
let services: ProjectServices | undefined;
let indexing: BackgroundIndexing | undefined;

afterEach(async () => {
  await indexing?.close();
  await services?.close();
  project?.cleanup();
});

describe("BackgroundIndexing", () => {
  it("indexes a file written after the start-up scan and before the watch held: one more pass once it holds", async () => {
    project = createTempProject({ "src/invoice.ts": "export function computeInvoiceTotal(): number {\n  return 1;\n}\n" });
    const opened = openProject({ root: project.root, env: project.env, interactive: true });
    services = opened;
    const written = project;
    indexing = new BackgroundIndexing({
      root: opened.paths.root,
      config: opened.loadedConfig.config.index,
      indexer: opened.indexer,
      lock: opened.indexLock,
      backfill: opened.backfill,
      // The real watcher, started just after a file is written: the scan has read the directory, the watch does not hold yet.
      createWatcher: (onChange, onError) => {
        const watcher = new ProjectWatcher({ root: opened.paths.root, config: opened.loadedConfig.config.index, onChange, onError });
        return {
          start: () => {
            written.write("src/refund.ts", "export function issueRefundVoucher(): string {\n  return 'v';\n}\n");
            return watcher.start();
          },
          close: () => watcher.close(),
        };
      },
    });
    indexing.start();
    const deadline = Date.now() + 20_000;
    while (!opened.files.has("src/refund.ts") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(opened.files.has("src/refund.ts")).toBe(true);
  }, 40_000);
});
