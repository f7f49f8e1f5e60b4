import { describe, expect, it } from "vitest";
import { isSlashCommand } from "../../../src/tui/commands/command-list.js";

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
});
