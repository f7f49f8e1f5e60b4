import { describe, expect, it } from "vitest";
import { completeCommand, isSlashCommand, matchingCommands } from "../../../src/tui/commands/command-list.js";

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
    expect(matchingCommands("/mc", prompts).map((command) => command.name)).toEqual(["mcp", "mcp__docs__explain", "mcp__docs__summarize"]);
    const first = completeCommand("/mcp__", undefined, prompts);
    expect(first?.text).toBe("/mcp__docs__explain ");
    expect(first && completeCommand(first.text, first.cycle, prompts)?.text).toBe("/mcp__docs__summarize ");
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
