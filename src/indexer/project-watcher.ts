import { existsSync, lstatSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import * as z from "zod";
import type { IndexConfig } from "../config/schema.js";
import { readRegularFile } from "../files/regular-file.js";
import { ChangeBatcher } from "./change-batcher.js";
import { DirectoryTreeWatcher } from "./directory-tree-watcher.js";
import { classifyPaths } from "./path-classification.js";
import { VERSION_CONTROL_DIRECTORIES } from "./path-filter.js";
import { GIT_INFO_EXCLUDE, isIgnoreRuleFile, ruleDirectoryOf } from "./ignore-rule-files.js";
import { IgnoreMemo, IgnoreRules } from "./ignore-rules.js";

export interface ProjectWatcherOptions {
  root: string;
  config: IndexConfig;
  /** A debounced batch of added, changed and deleted files, relative to the root and '/'-separated. */
  onChange: (paths: string[]) => void;
  onError?: (error: Error) => void;
  /** Quiet time before a batch is reported. */
  debounceMs?: number;
  /** A batch is reported after this long even if changes keep coming (a long build, a checkout). */
  maxWaitMs?: number;
}

const THREAD_TAG = "sylk-project-watcher";

/** What the watcher thread says; checked, as everything crossing a thread boundary. */
const threadMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready") }),
  z.object({ type: z.literal("changes"), paths: z.array(z.string()) }),
  z.object({ type: z.literal("directories"), paths: z.array(z.string()) }),
  z.object({ type: z.literal("error"), message: z.string() }),
  z.object({ type: z.literal("flushed") }),
]);
const ownerMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("close") }),
  z.object({ type: z.literal("directories") }),
  z.object({ type: z.literal("flush") }),
]);

/**
 * Watches the project while a session runs and reports what changed, in
 * batches, so the index can refresh just those files. It reports what the
 * indexer would look at: every event is judged by the scanner's own rules
 * (`classifyPaths`), and directories the indexer never enters are not
 * watched at all.
 *
 * The watching runs on its own thread (`DirectoryTreeWatcher`: one watch
 * per directory): starting it lists every directory of the project, and a
 * checkout's burst of events is judged there, not between the keystrokes
 * the TUI is drawing.
 */
export class ProjectWatcher {
  private worker: Worker | undefined;
  private directoryRequests: Array<(paths: string[]) => void> = [];
  private flushRequests: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];

  constructor(private readonly options: ProjectWatcherOptions) {}

  /** Starts watching; resolves once the initial scan is done and changes are being reported. */
  start(): Promise<void> {
    const { root, config, debounceMs, maxWaitMs } = this.options;
    const data: ThreadData = { tag: THREAD_TAG, root, config, debounceMs: debounceMs ?? 300, maxWaitMs: maxWaitMs ?? 2_000 };
    const worker = new Worker(watcherThreadPath(), { workerData: data });
    this.worker = worker;
    return new Promise((resolve, reject) => {
      worker.on("message", (raw: unknown) => {
        const message = threadMessage.safeParse(raw);
        if (!message.success)
          return this.options.onError?.(new Error(`Unexpected message from the watcher thread: ${message.error.message}`));
        switch (message.data.type) {
          case "ready":
            return resolve();
          case "changes":
            return this.options.onChange(message.data.paths);
          case "directories":
            return this.directoryRequests.shift()?.(message.data.paths);
          case "flushed":
            return this.flushRequests.shift()?.resolve();
          case "error":
            return this.options.onError?.(new Error(message.data.message));
        }
      });
      worker.once("error", (error) => {
        reject(error);
        this.options.onError?.(error);
      });
      worker.once("exit", () => this.failFlushes(new Error("The watcher thread has stopped.")));
    });
  }

  /**
   * Resolves once every change the watch received before the call has been
   * passed to `onChange`, without waiting for the batch's quiet time: a
   * search asks so that a file written a moment before it is known changed.
   */
  flush(): Promise<void> {
    const worker = this.worker;
    if (!worker) return Promise.reject(new Error("The watcher is not running."));
    return new Promise((resolve, reject) => {
      this.flushRequests.push({ resolve, reject });
      worker.postMessage({ type: "flush" });
    });
  }

  private failFlushes(error: Error): void {
    const requests = this.flushRequests;
    this.flushRequests = [];
    for (const request of requests) request.reject(error);
  }

  /** Directories being watched, relative ('' is the root): what the pruning left. */
  watchedDirectories(): Promise<string[]> {
    const worker = this.worker;
    if (!worker) return Promise.resolve([]);
    return new Promise((resolve) => {
      this.directoryRequests.push(resolve);
      worker.postMessage({ type: "directories" });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failFlushes(new Error("The watcher was closed."));
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage({ type: "close" });
    const stopped = await Promise.race([exited.then(() => true), delay(2_000).then(() => false)]);
    if (!stopped) await worker.terminate();
  }
}

/** This module compiled: itself when it runs compiled, its `dist/` copy when it runs from source (tests). */
function watcherThreadPath(): string {
  const self = fileURLToPath(import.meta.url);
  if (self.endsWith(".js")) return self;
  const compiled = fileURLToPath(new URL("../../dist/src/indexer/project-watcher.js", import.meta.url));
  if (!existsSync(compiled)) throw new Error(`Watcher thread entry not found at ${compiled}; run \`npm run build\` first.`);
  return compiled;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

interface ThreadData {
  tag: typeof THREAD_TAG;
  root: string;
  config: IndexConfig;
  debounceMs: number;
  maxWaitMs: number;
}

/** The thread's side: the directory watches, their pruning, the debounce and the classification. */
class WatcherThread {
  private tree: DirectoryTreeWatcher | undefined;
  /** `.git/info`, for the repository's own excludes: the tree's watch leaves `.git` out. */
  private gitInfo: FSWatcher | undefined;
  private readonly batcher: ChangeBatcher;
  private readonly directories: DirectoryRules;

  constructor(
    private readonly data: ThreadData,
    private readonly post: (message: z.infer<typeof threadMessage>) => void,
  ) {
    this.directories = new DirectoryRules(data.root, data.config);
    this.batcher = new ChangeBatcher({ debounceMs: data.debounceMs, maxWaitMs: data.maxWaitMs, onBatch: (paths) => this.report(paths) });
  }

  start(): void {
    this.tree = new DirectoryTreeWatcher({
      root: this.data.root,
      ignoresDirectory: (path) => this.directories.ignores(path),
      onPath: (path) => this.record(path),
      onError: (error) => this.post({ type: "error", message: error.message }),
    });
    this.tree.start();
    if (this.data.config.respectGitignore) this.watchGitInfo();
    this.post({ type: "ready" });
  }

  /**
   * Watches `.git/info` for its `exclude` file, which applies like the
   * root's `.gitignore`. In a worktree or submodule `.git` is a file and
   * there is nothing to watch; a failed watch leaves that file unwatched
   * and says so, as a failed directory watch does.
   */
  private watchGitInfo(): void {
    const directory = join(this.data.root, ".git", "info");
    try {
      if (!lstatSync(directory, { throwIfNoEntry: false })?.isDirectory()) return;
      this.gitInfo = watch(directory, (_event, name) => {
        if (name === null || name === "exclude") this.record(GIT_INFO_EXCLUDE);
      });
      this.gitInfo.on("error", (error) => this.post({ type: "error", message: error.message }));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOTDIR") return;
      this.post({ type: "error", message: `${GIT_INFO_EXCLUDE} cannot be watched: ${(error as Error).message}` });
    }
  }

  directoryList(): string[] {
    return this.tree?.directories() ?? [];
  }

  /**
   * Reports what is pending, then says so. Deferred to the loop's check
   * phase: an inotify event queued before the owner asked is read in the
   * same poll as the request at the latest, and its path recorded by then.
   */
  flush(): void {
    setImmediate(() => {
      this.batcher.flush();
      this.post({ type: "flushed" });
    });
  }

  close(): void {
    this.batcher.cancel();
    this.tree?.close();
    this.gitInfo?.close();
  }

  private record(path: string): void {
    if (isIgnoreRuleFile(path)) {
      this.directories.forget(ruleDirectoryOf(path));
      this.tree?.rescan(ruleDirectoryOf(path));
    }
    this.batcher.add(path);
  }

  /** A batch of changed paths, judged by the indexer's rules: what the index must look at. */
  private report(paths: string[]): void {
    const root = this.data.root;
    const classified = classifyPaths(root, this.data.config, paths);
    // "Gone" covers both deleted and ignored files: a deleted one must reach the index, an ignored one that still exists never did.
    const deleted = classified.gone.filter((path) => !existsSync(join(root, path)));
    // The repository's excludes are never indexed, but the index must hear that its rules changed.
    const rules = paths.filter((path) => path === GIT_INFO_EXCLUDE);
    const batch = [...classified.files.map((file) => file.path), ...classified.skipped.map((file) => file.path), ...deleted, ...rules];
    if (batch.length > 0) this.post({ type: "changes", paths: batch.sort() });
  }
}

const IGNORE_FILES = [".gitignore", ".sylkignore"];

/**
 * Which directories the indexer never enters: the configured excluded
 * directories and what `.gitignore`/`.sylkignore` files (the project's and
 * each ancestor directory's, deepest deciding) ignore. The scanner's
 * semantics; an ignore file that changes is read again.
 */
class DirectoryRules {
  private readonly excludedNames: Set<string>;
  private readonly excludedPaths: Set<string>;
  private readonly matchers = new Map<string, IgnoreRules | undefined>();
  /** What the ignore files remember of the directories they judged, bounded together for the session's length. */
  private readonly memo = new IgnoreMemo();

  constructor(
    private readonly root: string,
    private readonly config: IndexConfig,
  ) {
    const paths = config.excludePaths.map((path) => path.replace(/^\/+|\/+$/g, ""));
    this.excludedNames = new Set(paths.filter((path) => !path.includes("/")));
    this.excludedPaths = new Set(paths.filter((path) => path.includes("/")));
  }

  ignores(path: string): boolean {
    if (!path) return false;
    const segments = path.split("/");
    const name = segments[segments.length - 1] as string;
    if (VERSION_CONTROL_DIRECTORIES.has(name) || this.excludedNames.has(name) || this.excludedPaths.has(path)) return true;
    // Deepest ignore file first: it can re-include what a shallower one ignored.
    for (let depth = segments.length - 1; depth >= 0; depth--) {
      const verdict = this.matcher(segments.slice(0, depth).join("/"))?.test(`${segments.slice(depth).join("/")}/`);
      if (verdict?.ignored) return true;
      if (verdict?.unignored) return false;
    }
    return false;
  }

  /** An ignore file of this directory changed: read its rules again. */
  forget(directory: string): void {
    this.matchers.delete(directory);
  }

  private matcher(directory: string): IgnoreRules | undefined {
    if (this.matchers.has(directory)) return this.matchers.get(directory);
    const names = this.config.respectGitignore ? IGNORE_FILES : [".sylkignore"];
    const sources = names.map((name) => readOptional(join(this.root, directory, name)));
    if (directory === "" && this.config.respectGitignore) sources.push(readOptional(join(this.root, ".git", "info", "exclude")));
    const content = sources.filter((source): source is string => source !== undefined).join("\n");
    const matcher = content.trim() ? new IgnoreRules(content, this.memo) : undefined;
    this.matchers.set(directory, matcher);
    return matcher;
  }
}

function readOptional(path: string): string | undefined {
  try {
    return readRegularFile(path).toString("utf8"); // a FIFO planted as .gitignore must not hold the walk
  } catch {
    return undefined;
  }
}

// Loaded as the watcher thread: run the thread's side until the owner says close.
if (!isMainThread && parentPort && (workerData as Partial<ThreadData> | null)?.tag === THREAD_TAG) {
  const port = parentPort;
  const thread = new WatcherThread(workerData as ThreadData, (message) => port.postMessage(message));
  port.on("message", (raw: unknown) => {
    const message = ownerMessage.safeParse(raw);
    if (!message.success) return;
    if (message.data.type === "directories") port.postMessage({ type: "directories", paths: thread.directoryList() });
    else if (message.data.type === "flush") thread.flush();
    else {
      thread.close();
      port.close();
    }
  });
  thread.start();
}
