import { existsSync } from "node:fs";
import type { Command } from "commander";
import { BadInputError } from "../../errors.js";
import { resolveProjectPaths } from "../../project/project-paths.js";
import type { CliContext } from "../cli-context.js";
import { resolveRoot } from "../shared-options.js";

/** `sylk memory [list|search|add|rm|answer] [--json]`: the project's knowledge and the questions waiting for you (issue 15). */
export function registerMemoryCommand(program: Command, context: CliContext): void {
  program
    .command("memory")
    .description("what Sylk keeps across sessions: list [layer|inquiries], search <words>, add <text>, rm <id>, answer <id> <text>")
    .argument("[words...]", "the action and its arguments (default: list)")
    .option("--json", "print one JSON object")
    .action(async (words: string[], options: { json?: boolean }) => {
      const paths = resolveProjectPaths(resolveRoot(context), context.env);
      const [{ parseMemoryRequest, runMemoryRequest }, { openProject }] = await Promise.all([
        import("../../app/knowledge/memory-commands.js"),
        import("../../app/project-services.js"),
      ]);
      let request;
      try {
        request = parseMemoryRequest(words);
      } catch (error) {
        throw new BadInputError((error as Error).message);
      }
      if (!existsSync(paths.database) && request.action !== "add") {
        context.stdout.write(options.json ? `${JSON.stringify({ items: [], inquiries: [] })}\n` : "Nothing is kept yet: this project has no index or sessions.\n");
        return;
      }
      const services = openProject({ root: paths.root, env: context.env });
      try {
        let report;
        try {
          report = runMemoryRequest(services, request);
        } catch (error) {
          throw new BadInputError((error as Error).message);
        }
        context.stdout.write(options.json ? `${JSON.stringify(report.json)}\n` : `${report.lines.join("\n")}\n`);
      } finally {
        await services.close();
      }
    });
}
