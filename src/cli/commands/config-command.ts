import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { CONFIG_FILE_NAME } from "../../config/defaults.js";
import { sylkPackageRoot } from "../../package-root.js";
import { sylkHome } from "../../project/project-paths.js";
import type { CliContext } from "../cli-context.js";
import { resolveRoot } from "../shared-options.js";
import { terminalField } from "../terminal-text.js";

/** The example configuration that ships with Sylk: every key with its default and what it does. */
export function exampleConfigPath(): string {
  return join(sylkPackageRoot(), `${CONFIG_FILE_NAME}.example`);
}

/**
 * `sylk config`: where the configuration files are read from (the same
 * paths `loadConfig` reads, lowest precedence first) and where Sylk keeps
 * its data; `--example` prints the bundled example, to start a file from.
 */
export function registerConfigCommand(program: Command, context: CliContext): void {
  program
    .command("config")
    .description(
      `where the configuration files are, and with --example the bundled ${CONFIG_FILE_NAME}.example (every key with its default)`,
    )
    .option("--example", `print the bundled ${CONFIG_FILE_NAME}.example (e.g. sylk config --example > ~/${CONFIG_FILE_NAME})`)
    .action((options: { example?: boolean }) => {
      if (options.example) {
        context.stdout.write(readFileSync(exampleConfigPath(), "utf8"));
        return;
      }
      const user = resolve(context.env.HOME ?? homedir(), CONFIG_FILE_NAME);
      const project = resolve(resolveRoot(context), CONFIG_FILE_NAME);
      const state = (path: string) => (existsSync(path) ? "" : " (none)");
      const lines = [
        `your settings:     ${terminalField(user)}${state(user)}`,
        // The user's own file, read once, is also the project file of a project at the home directory.
        ...(project === user ? [] : [`project settings:  ${terminalField(project)}${state(project)}`]),
        `then SYLK_<SECTION>_<KEY> environment variables, then flags`,
        `Sylk's data:       ${terminalField(sylkHome(context.env))}`,
        `example:           ${terminalField(exampleConfigPath())} (sylk config --example prints it)`,
      ];
      context.stdout.write(`${lines.join("\n")}\n`);
    });
}
