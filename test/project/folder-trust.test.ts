import { statSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FolderTrustStore } from "../../src/project/folder-trust.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let store: FolderTrustStore;
beforeEach(() => {
  project = createTempProject();
  store = new FolderTrustStore(project.sylkHome);
});
afterEach(() => project.cleanup());

describe("FolderTrustStore", () => {
  it("knows no folder at first, and trusts nothing", () => {
    expect(store.decisionFor("/work/repo")).toBeUndefined();
    expect(store.isTrusted("/work/repo")).toBe(false);
  });

  it("a decision covers the folder and everything below; the nearest decision wins", () => {
    store.record("/work", true, "test");
    store.record("/work/cloned", false, "test");
    expect(store.isTrusted("/work/app")).toBe(true);
    expect(store.isTrusted("/work/app/sub")).toBe(true);
    expect(store.isTrusted("/work/cloned/inner")).toBe(false);
    expect(store.decisionFor("/work/cloned/inner")).toMatchObject({ folder: "/work/cloned", trusted: false, via: "test" });
    expect(store.isTrusted("/workshop")).toBe(false);
    expect(store.isTrusted("/")).toBe(false);
  });

  it("forgets a decision, and lists what is left", () => {
    store.record("/a", true, "test");
    store.record("/b", false, "test");
    expect(store.forget("/a")).toBe(true);
    expect(store.forget("/a")).toBe(false);
    expect(store.list().map((entry) => [entry.folder, entry.trusted])).toEqual([["/b", false]]);
  });

  it("keeps its file under SYLK_HOME, readable by the user alone", () => {
    store.record("/a", true, "test");
    expect(store.path).toBe(join(project.sylkHome, "trusted-folders.json"));
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
  });

  it("trusts nothing when its file is damaged, and the next decision rewrites it", () => {
    mkdirSync(project.sylkHome, { recursive: true });
    writeFileSync(store.path, '{ "version": 1, "folders": { "/a": { "trusted": "yes" } ');
    expect(store.isTrusted("/a")).toBe(false);
    store.record("/b", true, "test");
    expect(store.isTrusted("/b")).toBe(true);
  });
});
