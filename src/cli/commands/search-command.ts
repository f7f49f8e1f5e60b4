import { existsSync } from "node:fs";
import { type Command, InvalidArgumentError, Option } from "commander";
import { searchProject, type ProjectSearchOptions, type SearchResponseJson } from "../../app/project-search.js";
import { BadInputError, FatalError } from "../../errors.js";
import { resolveProjectPaths, type ProjectPaths } from "../../project/project-paths.js";
import type { CliContext } from "../cli-context.js";
import { CODE_SIGNALS, type CodeSignal } from "../../search/hybrid-code-searcher.js";
import { parsePositiveInteger, resolveRoot } from "../shared-options.js";
import { printOpeningWarnings } from "../opening-warnings.js";
import { terminalField, terminalText } from "../terminal-text.js";
import { terminalJson } from "../../format/terminal-json.js";

interface SearchOptions extends ProjectSearchOptions {
  json?: boolean;
}

export function registerSearchCommand(program: Command, context: CliContext): void {
  program
    .command("search")
    .description("search the index; `sylk search --json -` reads one query a line from stdin")
    .argument("<query>", "what to look for, or - to read queries from stdin")
    .option("-k, --k <n>", "number of results", parsePositiveInteger, 10)
    .addOption(new Option("--scope <scope>", "what to search").choices(["code", "history", "all"]).default("code"))
    .option("--json", "print one JSON object per query")
    .option("--signals <list>", "signals to fuse, comma-separated: fulltext,vector (default: both)", parseSignals)
    .action(async (query: string, options: SearchOptions) => {
      const paths = resolveProjectPaths(resolveRoot(context), context.env);
      if (!existsSync(paths.database)) {
        throw new FatalError(`This project has not been indexed yet (${paths.root}). Run \`sylk index\` first.`);
      }
      if (query !== "-" && options.scope === "code") {
        // An interactive sylk of this project answers from its warm index, if one runs and answers.
        const warm = await searchWarmIndex(paths, query, options);
        if (warm) return print(warm, options, context);
        // One code search: open only what it needs (see `openOneShotSearch`). Loaded here, not with the CLI:
        // the store and the search code are the largest part of what every other command's start would load.
        const { openOneShotSearch } = await import("../../app/one-shot-search.js");
        const oneShot = await openOneShotSearch({ root: paths.root, env: context.env });
        printOpeningWarnings(oneShot, context.stderr);
        try {
          print(await searchProject(oneShot, query, options), options, context);
        } finally {
          oneShot.close();
        }
        return;
      }
      // Loaded here only: the indexer, history and the rest are most of the CLI's code (see `openOneShotSearch`).
      const { openProject } = await import("../../app/project-services.js");
      const services = openProject({ root: paths.root, env: context.env });
      printOpeningWarnings(services, context.stderr);
      // Where code and history meet (--scope all), by rank with the configured constant.
      const searchOptions = { ...options, rrfK: services.loadedConfig.config.search.rrfK };
      try {
        if (query === "-") {
          if (!options.json) throw new BadInputError("Reading queries from stdin (-) needs --json.");
          // Many queries: load the in-memory hot tiers once, up front.
          if (options.scope !== "history") services.codeSearcher.warm();
          const { createInterface } = await import("node:readline");
          const lines = createInterface({ input: context.stdin, crlfDelay: Infinity });
          for await (const line of lines) {
            if (line.trim() === "") continue;
            context.stdout.write(`${terminalJson(await searchProject(services, line, searchOptions))}\n`);
          }
          return;
        }
        print(await searchProject(services, query, searchOptions), options, context);
      } finally {
        await services.close();
      }
    });
}

/** The search answered by an interactive session's warm index, or undefined when none serves the project (or it fails). */
async function searchWarmIndex(paths: ProjectPaths, query: string, options: SearchOptions): Promise<SearchResponseJson | undefined> {
  const { WarmIndexClient } = await import("../../app/warm-index/warm-index-client.js");
  const client = await WarmIndexClient.forProject(paths);
  if (!client) return undefined;
  try {
    return await searchProject({ codeSearcher: client }, query, options);
  } catch {
    return undefined;
  } finally {
    client.close();
  }
}

function print(response: SearchResponseJson, options: SearchOptions, context: CliContext): void {
  if (options.json) context.stdout.write(`${terminalJson(response)}\n`);
  else context.stdout.write(terminalText(renderText(response)));
  for (const message of response.degraded ?? []) context.stderr.write(`warning: ${terminalText(message)}\n`);
}

/** The results for a person; paths and snippets are the repository's, so `print` shows them escaped. */
function renderText(response: SearchResponseJson): string {
  if (response.results.length === 0) return `No results for "${terminalField(response.query)}".\n`;
  return response.results
    .map((result, index) => {
      const where = result.entry
        ? `[${result.entry.contentType}] session ${result.entry.sessionId.slice(0, 8)} turn ${result.entry.turn}`
        : `${terminalField(result.path ?? "")}:${result.startLine}-${result.endLine}`;
      const signals = Object.entries(result.signals)
        .map(([name, evidence]) => `${name} #${evidence.rank}`)
        .join(" · ");
      const snippet = result.snippet
        .split("\n")
        .map((line) => `    ${line}`)
        .join("\n");
      return `${index + 1}. ${where}  (${signals})\n${snippet}\n`;
    })
    .join("\n");
}

function parseSignals(value: string): CodeSignal[] {
  const signals = value.split(",").map((signal) => signal.trim());
  const unknown = signals.filter((signal) => !(CODE_SIGNALS as readonly string[]).includes(signal));
  if (unknown.length > 0 || signals.length === 0) {
    throw new InvalidArgumentError(`choose from ${CODE_SIGNALS.join(", ")}`);
  }
  return signals as CodeSignal[];
}
