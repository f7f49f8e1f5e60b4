import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RenderedApp } from "../render-app.js";
import { createAppFixture } from "../app-fixture.js";

/** /init: an AGENTS.md from the index, with no model call, never over an existing one. */

const tui = createAppFixture();

const FILES = {
  "package.json": JSON.stringify({ name: "shop", scripts: { test: "vitest run" } }),
  "src/index.ts": "export function main() {\n  return 1;\n}\n",
  "src/cart.ts": "export const cart = [];\n",
};

async function indexed(files: Record<string, string>): Promise<RenderedApp> {
  const rendered = await tui.render({
    files,
    consent: true,
    columns: 160,
    env: tui.modelEnv(),
  });
  await rendered.waitFor("index: fresh");
  return rendered;
}

describe("/init", () => {
  it("writes AGENTS.md from the index: languages, the test command, the layout and the entry point; no model is asked", async () => {
    const app = await indexed(FILES);
    await app.submit("/init");
    await app.waitFor("Wrote AGENTS.md");
    const written = readFileSync(join(app.project.root, "AGENTS.md"), "utf8");
    expect(written).toMatch(/^# shop\n/);
    expect(written).toContain("- typescript: 2 files");
    expect(written).toContain("From package.json (npm):\n\n- `npm test`: vitest run");
    expect(written).toContain("- `src/`: 2 files");
    expect(written).toContain("## Entry points\n\n- `src/index.ts`");
    expect(tui.server.requests).toEqual([]);
  });

  it("leaves an existing AGENTS.md byte for byte, and shows what it would write", async () => {
    const own = "# Our rules\n\nNever touch the billing module.\n";
    const app = await indexed({ ...FILES, "AGENTS.md": own });
    await app.submit("/init");
    await app.waitFor("AGENTS.md is already there, so it was left as it is.");
    expect(app.frame()).toContain("From package.json (npm):");
    expect(readFileSync(join(app.project.root, "AGENTS.md"), "utf8")).toBe(own);
  });
});
