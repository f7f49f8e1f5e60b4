import { lstatSync, readFileSync, symlinkSync, writeFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { replaceFile } from "../../src/files/replace-file.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
const at = (path: string) => join(project.root, path);
beforeEach(() => {
  project = createTempProject({ "a.txt": "old\n" });
});
afterEach(() => project.cleanup());

describe("replaceFile", () => {
  it("replaces a link that appeared at the path instead of writing through it", () => {
    writeFileSync(join(project.root, "../victim.txt"), "keep\n");
    symlinkSync("../victim.txt", at("b.txt"));
    replaceFile(at("b.txt"), "new\n");
    expect(readFileSync(join(project.root, "../victim.txt"), "utf8")).toBe("keep\n");
    expect(lstatSync(at("b.txt")).isFile()).toBe(true);
    expect(readFileSync(at("b.txt"), "utf8")).toBe("new\n");
  });

  it("writes bytes exactly and leaves no temporary file behind", () => {
    replaceFile(at("a.txt"), Buffer.from([0xff, 0x00, 0x0a]));
    expect([...readFileSync(at("a.txt"))]).toEqual([0xff, 0x00, 0x0a]);
    expect(readdirSync(project.root)).toEqual(["a.txt"]);
  });
});
