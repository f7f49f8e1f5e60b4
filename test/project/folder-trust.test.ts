import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gatedSettingsHash, trustVerdict, type GatedSetting } from "../../src/config/trust-gated-keys.js";
import { FolderTrustStore } from "../../src/project/folder-trust.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let store: FolderTrustStore;
beforeEach(() => {
  project = createTempProject();
  store = new FolderTrustStore(project.sylkHome);
});
afterEach(() => project.cleanup());

const HARMLESS: GatedSetting[] = [{ key: "permissions.allow", value: ["run_command(npm test*)"] }];
const verdict = (folder: string, settings: readonly GatedSetting[] = HARMLESS) => trustVerdict(store.decisionFor(folder), settings);

describe("FolderTrustStore", () => {
  it("knows no folder at first, and trusts nothing", () => {
    expect(store.decisionFor("/work/repo")).toBeUndefined();
    expect(verdict("/work/repo")).toBe("untrusted");
  });

  it("trusts one folder's own settings, not the folders below it; a refusal covers its tree unless a folder below has its own decision", () => {
    store.trust("/work", HARMLESS, "test");
    store.distrust("/work/cloned", "test");
    store.trust("/work/cloned/tools", HARMLESS, "test");
    expect(verdict("/work")).toBe("trusted");
    expect(store.decisionFor("/work/app")).toBeUndefined();
    expect(verdict("/work/app")).toBe("untrusted");
    expect(verdict("/work/app/sub")).toBe("untrusted");
    expect(store.decisionFor("/work/cloned/inner/deeper")).toMatchObject({ folder: "/work/cloned", trusted: false, via: "test" });
    expect(verdict("/work/cloned/tools")).toBe("trusted");
    expect(verdict("/workshop")).toBe("untrusted");
    expect(verdict("/")).toBe("untrusted");
  });

  it("binds trust to the gated settings it was given: the same values hold in any order, any change does not", () => {
    const settings: GatedSetting[] = [
      { key: "model.baseUrl", value: "https://llm.example.com" },
      { key: "permissions.allow", value: ["run_command(npm test*)"] },
      { key: "sandbox.writableDirectories", value: ["~/.npm"] },
    ];
    store.trust("/work/app", settings, "test");
    expect(verdict("/work/app", [...settings].reverse())).toBe("trusted");
    expect(verdict("/work/app", [{ key: "model.baseUrl", value: "https://attacker.example" }, ...settings.slice(1)])).toBe("changed");
    expect(verdict("/work/app", [...settings, { key: "model.apiKeyEnv", value: "AWS_SECRET_ACCESS_KEY" }])).toBe("changed");
    expect(verdict("/work/app", settings.slice(1))).toBe("changed");
    expect(gatedSettingsHash([{ key: "x", value: { b: 1, a: 2 } }])).toBe(gatedSettingsHash([{ key: "x", value: { a: 2, b: 1 } }]));
  });

  it("reads the first format: its refusals still refuse, its trust (recorded without the settings) honours nothing until given again", () => {
    mkdirSync(project.sylkHome, { recursive: true });
    const at = "2024-05-01T00:00:00.000Z";
    writeFileSync(
      store.path,
      JSON.stringify({
        version: 1,
        folders: { "/old/trusted": { trusted: true, at, via: "prompt" }, "/old/refused": { trusted: false, at, via: "prompt" } },
      }),
    );
    expect(verdict("/old/trusted")).toBe("unrecorded");
    expect(verdict("/old/refused/below")).toBe("untrusted");
    expect(store.list().map((entry) => [entry.folder, entry.trusted, entry.settingsHash])).toEqual([
      ["/old/refused", false, undefined],
      ["/old/trusted", true, undefined],
    ]);
    store.trust("/old/trusted", HARMLESS, "sylk trust");
    expect(verdict("/old/trusted")).toBe("trusted");
    expect(JSON.parse(readFileSync(store.path, "utf8")).version).toBe(2);
  });

  it("revoking a folder refuses its tree and forgets the trust given below it", () => {
    store.trust("/work/a", HARMLESS, "test");
    store.trust("/work/a/b", HARMLESS, "test");
    store.trust("/workshop", HARMLESS, "test");
    expect(store.revokeTree("/work", "test").forgotten).toEqual(["/work/a", "/work/a/b"]);
    expect(verdict("/work/a/b")).toBe("untrusted");
    expect(verdict("/workshop")).toBe("trusted");
  });

  it("forgets a decision, and lists what is left", () => {
    store.trust("/a", HARMLESS, "test");
    store.distrust("/b", "test");
    expect(store.forget("/a")).toBe(true);
    expect(store.forget("/a")).toBe(false);
    expect(store.list().map((entry) => [entry.folder, entry.trusted])).toEqual([["/b", false]]);
  });

  it("keeps its file under SYLK_HOME, readable by the user alone, and narrows a home left open to others", () => {
    expect(store.trust("/a", HARMLESS, "test")).toEqual([]);
    expect(store.path).toBe(join(project.sylkHome, "trusted-folders.json"));
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    expect(statSync(project.sylkHome).mode & 0o777).toBe(0o700);
    chmodSync(project.sylkHome, 0o755);
    expect(store.trust("/b", HARMLESS, "test")).toEqual([
      expect.stringContaining(`Made ${project.sylkHome} readable by you alone (it was 0755, now 0700)`),
    ]);
    expect(statSync(project.sylkHome).mode & 0o777).toBe(0o700);
  });

  it("trusts nothing when its file is damaged, and the next decision rewrites it", () => {
    mkdirSync(project.sylkHome, { recursive: true });
    writeFileSync(store.path, '{ "version": 2, "folders": { "/a": { "trusted": "yes" } ');
    expect(verdict("/a")).toBe("untrusted");
    store.trust("/b", HARMLESS, "test");
    expect(verdict("/b")).toBe("trusted");
  });
});
