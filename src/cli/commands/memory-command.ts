import { existsSync } from "node:fs";
import type { Command } from "commander";
import { BadInputError, errorMessage } from "../../errors.js";
import { resolveProjectPaths } from "../../project/project-paths.js";
import type { MemoryReport, MemoryRequest } from "../../knowledge/session/memory-commands.js";
import type { CliContext } from "../cli-context.js";
import { printOpeningWarnings } from "../opening-warnings.js";
import { resolveRoot } from "../shared-options.js";
import { terminalText } from "../terminal-text.js";
import { terminalJson } from "../../format/terminal-json.js";

/** `sylk memory [list|search|add|rm|answer] [--json]`: the project's knowledge and the questions waiting for you. */
export function registerMemoryCommand(program: Command, context: CliContext): void {
  program
    .command("memory")
    .description("what Sylk keeps across sessions: list [layer|inquiries], search <words>, add <text>, rm <id>, answer <id> <text>")
    .argument("[words...]", "the action and its arguments (default: list)")
    .option("--json", "print one JSON object")
    .option("--user", "with add: keep it for every project (in $SYLK_HOME), not this one")
    .action(async (words: string[], options: { json?: boolean; user?: boolean }) => {
      const paths = resolveProjectPaths(resolveRoot(context), context.env);
      const [{ parseMemoryRequest, runMemoryRequest }, { openProject }, { UserKnowledge }] = await Promise.all([
        import("../../knowledge/session/memory-commands.js"),
        import("../../app/project-services.js"),
        import("../../knowledge/session/user-knowledge.js"),
      ]);
      let request: MemoryRequest;
      try {
        request = parseMemoryRequest(options.user ? [...words, "--user"] : words);
      } catch (error) {
        throw new BadInputError(errorMessage(error));
      }
      if (!existsSync(paths.database) && request.action !== "add") {
        // No project store yet (none is made just to read): the user's own knowledge, for every project, is all there is.
        const userPath = new UserKnowledge(paths.sylkHome).path;
        if (!existsSync(userPath) || (request.action !== "list" && request.action !== "search")) {
          context.stdout.write(
            options.json
              ? `${terminalJson({ items: [], inquiries: [] })}\n`
              : "Nothing is kept yet: this project has no index or sessions.\n",
          );
          return;
        }
      }
      const services = openProject({ root: paths.root, env: context.env });
      printOpeningWarnings(services, context.stderr);
      try {
        let report: MemoryReport;
        try {
          report = runMemoryRequest(services, request);
        } catch (error) {
          throw new BadInputError(errorMessage(error));
        }
        // Items are what the model and the user saved, and questions the agents asked: shown escaped.
        context.stdout.write(options.json ? `${terminalJson(report.json)}\n` : `${terminalText(report.lines.join("\n"))}\n`);
      } finally {
        await services.close();
      }
    });
}
