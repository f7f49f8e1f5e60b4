import type { CodeSearcher } from "../../agent/tools/search-codebase.js";
import type { ToolRegistry } from "../../agent/tools/tool-registry.js";
import { type BackgroundIndexing, backgroundIndexingOf, type IndexNotice } from "../../app/background-indexing.js";
import { indexProcessHandOff } from "../../app/index-process.js";
import { openProject, type ProjectServices } from "../../app/project-services.js";
import { RemoteCodeSearcher } from "../../app/warm-index/remote-code-searcher.js";
import { WarmIndexClient } from "../../app/warm-index/warm-index-client.js";
import { FatalError } from "../../errors.js";
import { resolveIndexConsent } from "../../project/consent.js";
import { servedTools } from "./served-tools.js";

export interface ServedProjectOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  /** Consent to indexing a project that never had it (`--yes`); there is no one to ask. */
  yes: boolean;
  /** What the index has to say (a file that failed, a watch refused), for the log. */
  onNotice(notice: IndexNotice): void;
}

/** A project opened to be served over MCP: its read-only tools, its index kept fresh, and one way to close it all. */
export interface ServedProject {
  services: ProjectServices;
  registry: ToolRegistry;
  /** Where code searches go: `warm` while an interactive session's index answers them. */
  codeSearch(): "warm" | "local";
  /** Stops the watcher and indexing, saves the full-text index, closes the database. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Opens the project as `sylk ask` does (consent without asking, the
 * project's services) and keeps its index fresh while serving: an
 * interactive `sylk` of the project already does (its watcher, its warm
 * index over the local socket), so code searches go to it while it
 * answers, as `sylk search` does; otherwise, and from the moment that
 * session stops answering, this process indexes what changed and watches
 * the project itself, with the same background indexer and watcher.
 */
export async function openServedProject(options: ServedProjectOptions): Promise<ServedProject> {
  // Interactive: index commits yield every few milliseconds, so requests are answered while a first index runs.
  const services = openProject({ root: options.root, env: options.env, interactive: true });
  let indexing: BackgroundIndexing | undefined;
  let warm: WarmIndexClient | undefined;
  let served: ReturnType<typeof servedTools> | undefined;
  let closing: Promise<void> | undefined;
  const startIndexing = () => {
    if (indexing || closing) return;
    // A first index of a large project runs in a process of its own: a server left running beside an editor keeps none of it.
    indexing = backgroundIndexingOf(services, indexProcessHandOff(services, options.env));
    indexing.onNotice(options.onNotice);
    indexing.start();
  };
  const close = () => {
    closing ??= (async () => {
      try {
        warm?.close();
        served?.close();
        if (indexing) {
          await indexing.close();
          // Folds what was indexed here into the snapshot, so the next start does not re-tokenise it.
          await services.codeFullText.checkpoint();
        }
      } finally {
        await services.close();
      }
    })();
    return closing;
  };
  try {
    if (!(await resolveIndexConsent(services.consent, { yes: options.yes }))) {
      throw new FatalError(`Indexing ${services.paths.root} was refused; \`sylk index\` in the project allows it.`);
    }
    warm = await WarmIndexClient.forProject(services.paths);
    let codeSearcher: CodeSearcher = services.codeSearcher;
    if (warm) {
      codeSearcher = new RemoteCodeSearcher(warm, () => {
        // The interactive session went away: from now on this process keeps the index fresh.
        startIndexing();
        return services.codeSearcher;
      });
    } else {
      startIndexing();
    }
    served = servedTools({ services, codeSearcher, env: options.env });
    return {
      services,
      registry: served.registry,
      codeSearch: () => (indexing ? "local" : "warm"),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
