import { describe, expect, it } from "vitest";
import { isCheckCommand } from "../../src/signals/check-command.js";

describe("isCheckCommand", () => {
  it.each(["npm test", "npm run build", "cd pkg && cargo test", "pytest -q tests/", "npx tsc --noEmit", "go test ./...", "make"])(
    "%j is a check",
    (command) => expect(isCheckCommand(command)).toBe(true),
  );
  it.each(["ls -la", "cat package.json", "git status", "echo maker"])("%j is not", (command) =>
    expect(isCheckCommand(command)).toBe(false),
  );
});
