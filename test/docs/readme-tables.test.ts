import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { HELP_KEYS, SLASH_COMMANDS } from "../../src/tui/commands/command-list.js";

/**
 * The README's tables of commands, keys and slash commands are checked
 * against the CLI's command tree, the keys /help lists and the TUI's slash
 * registry, both ways: nothing in a table that does not exist, nothing that
 * exists left out of its table.
 */
const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/** The first cell of each row of the table under `## <heading>`, with the `\|` a cell needs for a pipe unescaped. */
function firstCells(heading: string): string[] {
  const section = README.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  if (!section) throw new Error(`README has no "## ${heading}" section`);
  const rows = section.split("\n").filter((line) => line.startsWith("| ") && !/^\| -/.test(line));
  return rows.slice(1).map((row) => (/^\| ((?:[^|\\]|\\.)*) \|/.exec(row)?.[1] ?? "").replaceAll("\\|", "|"));
}

const codeSpans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);

function program(): Command {
  const sink = () => Object.assign(new PassThrough(), { isTTY: false });
  return buildProgram({ cwd: process.cwd(), env: {}, stdin: sink(), stdout: sink(), stderr: sink(), signal: new AbortController().signal });
}

const flagsOf = (command: Command) =>
  command.options.flatMap((option) => [option.long, option.short].filter((flag): flag is string => flag !== undefined));

/** A command's flags and those of its subcommands (`sylk mcp add --project`), which a row of a command group may give. */
const flagsWithSubcommandsOf = (command: Command): string[] => [...flagsOf(command), ...command.commands.flatMap(flagsWithSubcommandsOf)];

/** Each command a row of the Commands table names (`chat` for `sylk` alone), with the flags the row gives it. */
function documentedCommands(root: Command): Array<{ row: string; command: string; flags: string[] }> {
  const names = new Set(root.commands.map((command) => command.name()));
  return firstCells("Commands").flatMap((cell) => {
    const rows: Array<{ row: string; command: string; flags: string[] }> = [];
    for (const span of codeSpans(cell)) {
      const words = span.split(/\s+/);
      if (words[0] === "sylk") {
        const command = words[1] !== undefined && names.has(words[1]) ? words[1] : "chat";
        rows.push({ row: cell, command, flags: [] });
      }
      const current = rows.at(-1);
      if (!current) throw new Error(`"${cell}": a row starts with a sylk command`);
      current.flags.push(...[...span.matchAll(/(?<![\w-])(--?[A-Za-z][\w-]*)/g)].map((match) => match[1] as string));
    }
    return rows;
  });
}

describe("README tables", () => {
  it("Commands: every command and flag exists, and every command and option is in the table", () => {
    const root = program();
    const byName = new Map(root.commands.map((command) => [command.name(), command]));
    const documented = documentedCommands(root);
    for (const { row, command, flags } of documented) {
      const known = new Set([...flagsOf(root), "--help", "-h", ...flagsWithSubcommandsOf(byName.get(command) as Command)]);
      for (const flag of flags) expect(known.has(flag), `${flag} in "${row}" is not an option of sylk ${command}`).toBe(true);
    }
    const listed = new Set(documented.map((entry) => entry.command));
    for (const command of root.commands) {
      if (command.name() === "help") continue;
      expect(listed.has(command.name()), `sylk ${command.name()} is missing from the README's Commands table`).toBe(true);
      const flags = new Set(documented.filter((entry) => entry.command === command.name()).flatMap((entry) => entry.flags));
      // A hidden option (`sylk index --for-session`, what the interactive session runs) is a protocol between Sylk's own processes, not a flag for users.
      for (const option of command.options.filter((candidate) => !candidate.hidden)) {
        expect(
          flags.has(option.long as string),
          `${option.long} of sylk ${command.name()} is missing from the README's Commands table`,
        ).toBe(true);
      }
    }
    const globalFlags = new Set(documented.flatMap((entry) => entry.flags));
    for (const option of root.options)
      expect(globalFlags.has(option.long as string), `${option.long} is missing from the README's Commands table`).toBe(true);
  });

  it("Slash commands: each row is a registered command's usage, and every registered command has a row", () => {
    const usages = firstCells("Slash commands").map((cell) => codeSpans(cell)[0]);
    expect(usages).toEqual(SLASH_COMMANDS.map((command) => command.usage));
  });

  it("Keys: each row is a key /help lists, and every key /help lists has a row", () => {
    const keys = firstCells("Keys").map((cell) => codeSpans(cell)[0]);
    expect(keys).toEqual(HELP_KEYS.map(([key]) => key));
  });

  it("reads what it checks: the tables are not empty", () => {
    expect(firstCells("Commands").length).toBeGreaterThan(15);
    expect(firstCells("Slash commands")).toHaveLength(SLASH_COMMANDS.length);
  });
});
