import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { CONFIG_FILE_NAME } from "../../config/defaults.js";
import type { CliContext } from "../cli-context.js";
import { resolveRoot } from "../shared-options.js";

/**
 * `sylk config`: the configuration report `/config` shows (each setting with
 * where it came from, the files read, where Sylk keeps its data, how to
 * change them), for the project here; `--example` prints the bundled
 * example, to start a file from.
 */
export function registerConfigCommand(program: Command, context: CliContext): void {
  program
    .command("config")
    .description(
      `the settings in effect here and where each came from, the files read, and with --example the bundled ${CONFIG_FILE_NAME}.example (every key with its default)`,
    )
    .option("--example", `print the bundled ${CONFIG_FILE_NAME}.example (e.g. sylk config --example > ~/${CONFIG_FILE_NAME})`)
    .action(async (options: { example?: boolean }) => {
      const { exampleConfigPath, projectConfigReport } = await import("../../app/config-report.js");
      if (options.example) {
        context.stdout.write(readFileSync(exampleConfigPath(), "utf8"));
        return;
      }
      const { loadProjectConfig } = await import("../../app/project-config.js");
      const root = resolveRoot(context);
      const loaded = loadProjectConfig({ root, env: context.env });
      context.stdout.write(`${projectConfigReport(loaded, root, context.env).join("\n")}\n`);
    });
}
