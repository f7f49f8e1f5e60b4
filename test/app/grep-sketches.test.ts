import { utimesSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { GrepIndex } from "../../src/agent/tools/grep-files.js";
import { Ripgrep, type RipgrepRequest } from "../../src/agent/tools/grep-ripgrep.js";
import { GrepThread } from "../../src/agent/tools/grep-thread.js";
import type { ProjectServices } from "../../src/app/project-services.js";
import { TrigramProbe } from "../../src/search/trigram-sketch.js";
import { drainIndex } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";
import { type GrepCall, grepOnProject, openIndexedProject } from "./grep-index-fixtures.js";

const installedRipgrep = Ripgrep.onPath(process.env);

/** A secret's value (masked wherever it is kept or shown). */
const SECRET_TAIL = "abcdEFGH1234".repeat(3);

/**
 * A package whose files hold `AnyJsObjectMember`'s words (and so every
 * full-text term it guarantees: `js`, `object`) but only two hold the
 * identifier itself.
 */
const PACKAGE_FILES: Record<string, string> = {
  "crates/analyze/src/member.ts": "export type AnyJsObjectMember = { name: string };\n",
  "crates/analyze/src/uses.ts": "import type { AnyJsObjectMember } from './member';\nexport const members: AnyJsObjectMember[] = [];\n",
  ...Object.fromEntries(
    Array.from({ length: 30 }, (_, index) => [
      `crates/analyze/src/rule${index}.ts`,
      `// A rule on js objects: any object member ${index}.\nexport const js${index} = { object: ${index}, member: "any" };\n`,
    ]),
  ),
  "crates/parser/src/lib.ts": "export const AnyJsObjectMemberList = [];\n",
  "crates/parser/src/keys.ts": `const apiKey = "sk-ant-${SECRET_TAIL}"; // AnyJsObjectMember key\n`,
};

let project: TempProject;
let services: ProjectServices;
let thread: GrepThread;

beforeEach(async () => {
  project = createTempProject(PACKAGE_FILES);
  services = await openIndexedProject(project);
  thread = new GrepThread();
});
afterEach(async () => {
  thread.close();
  await services.close();
  project.cleanup();
});

const signal = () => new AbortController().signal;
const literal = [["AnyJsObjectMember"]];
/** The files that hold `AnyJsObjectMember` (or an identifier it begins), in path order. */
const HOLDERS = ["crates/analyze/src/member.ts", "crates/analyze/src/uses.ts", "crates/parser/src/keys.ts", "crates/parser/src/lib.ts"];

/** grep on this test's project, with the project index or with a walk per call, and ripgrep when given. */
function grepWith(index: GrepIndex | undefined, ripgrep?: Ripgrep): GrepCall {
  return grepOnProject(services, thread, project.root)(index, ripgrep);
}

/** The installed rg, counting the searches it was asked to list. */
function countingRipgrep(installed: Ripgrep): { ripgrep: Ripgrep; listings: () => number } {
  let listings = 0;
  const ripgrep = {
    command: installed.command,
    filesHolding: (request: RipgrepRequest, signal: AbortSignal) => {
      listings++;
      return installed.filesHolding(request, signal);
    },
  } as unknown as Ripgrep;
  return { ripgrep, listings: () => listings };
}

describe("grep narrowed by the indexed files' trigram sketches", () => {
  it("rules out the files that hold a camelCase literal's words but not the literal, which the full-text terms keep", async () => {
    const files = await services.grepIndex.files(signal(), undefined, { checkDisk: true });
    const held = files?.mayHold(literal, false);
    expect(files?.paths.filter((path) => held?.has(path)).sort()).toEqual(HOLDERS);
    // Ignoring case, by the same sketches.
    const folded = files?.mayHold([["anyjsobjectmember"]], true);
    expect(files?.paths.filter((path) => folded?.has(path)).sort()).toEqual(HOLDERS);
  });

  it("still reads every file the index cannot vouch for: changed in place, added, and one indexed before sketches were kept", async () => {
    project.write("crates/analyze/src/rule3.ts", "export const late: AnyJsObjectMember = {};\n");
    utimesSync(join(project.root, "crates/analyze/src/rule3.ts"), new Date(2001, 1, 1), new Date(2001, 1, 1));
    project.write("crates/analyze/src/added.ts", "// AnyJsObjectMember\n");
    const indexed = grepWith(services.grepIndex);
    const walked = grepWith(undefined);
    for (const input of [
      { pattern: "AnyJsObjectMember" },
      { pattern: "anyJSobjectMEMBER", ignore_case: true },
      { pattern: "AnyJsObjectMember", path: "crates/analyze" },
    ]) {
      const answer = await indexed(input);
      expect(answer).toBe(await walked(input));
      expect(answer).toContain("crates/analyze/src/rule3.ts:1:");
      expect(answer).toContain("crates/analyze/src/added.ts:1:");
    }
    // An index written before sketches, opened again: the files without one fall back to the terms, which keep them all.
    for (const entry of services.files.manifest().values()) services.fileSketches.replace(entry.id, null);
    await services.close();
    services = await openIndexedProject(project);
    project.write("crates/analyze/src/rule4.ts", `// ${"AnyJsObjectMember".padEnd(60, ".")}\n`);
    const files = await services.grepIndex.files(signal(), undefined, { checkDisk: true });
    const held = files?.mayHold(literal, false);
    expect(files?.paths.filter((path) => held?.has(path)).length).toBeGreaterThan(30);
    const reopened = grepWith(services.grepIndex);
    expect(await reopened({ pattern: "AnyJsObjectMember" })).toBe(await walked({ pattern: "AnyJsObjectMember" }));
    expect(await reopened({ pattern: "AnyJsObjectMember" })).toContain("crates/analyze/src/rule4.ts:1:");
  });

  it.skipIf(!installedRipgrep)(
    "in one directory without a watcher, lists it by the stored states and stats the files the sketches rule out on grep's threads, instead of rg",
    async () => {
      const { ripgrep, listings } = countingRipgrep(installedRipgrep as Ripgrep);
      const indexed = grepWith(services.grepIndex, ripgrep);
      const walked = grepWith(undefined);
      const input = { pattern: "AnyJsObjectMember", path: "crates/analyze" };
      const files = await services.grepIndex.files(signal(), "crates/analyze", { checkDisk: false });
      // Listed without a stat of each file: the 30 rule files are ruled out only while unchanged.
      expect(files?.unlessChanged?.size).toBe(32);
      expect(await indexed(input)).toBe(await walked(input));
      expect(listings()).toBe(0);
      // Changed in place: its stat on a grep thread finds another size and time, and it is read.
      const rule = "crates/analyze/src/rule7.ts";
      const before = await indexed(input);
      project.write(rule, (PACKAGE_FILES[rule] as string).replace("any object member 7", "AnyJsObjectMember 7.."));
      utimesSync(join(project.root, rule), new Date(2002, 1, 1), new Date(2002, 1, 1));
      expect(await indexed(input)).not.toBe(before);
      expect(await indexed(input)).toContain(`${rule}:1:`);
      expect(await indexed(input)).toBe(await walked(input));
      expect(listings()).toBe(0);
      // A name added in that directory: the stored states no longer list it, and rg does.
      project.write("crates/analyze/src/new.ts", "const x: AnyJsObjectMember = {};\n");
      expect(await indexed(input)).toContain("crates/analyze/src/new.ts:1:");
      expect(listings()).toBe(1);
      expect(await indexed(input)).toBe(await walked(input));
    },
  );

  it("sketches a file as grep reads it, its secrets masked: no sketch confirms a guess at a secret's value", () => {
    const id = services.files.manifest().get("crates/parser/src/keys.ts")?.id as number;
    const sketch = services.fileSketches.under("crates/parser").get(id) as Uint8Array;
    expect(TrigramProbe.of([["const apiKey"]], false)?.mayHold(sketch)).toBe(true);
    expect(TrigramProbe.of([["REDACTED"]], false)?.mayHold(sketch)).toBe(true);
    expect(TrigramProbe.of([[SECRET_TAIL]], false)?.mayHold(sketch)).toBe(false);
    expect(TrigramProbe.of([[SECRET_TAIL]], true)?.mayHold(sketch)).toBe(false);
  });

  it("keeps a sketch for an indexed file only: dropped when the file turns binary or is deleted", async () => {
    const idOf = (path: string) => services.files.manifest().get(path)?.id as number;
    const member = idOf("crates/analyze/src/member.ts");
    const uses = idOf("crates/analyze/src/uses.ts");
    expect(services.fileSketches.under("crates/analyze").has(member)).toBe(true);
    expect(services.fileSketches.under("crates/parser").has(member)).toBe(false);
    project.write("crates/analyze/src/member.ts", new Uint8Array([65, 110, 121, 0, 1, 2]));
    project.remove("crates/analyze/src/uses.ts");
    await drainIndex(services);
    const kept = services.fileSketches.under("");
    expect(services.files.manifest().get("crates/analyze/src/member.ts")?.status).toBe("skipped");
    expect(kept.has(member)).toBe(false);
    expect(kept.has(uses)).toBe(false);
    expect(kept.size).toBe(32);
  });
});
