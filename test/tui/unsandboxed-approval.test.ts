import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { reply } from "../helpers/fake-anthropic-server.js";
import { bubblewrap, directoryOutsideTmp } from "../helpers/sandboxed-commands.js";
import { createAppFixture } from "./app-fixture.js";

let outside: string;
beforeEach(() => {
  outside = directoryOutsideTmp("sylk-outside-");
});
afterEach(() => rmSync(outside, { recursive: true, force: true }));
// Made after the directory's hooks, so that its apps close before the directory is removed.
const tui = createAppFixture();

describe.skipIf(!bubblewrap.ok)("a command the model wants to run outside the sandbox", () => {
  it("is asked about each time, even in bypass mode, with no 'don't ask again', and runs outside the sandbox once approved", async () => {
    const marker = join(outside, "made-outside");
    const call = { command: `touch ${marker}`, description: "Touch a file outside the project", unsandboxed: true };
    tui.server.enqueue(
      reply().toolUse("run_command", call),
      reply().text("Touched it."),
      reply().toolUse("run_command", call),
      reply().text("Left it."),
    );
    const app = await tui.render({
      consent: true,
      permissionMode: "bypass",
      env: tui.modelEnv(),
    });
    await app.waitFor(/index: fresh/);

    await app.submit("touch the file");
    await app.waitFor("Run a command outside the sandbox?");
    expect(app.frame()).toContain(`Run outside the sandbox: touch ${marker}`);
    expect(app.frame()).not.toContain("don't ask again");
    await app.write("y");
    await app.waitFor("Touched it.");
    expect(existsSync(marker)).toBe(true);

    rmSync(marker);
    await app.submit("once more");
    await app.waitFor("Run a command outside the sandbox?");
    await app.write("n");
    await app.waitFor("Interrupted. Tell Sylk what to do instead.");
    expect(existsSync(marker)).toBe(false);
  });
});
