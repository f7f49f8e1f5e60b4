import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { maskEntry, PromptHistoryStore } from "../../src/app/prompt-history.js";

const GITHUB_TOKEN = `ghp_${"a1B2c3D4e5".repeat(4)}`;

let directory: string;
let path: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "sylk-prompt-history-"));
  path = join(directory, "prompt-history.jsonl");
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

describe("prompt history store", () => {
  it("keeps prompts across instances (restarts), oldest first, in a file only the user can read", () => {
    const first = new PromptHistoryStore(path);
    expect(first.load()).toEqual([]);
    expect(first.add({ text: "explain the parser" })).toBeUndefined();
    expect(first.add({ text: "now fix it", pasted: [[4, 7]] })).toBeUndefined();
    expect(new PromptHistoryStore(path).load()).toEqual([{ text: "explain the parser" }, { text: "now fix it", pasted: [[4, 7]] }]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("narrows a file that others could read", () => {
    writeFileSync(path, "", { mode: 0o644 });
    chmodSync(path, 0o644);
    new PromptHistoryStore(path).add({ text: "hello" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("masks secrets before writing, in typed and pasted parts, keeping the pasted ranges on the pasted text", () => {
    const typed = `use ${GITHUB_TOKEN} for `;
    const pasted = `token=${GITHUB_TOKEN}\nline two`;
    const store = new PromptHistoryStore(path);
    store.add({ text: typed + pasted, pasted: [[typed.length, typed.length + pasted.length]] });
    const file = readFileSync(path, "utf8");
    expect(file).not.toContain(GITHUB_TOKEN);
    const [entry] = new PromptHistoryStore(path).load();
    expect(entry?.text).toBe("use [REDACTED:github-token] for token=[REDACTED:github-token]\nline two");
    const [start, end] = entry!.pasted![0]!;
    expect(entry!.text.slice(start, end)).toBe("token=[REDACTED:github-token]\nline two");
  });

  it("masks whole prompts without pastes", () => {
    expect(maskEntry({ text: `key ${GITHUB_TOKEN}` })).toEqual({ text: "key [REDACTED:github-token]" });
  });

  it("keeps only the newest entries, and rewrites the file once it grows past its size", () => {
    const store = new PromptHistoryStore(path, { entries: 5, bytes: 600, entryBytes: 200 });
    for (let index = 1; index <= 40; index++) expect(store.add({ text: `prompt number ${index}` })).toBeUndefined();
    expect(store.load().map((entry) => entry.text)).toEqual([36, 37, 38, 39, 40].map((index) => `prompt number ${index}`));
    expect(statSync(path).size).toBeLessThanOrEqual(600);
    // A prompt too large to keep across restarts is left out, not an error.
    expect(store.add({ text: "x".repeat(500) })).toBeUndefined();
    expect(store.load().at(-1)?.text).toBe("prompt number 40");
  });

  it("ignores a damaged file: bad lines are skipped, an unreadable path is no history and a failed write is returned", () => {
    writeFileSync(
      path,
      ['{"text":"kept one"}', "not json", '{"text":5}', '{"text":"bad range","pasted":[[3,99]]}', '{"text":"kept two"}', '{"trunc'].join(
        "\n",
      ),
    );
    expect(new PromptHistoryStore(path).load()).toEqual([{ text: "kept one" }, { text: "kept two" }]);

    const blocked = join(directory, "a-directory");
    mkdirSync(blocked);
    const store = new PromptHistoryStore(blocked);
    expect(store.load()).toEqual([]);
    expect(store.add({ text: "hello" })).toMatch(/EISDIR/);
  });
});
