import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConsentRequiredError } from "../../src/errors.js";
import { ConsentStore, resolveIndexConsent } from "../../src/project/consent.js";
import { resolveProjectPaths } from "../../src/project/project-paths.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let store: ConsentStore;
beforeEach(() => {
  project = createTempProject();
  store = new ConsentStore(resolveProjectPaths(project.root, project.env));
});
afterEach(() => project.cleanup());

describe("index consent", () => {
  it("refuses a run that cannot ask, with a message saying how to allow it", async () => {
    await expect(resolveIndexConsent(store, { yes: false })).rejects.toThrow(ConsentRequiredError);
    await expect(resolveIndexConsent(store, { yes: false })).rejects.toThrow(/Run `sylk index` in the project, or pass --yes/);
    expect(store.indexConsent()).toBeUndefined();
  });

  it("takes --yes as consent and remembers it per project", async () => {
    expect(await resolveIndexConsent(store, { yes: true })).toBe(true);
    expect(await resolveIndexConsent(store, { yes: false })).toBe(true);
    const other = createTempProject();
    try {
      const otherStore = new ConsentStore(resolveProjectPaths(other.root, project.env));
      expect(otherStore.indexConsent()).toBeUndefined();
    } finally {
      other.cleanup();
    }
  });

  it("asks when it can, and remembers the answer only when told to", async () => {
    expect(await resolveIndexConsent(store, { yes: false, ask: async () => ({ granted: false, remember: false }) })).toBe(false);
    expect(store.indexConsent()).toBeUndefined();
    expect(await resolveIndexConsent(store, { yes: false, ask: async () => ({ granted: false, remember: true }) })).toBe(false);
    let asked = false;
    const answer = await resolveIndexConsent(store, {
      yes: false,
      ask: async () => {
        asked = true;
        return { granted: true, remember: true };
      },
    });
    expect(asked).toBe(false);
    expect(answer).toBe(false);
    expect(await resolveIndexConsent(store, { yes: true })).toBe(true);
    expect(store.indexConsent()).toBe(true);
  });
});
