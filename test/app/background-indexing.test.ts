import { afterEach, describe, expect, it } from "vitest";
import { BackgroundIndexing, type BackgroundIndexingDeps, type IndexView } from "../../src/app/background-indexing.js";
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
  /**
   * Background indexing of `root` with the real indexer and, unless
   * `createWatcher` replaces it, the real watcher; `onWatcherStart` runs just
   * before the watch starts.
   */
  function backgroundIndexingOf(
    opened: ProjectServices,
    hooks: { onWatcherStart?: () => void; onWatchHolds?: () => void; onScan?: () => void },
    createWatcher?: BackgroundIndexingDeps["createWatcher"],
  ) {
    return new BackgroundIndexing({
      root: opened.paths.root,
      config: opened.loadedConfig.config.index,
      indexer: {
        run: (signal) => {
          hooks.onScan?.();
          return opened.indexer.run(signal);
        },
        refreshPaths: (paths, signal) => opened.indexer.refreshPaths(paths, signal),
      },
      lock: opened.indexLock,
      backfill: opened.backfill,
      createWatcher:
        createWatcher ??
        ((onChange, onError) => {
          const watcher = new ProjectWatcher({ root: opened.paths.root, config: opened.loadedConfig.config.index, onChange, onError });
          return {
            start: async () => {
              hooks.onWatcherStart?.();
              await watcher.start();
              hooks.onWatchHolds?.();
            },
            close: () => watcher.close(),
          };
        }),
    });
  }

  function stateOf(view: IndexView | undefined): string {
    return view?.state === "indexing" ? `indexing: ${view.progress.phase}` : String(view?.state);
  }

  async function untilFresh(background: BackgroundIndexing): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (background.snapshot().state !== "fresh" && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(background.snapshot().state).toBe("fresh");
  }

  it("watches the project before it scans it, and so scans it once: no second pass just as the user starts typing", async () => {
    project = createTempProject({ "src/invoice.ts": "export function computeInvoiceTotal(): number {\n  return 1;\n}\n" });
    services = openProject({ root: project.root, env: project.env, interactive: true });
    const events: string[] = [];
    indexing = backgroundIndexingOf(services, {
      // While the watch starts the screen already says the project is being looked at.
      onWatcherStart: () => events.push(`watch starts (${stateOf(indexing?.snapshot())})`),
      onWatchHolds: () => events.push("watch holds"),
      onScan: () => events.push("scan"),
    });
    indexing.start();
    await untilFresh(indexing);
    await indexing.whenWatching();
    await indexing.close();
    expect(events).toEqual(["watch starts (indexing: scanning)", "watch holds", "scan"]);
    expect(services.files.has("src/invoice.ts")).toBe(true);
  }, 40_000);

  it("indexes a file written just before the watch starts (the scan after it sees it) and one written once it holds (the watch reports it)", async () => {
    project = createTempProject({ "src/invoice.ts": "export function computeInvoiceTotal(): number {\n  return 1;\n}\n" });
    const opened = openProject({ root: project.root, env: project.env, interactive: true });
    services = opened;
    const written = project;
    indexing = backgroundIndexingOf(opened, {
      onWatcherStart: () => written.write("src/refund.ts", "export function issueRefundVoucher(): string {\n  return 'v';\n}\n"),
      onWatchHolds: () => written.write("src/credit.ts", "export function applyStoreCredit(): number {\n  return 2;\n}\n"),
    });
    indexing.start();
    const deadline = Date.now() + 20_000;
    const both = () => opened.files.has("src/refund.ts") && opened.files.has("src/credit.ts");
    while (!both() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(opened.files.has("src/refund.ts")).toBe(true);
    expect(opened.files.has("src/credit.ts")).toBe(true);
  }, 40_000);

  it("closes while the watch is still starting, though a watcher closed before it holds never says it does", async () => {
    project = createTempProject({ "src/invoice.ts": "export const invoice = 1;\n" });
    const opened = openProject({ root: project.root, env: project.env, interactive: true });
    services = opened;
    let scans = 0;
    let watcherStarted: () => void = () => undefined;
    const starting = new Promise<void>((resolve) => {
      watcherStarted = resolve;
    });
    indexing = backgroundIndexingOf(opened, { onScan: () => scans++ }, () => ({
      start: () => {
        watcherStarted();
        return new Promise<void>(() => undefined);
      },
      close: async () => undefined,
    }));
    indexing.start();
    await starting;
    await indexing.close();
    expect(scans).toBe(0);
  }, 40_000);
});
