import { describe, expect, it } from "vitest";
import { customCommandSource } from "../../../src/tui/commands/custom-command-source.js";

describe("customCommandSource", () => {
  it("custom commands' source reads the files at most once a second", () => {
    let loads = 0;
    let clock = 0;
    const source = customCommandSource(
      () => {
        loads++;
        return {
          commands: [
            { name: "review", source: "project", path: "/p", description: "Review", argumentHint: "<file>", allowedTools: [], body: "b" },
          ],
          errors: [],
        };
      },
      () => clock,
    );
    expect(source.commands()).toEqual([{ name: "review", usage: "/review <file>", description: "Review (project command)" }]);
    clock = 999;
    source.commands();
    expect(loads).toBe(1);
    clock = 1_000;
    source.commands();
    expect(loads).toBe(2);
  });
});
