import { resolve } from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import type { CliContext } from "./cli-context.js";

/** `-C, --cwd <dir>`: run as if started in that directory (like `git -C`). */
export function addGlobalOptions(program: Command): Command {
  return program.option("-C, --cwd <dir>", "run as if sylk was started in <dir>");
}

export function resolveRoot(context: CliContext, path = "."): string {
  return resolve(context.cwd, path);
}

export function parsePositiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError("must be a positive integer");
  return parsed;
}
