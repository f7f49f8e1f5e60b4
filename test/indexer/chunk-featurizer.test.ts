import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { TrigramFeatures } from "../../src/embedding/hashing-embedder.js";
import { ChunkFeaturizer, GENERATION_WORDS } from "../../src/indexer/chunk-featurizer.js";
import { Vocabulary } from "../../src/indexer/featurizer-vocabulary.js";
import { tokenize, tokenizePath } from "../../src/parsing/code-tokenizer.js";
import { chunkTermCounts } from "../../src/parsing/term-counts.js";
import { termsFromCounts } from "../../src/search/full-text-document.js";
import { collectGarbageNow } from "../helpers/garbage-collection.js";

interface Chunk {
  path: string;
  symbols: string[];
  content: string;
}

/** The plain path the featurizer must equal: count in maps, stem, embed. */
function reference(chunk: Chunk, features: TrigramFeatures) {
  const counts = chunkTermCounts(tokenizePath(chunk.path), chunk.symbols, tokenize(chunk.content));
  const terms = termsFromCounts(counts);
  return { terms: terms.distinct.join(" "), termCount: terms.count, vector: features.embed(counts) };
}

function expectSameFeatures(featurizer: ChunkFeaturizer, chunks: readonly Chunk[]): void {
  const features = new TrigramFeatures(64);
  for (const chunk of chunks) {
    const fast = featurizer.featurize(tokenizePath(chunk.path), chunk.symbols, chunk.content);
    const expected = reference(chunk, features);
    expect(fast.terms).toBe(expected.terms);
    expect(fast.termCount).toBe(expected.termCount);
    // Bit for bit: the same additions in the same order.
    expect(Buffer.from(fast.vector!.buffer)).toEqual(Buffer.from(expected.vector.buffer));
  }
}

const word = fc.oneof(
  fc.constantFrom(
    "parseHTTPHeader",
    "get_user_id",
    "XMLParser",
    "v2Config",
    "$scope",
    "__init__",
    "self",
    "the",
    "exiting",
    "exit",
    "optimizer",
    "i",
    "io",
    "db",
    "123",
    "café",
    "Straße",
    "日本語",
    "a".repeat(45),
    "fn",
    "TokenKind::Ident",
  ),
  fc.stringMatching(/^[A-Za-z_$][A-Za-z0-9_$]{0,14}$/),
);
const separator = fc.constantFrom(" ", "\n", "(", ").", " = ", "::", "->", "\t", "/", '"', "é ");
const text = fc.array(fc.tuple(word, separator), { maxLength: 80 }).map((parts) => parts.map(([w, s]) => w + s).join(""));
const chunk = fc.record({
  path: fc.constantFrom("src/lexer/token_kind.rs", "packages/vite/src/node/server/index.ts", "README.md", "a/b/parseHTTP.test.js"),
  symbols: fc.array(fc.oneof(word, fc.constantFrom("impl Display for Token", "UserService.findById")), { maxLength: 4 }),
  content: text,
});

describe("ChunkFeaturizer", () => {
  it("computes the same terms, term count and embedding as the plain path", () => {
    fc.assert(
      fc.property(fc.array(chunk, { minLength: 1, maxLength: 6 }), (chunks) => {
        // One featurizer across many chunks, as in a worker: nothing may leak from one chunk into the next.
        expectSameFeatures(new ChunkFeaturizer(new TrigramFeatures(64)), chunks);
        // Generations of a few words: most chunks start a new one, and take words and tokens from the one before.
        expectSameFeatures(new ChunkFeaturizer(new TrigramFeatures(64), 8), chunks);
      }),
      { numRuns: 200 },
    );
  });

  it("stays exact across many generations, with words carried forward, dropped and met again", () => {
    const word = (index: number) => `gen${index.toString(36)}Word_${index % 13}x${index % 7}`;
    const chunks: Chunk[] = [];
    for (let round = 0; round < 40; round++) {
      // Words new in this round, words of the round before (in the previous generation), words of ten rounds
      // before (dropped two generations ago), and words in every round (carried through every turnover).
      const fresh = Array.from({ length: 300 }, (_, index) => word(round * 300 + index));
      const recent = round > 0 ? Array.from({ length: 100 }, (_, index) => word((round - 1) * 300 + index * 3)) : [];
      const old = round >= 10 ? Array.from({ length: 100 }, (_, index) => word((round - 10) * 300 + index)) : [];
      const always = ["parseHTTPHeader", "get_user_id", "café", "Straße"];
      chunks.push({
        path: `copy-${round}/src/gen${round}Module.ts`,
        symbols: [word(round * 300), "impl Display for Token"],
        content: [...always, ...fresh, ...recent, ...old, ...always].join(round % 2 === 0 ? " " : "\n(").concat(";"),
      });
    }
    const featurizer = new ChunkFeaturizer(new TrigramFeatures(64), 500);
    expectSameFeatures(featurizer, chunks);
    // Two generations held at most, each ending once it passes 500 words or tokens (checked before a chunk).
    expect(featurizer.rememberedWords).toBeGreaterThan(500);
    expect(featurizer.rememberedWords).toBeLessThan(2 * (500 + 1_000));
  });

  it("stays exact after its word table grows and after a generation turns over", () => {
    const manyWords = Array.from({ length: 40_000 }, (_, index) => `word${index.toString(36)}Part${index % 97}`);
    const chunks: Chunk[] = [];
    for (let start = 0; start < manyWords.length; start += 2_000) {
      chunks.push({ path: "src/many.ts", symbols: [manyWords[start] as string], content: manyWords.slice(start, start + 2_000).join(" ") });
    }
    chunks.push({ path: "src/again.ts", symbols: [], content: manyWords.slice(0, 500).join("\n") });
    expectSameFeatures(new ChunkFeaturizer(new TrigramFeatures(64)), chunks);
    expectSameFeatures(new ChunkFeaturizer(new TrigramFeatures(64), 3_000), chunks);
  });

  it("tells apart words whose hashes are equal, in a generation and across a turnover", () => {
    // Pairs with equal 32-bit FNV-1a hashes, the word table's hash: its slots keep the hash, so only the
    // characters tell them apart. `altarages`/`zinkes` collide too, and share prefixes with the pair before.
    const colliding = ["costarring", "liquid", "declinate", "macallums", "altarage", "zinke", "altarages", "zinkes"];
    const chunks: Chunk[] = [];
    for (let round = 0; round < 12; round++) {
      const order = round % 2 === 0 ? colliding : [...colliding].reverse();
      const filler = Array.from({ length: 30 }, (_, index) => `filler${round}Word${index}`);
      chunks.push({
        path: "src/collide.ts",
        symbols: [order[round % order.length] as string],
        content: [...order.slice(round % 3), ...filler, ...order].join(" "),
      });
    }
    expectSameFeatures(new ChunkFeaturizer(new TrigramFeatures(64)), chunks);
    // Generations of 40 words: every few chunks a turnover, the colliding words copied forward.
    expectSameFeatures(new ChunkFeaturizer(new TrigramFeatures(64), 40), chunks);
    const terms = new ChunkFeaturizer(null).featurize([], [], "liquid costarring liquid").terms.split(" ");
    expect(terms).toContain("liquid#2");
    expect(terms.some((term) => term.startsWith("costar"))).toBe(true);
  });

  it("looks a file's path tokens up once for all its chunks, and again after a turnover", () => {
    const lookups = vi.spyOn(Vocabulary.prototype, "tokenId");
    try {
      const featurizer = new ChunkFeaturizer(new TrigramFeatures(64), 50);
      const pathTokens = tokenizePath("packages/vite/src/node/server/index.ts");
      const chunks = Array.from({ length: 10 }, () => ({ path: "packages/vite/src/node/server/index.ts", symbols: [], content: "" }));
      expectSameFeatures(featurizer, chunks);
      // The reference path never calls `Vocabulary.tokenId`: every call counted is the featurizer's.
      expect(lookups).toHaveBeenCalledTimes(pathTokens.length);
      lookups.mockClear();
      // Sixty new words end the generation: the next chunk looks the path up in the new one, and is still exact.
      const words = Array.from({ length: 60 }, (_, index) => `fresh${index}Name`).join(" ");
      expectSameFeatures(featurizer, [{ path: "packages/vite/src/node/server/index.ts", symbols: [], content: words }, ...chunks]);
      expect(lookups.mock.calls.filter(([token]) => pathTokens.includes(token)).length).toBe(pathTokens.length);
    } finally {
      lookups.mockRestore();
    }
  });

  it("brings a token forward once a generation, however many copied words hold it", () => {
    const words = Array.from({ length: 26 }, (_, index) => `sharedName${String.fromCharCode(65 + index)}`).join(" ");
    const chunk = { path: "x.ts", symbols: [], content: words };
    const featurizer = new ChunkFeaturizer(new TrigramFeatures(64), 20);
    // The first chunk fills a generation past 20; the second starts a new one and copies all 26 words forward.
    expectSameFeatures(featurizer, [chunk]);
    const lookups = vi.spyOn(Vocabulary.prototype, "tokenId");
    try {
      expectSameFeatures(featurizer, [chunk]);
      expect(lookups.mock.calls.filter(([token]) => token === "shared").length).toBe(1);
    } finally {
      lookups.mockRestore();
    }
  });

  it("leaves the vector out when the built-in embedder is not used", () => {
    const features = new ChunkFeaturizer(null).featurize(["src"], [], "const parser = new Parser()");
    expect(features.vector).toBeNull();
    expect(features.terms.split(" ")).toContain("parser#2");
  });

  it("keeps no chunk's text alive through the words it remembers", () => {
    const featurizer = new ChunkFeaturizer(new TrigramFeatures(64));
    collectGarbageNow();
    const before = process.memoryUsage().heapUsed;
    for (let index = 0; index < 16; index++) {
      // 1 MB of text a chunk, each with a word of its own: words of 13 characters or more are the ones V8 would cut as views of the chunk.
      featurizer.featurize(["src"], [], `export const configurationLoader${index} = ${"settingsRegistry + ".repeat(55_000)}0;`);
    }
    collectGarbageNow();
    const kept = process.memoryUsage().heapUsed - before;
    expect(featurizer.featurize([], [], "configurationLoader15").terms).toContain("configurationloader15");
    expect(kept).toBeLessThan(2 * 1024 * 1024);
  });

  it("holds two generations of words, the same bound for 150k distinct words as for 300k", () => {
    const featurizer = new ChunkFeaturizer(new TrigramFeatures(256));
    collectGarbageNow();
    const before = process.memoryUsage().heapUsed;
    const held: number[] = [];
    // A worker's share of a large monorepo: 1,000 new identifiers a chunk, 300k in all.
    for (let chunk = 0; chunk < 300; chunk++) {
      const words = Array.from({ length: 1000 }, (_, index) => `module${chunk}Symbol${index}`);
      featurizer.featurize(["src"], [], words.join(" "));
      if (chunk === 149 || chunk === 299) {
        collectGarbageNow();
        held.push(process.memoryUsage().heapUsed - before);
      }
    }
    // Two generations of GENERATION_WORDS words with their tokens, stems and buckets: 9–13 MB here; the single
    // table of up to 150k words this replaced held ≈ 70 MB at both points.
    for (const bytes of held) expect(bytes).toBeLessThan(24 * 1024 * 1024);
    expect(featurizer.rememberedWords).toBeLessThanOrEqual(2 * GENERATION_WORDS + 1_000);
  }, 60_000);

  it("holds a bounded heap however many distinct words it meets", () => {
    const featurizer = new ChunkFeaturizer(new TrigramFeatures(64));
    collectGarbageNow();
    const before = process.memoryUsage().heapUsed;
    // 400k distinct words, as a large monorepo has (each copy of a package names its own identifiers).
    for (let chunk = 0; chunk < 400; chunk++) {
      const words = Array.from({ length: 1000 }, (_, index) => `package${chunk}Identifier${index}`);
      featurizer.featurize(["src"], [], words.join(" "));
    }
    collectGarbageNow();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);
});
