import { describe, expect, it } from "vitest";
import { SLASH_COMMANDS, SlashCommandMenu, type SlashCommandSpec } from "../../../src/tui/commands/command-list.js";

const builtins = new SlashCommandMenu();
const isSlashCommand = (line: string) => builtins.isSlashCommand(line);
const matchingCommands = (input: string) => builtins.matching(input);
const completeCommand = (text: string, cycle: Parameters<SlashCommandMenu["complete"]>[1]) => builtins.complete(text, cycle);

describe("command list", () => {
  it("takes a line for a command only when it names one, or is a lone word; a path is a prompt", () => {
    expect(isSlashCommand("/help")).toBe(true);
    expect(isSlashCommand("/search renderInvoice")).toBe(true);
    expect(isSlashCommand("/quit")).toBe(true);
    expect(isSlashCommand("/unknowncommand")).toBe(true);
    expect(isSlashCommand("/usr/lib/foo crashes when I run it")).toBe(false);
    expect(isSlashCommand("/etc/hosts")).toBe(false);
    expect(isSlashCommand("/tmp/build.log is empty")).toBe(false);
    expect(isSlashCommand("./run.sh fails")).toBe(false);
    expect(isSlashCommand("what does /help print?")).toBe(false);
  });

  it("suggests and completes commands of another source (an MCP server's prompts) beside the built-in ones", () => {
    const prompts = [
      { name: "mcp__docs__summarize", usage: "/mcp__docs__summarize <page>", description: "a prompt" },
      { name: "mcp__docs__explain", usage: "/mcp__docs__explain", description: "another" },
    ];
    const withPrompts = new SlashCommandMenu([{ commands: () => prompts }]);
    expect(withPrompts.matching("/mc").map((command) => command.name)).toEqual(["mcp", "mcp__docs__explain", "mcp__docs__summarize"]);
    const first = withPrompts.complete("/mcp__", undefined);
    expect(first?.text).toBe("/mcp__docs__explain ");
    expect(first && withPrompts.complete(first.text, first.cycle)?.text).toBe("/mcp__docs__summarize ");
    expect(matchingCommands("/mcp__")).toEqual([]);
  });

  it("lists matches in alphabetical order", () => {
    expect(matchingCommands("/re").map((command) => command.name)).toEqual(["refs", "resume", "retrieve", "rewind"]);
    expect(matchingCommands("/re x")).toEqual([]);
  });

  it("Tab cycles through the matching commands, wrapping", () => {
    const first = completeCommand("/re", undefined);
    expect(first?.text).toBe("/refs ");
    const second = completeCommand(first!.text, first!.cycle);
    expect(second?.text).toBe("/resume ");
    const third = completeCommand(second!.text, second!.cycle);
    expect(third?.text).toBe("/retrieve ");
    const fourth = completeCommand(third!.text, third!.cycle);
    expect(fourth?.text).toBe("/rewind ");
    expect(completeCommand(fourth!.text, fourth!.cycle)?.text).toBe("/refs ");
    // Edited since the last Tab: a new cycle from what is typed now.
    expect(completeCommand("/s", third!.cycle)?.text).toBe("/search ");
    expect(completeCommand("/zz", undefined)).toBeUndefined();
    expect(completeCommand("hello", undefined)).toBeUndefined();
  });
});

describe("the menu's sources", () => {
  const spec = (name: string, description = "d"): SlashCommandSpec => ({ name, usage: `/${name}`, description });
  const custom = { commands: () => [spec("review"), spec("frontend:lint"), spec("help", "mine")] };
  const mcp = { commands: () => [spec("mcp__docs__summarize"), spec("review", "theirs")] };
  const menu = new SlashCommandMenu([custom, mcp]);

  it("lists each source's commands after the built-ins; a built-in (or an earlier source's) name is never taken", () => {
    const names = menu.all().map((command) => command.name);
    expect(names.slice(0, SLASH_COMMANDS.length)).toEqual(SLASH_COMMANDS.map((command) => command.name));
    expect(names.slice(SLASH_COMMANDS.length)).toEqual(["review", "frontend:lint", "mcp__docs__summarize"]);
    expect(menu.all().find((command) => command.name === "help")?.description).toBe("commands and keys");
  });

  it("completes and suggests them; a line naming one goes to the session, a built-in stays the screen's", () => {
    expect(menu.matching("/fr").map((command) => command.name)).toEqual(["frontend:lint"]);
    expect(menu.complete("/frontend", undefined)?.text).toBe("/frontend:lint ");
    expect(menu.isSlashCommand("/frontend:lint src")).toBe(true);
    expect(menu.namesSourceCommand("/frontend:lint src")).toBe(true);
    expect(menu.namesSourceCommand("/help")).toBe(false);
    expect(menu.namesSourceCommand("/nothing")).toBe(false);
  });
});
