import { describe, expect, it } from "vitest";
import { ListingHash } from "../../src/indexer/directory-state.js";

describe("ListingHash", () => {
  it("gives the digests indexes already store (sizes and times past 2^32 included), whatever the order", () => {
    const entries = [
      (hash: ListingHash) => hash.addFile("index.ts", 1234, 1_700_000_000_123),
      (hash: ListingHash) => hash.addFile("große-datei.bin", 5 * 2 ** 32 + 17, 2 ** 41 + 3),
      (hash: ListingHash) => hash.addDirectory("src"),
      (hash: ListingHash) => hash.addLeftOut("debug.log"),
    ];
    const forwards = new ListingHash();
    for (const add of entries) add(forwards);
    const backwards = new ListingHash();
    for (const add of [...entries].reverse()) add(backwards);
    // Computed by the hash as it was first stored: a change here makes every stored directory state look changed.
    expect(forwards.digest()).toBe("719d047066475ebf");
    expect(backwards.digest()).toBe("719d047066475ebf");
    expect(new ListingHash().digest()).toBe("0000000000000000");
  });

  it("tells a file's size and time apart from its name, and a file from a directory of the same name", () => {
    const digestOf = (add: (hash: ListingHash) => void) => {
      const hash = new ListingHash();
      add(hash);
      return hash.digest();
    };
    const digests = new Set([
      digestOf((hash) => hash.addFile("a.ts", 10, 1_000)),
      digestOf((hash) => hash.addFile("a.ts", 11, 1_000)),
      digestOf((hash) => hash.addFile("a.ts", 10, 1_001)),
      digestOf((hash) => hash.addFile("a.ts", 10 + 2 ** 32, 1_000)),
      digestOf((hash) => hash.addDirectory("a.ts")),
      digestOf((hash) => hash.addLeftOut("a.ts")),
    ]);
    expect(digests.size).toBe(6);
  });

  it("goes on from a copy without changing the hash it was copied from", () => {
    const rules = new ListingHash();
    rules.addFile(".git/info/exclude", 40, 1_000);
    const before = rules.digest();
    const copy = rules.copy();
    copy.addFile(".gitignore", 12, 2_000);
    expect(rules.digest()).toBe(before);
    expect(copy.digest()).not.toBe(before);
    rules.addFile(".gitignore", 12, 2_000);
    expect(copy.digest()).toBe(rules.digest());
  });
});
