import { resolve } from "node:path";
import type { Command } from "commander";
import type { CliContext } from "./cli-context.js";

/** `-C, --cwd <dir>`: run as if started in that directory (like `git -C`). */
export function addGlobalOptions(program: Command): Command {
  return program.option("-C, --cwd <dir>", "run as if sylk was started in <dir>");
}

export function resolveRoot(context: CliContext, path = "."): string {
  return resolve(context.cwd, path);
}
