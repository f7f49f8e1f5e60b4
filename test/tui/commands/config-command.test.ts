import { describe, expect, it } from "vitest";
import { createAppFixture } from "../app-fixture.js";

/** /config in the TUI: what the session was opened with, read-only. */

const tui = createAppFixture({ fakeModel: false });

describe("/config", () => {
  it("lists the settings with their sources and the files, and changes nothing", async () => {
    const app = await tui.render({
      files: { ".sylkrc": JSON.stringify({ index: { maxFileSize: 4096 }, sandbox: { network: true } }) },
      consent: false,
      columns: 200,
    });
    await app.waitFor("index: off");
    const before = JSON.stringify(app.services.loadedConfig.config);
    await app.submit("/config");
    await app.waitFor("To change them:");
    const frame = app.frame();
    expect(frame).toMatch(/index\.maxFileSize +4096 +· .*\/project\/\.sylkrc/);
    // Untrusted: the project's sandbox setting is not in effect.
    expect(frame).toMatch(/sandbox\.network +false +· default/);
    expect(frame).toMatch(/project +.*\/\.sylkrc \(read; sandbox\.network ignored: the folder is not trusted with them/);
    expect(JSON.stringify(app.services.loadedConfig.config)).toBe(before);
  });
});
