import { describe, expect, it } from "vitest";
import { FNV_OFFSET, FNV_PRIME, fnv1a } from "../src/fnv1a.js";

describe("32-bit FNV-1a", () => {
  it("gives the published test vectors (stored hashes depend on them: postings' buckets, listing digests, embedder buckets)", () => {
    // From the FNV reference (Fowler, Noll, Vo; draft-eastlake-fnv), 32-bit FNV-1a of ASCII strings.
    expect(fnv1a("") >>> 0).toBe(0x811c9dc5);
    expect(fnv1a("a") >>> 0).toBe(0xe40c292c);
    expect(fnv1a("foobar") >>> 0).toBe(0xbf9cf968);
  });

  it("is the inline step the scanning loops write, over UTF-16 code units", () => {
    const text = "naïve 漢字 🙂";
    let hash = FNV_OFFSET;
    for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), FNV_PRIME);
    expect(fnv1a(text)).toBe(hash);
    expect(fnv1a(text)).toBe(fnv1a(text) | 0); // a signed 32-bit integer, as the tables store it
  });
});
