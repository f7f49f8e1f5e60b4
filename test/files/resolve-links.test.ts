import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isInside, LinkLoopError, resolveLinks } from "../../src/files/resolve-links.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
const at = (path: string) => join(project.root, path);
beforeEach(() => {
  project = createTempProject({ "real/file.txt": "x\n" });
});
afterEach(() => project.cleanup());

describe("resolveLinks", () => {
  it("is realpath for a path that exists", () => {
    symlinkSync("real", at("alias"));
    expect(resolveLinks(at("alias/file.txt"))).toBe(at("real/file.txt"));
  });

  it("follows a dangling link, and a chain of them, to the file it would create", () => {
    symlinkSync("../elsewhere/new.txt", at("dangling"));
    symlinkSync("dangling", at("chain"));
    expect(resolveLinks(at("dangling"))).toBe(join(project.root, "../elsewhere/new.txt"));
    expect(resolveLinks(at("chain"))).toBe(join(project.root, "../elsewhere/new.txt"));
  });

  it("resolves links above a missing tail, takes the tail as written, and `..` after a link from where it leads", () => {
    symlinkSync(at("real"), at("absolute"));
    expect(resolveLinks(at("absolute/missing/deeper.txt"))).toBe(at("real/missing/deeper.txt"));
    mkdirSync(at("real/sub"));
    symlinkSync("real/sub", at("sub-link"));
    expect(resolveLinks(`${project.root}/sub-link/../gone.txt`)).toBe(at("real/gone.txt")); // not normalised first, as join would
  });

  it("throws LinkLoopError on a loop", () => {
    symlinkSync("b", at("a"));
    symlinkSync("a", at("b"));
    expect(() => resolveLinks(at("a"))).toThrow(LinkLoopError);
    expect(() => resolveLinks(at("a/x"))).toThrow(LinkLoopError);
  });

  it("takes a name with a backslash as one name on POSIX", () => {
    writeFileSync(at("back\\slash.txt"), "x");
    expect(resolveLinks(at("back\\slash-missing.txt"))).toBe(at("back\\slash-missing.txt"));
  });
});

describe("isInside", () => {
  it("needs a whole component", () => {
    expect(isInside("/p/root/a", "/p/root")).toBe(true);
    expect(isInside("/p/root", "/p/root")).toBe(true);
    expect(isInside("/p/rooted/a", "/p/root")).toBe(false);
    expect(isInside("/p/a", "/")).toBe(true);
  });
});
