// `processFile`'s steps one at a time, through a build's modules, for the
// benchmarks that time each step (bench-index-floor sums them over the tree,
// bench-index-breakdown by what the files are). One place, so that both
// follow `processFile` when it changes.
import { createHash } from "node:crypto";
import { join } from "node:path";

/** The extraction's parse again, apart: how the extraction divides (not part of its sum). */
export const PARSE_ALONE = "of the extraction: the parse alone, again";
/** The extraction's symbol walk (or query) again, apart. */
export const SYMBOLS_ALONE = "of the extraction: the symbol walk/query, again";

/**
 * The build's per-file steps for `task` ({ root, chunkLines, embeddingDimensions }): `step(file, charge)`
 * takes one file through them in `processFile`'s order (read, hash and decode; the secrets' mask; the
 * symbols by definition lines, tree-sitter or the fallback; chunking; the chunk features; the trigram
 * sketch) and calls `charge(name, count)` after each, so the caller charges the CPU since its last call
 * to that name. After the extraction the same parse and the same symbol walk (or query) run again apart
 * (`PARSE_ALONE`, `SYMBOLS_ALONE`). It returns undefined for a binary file, else what the steps found:
 * { bytes, language, symbols, chunks, symbolNodes } (`symbolNodes`: the walk's nodes or the query's
 * captures, where tree-sitter ran).
 */
export async function fileSteps(load, task) {
  const { readRegularFile } = await load("files/regular-file.js");
  const { BINARY_EXTENSIONS, decodeText, detectLanguage, extensionOf, looksBinary } = await load("parsing/languages.js");
  const { maskSecrets } = await load("security/secrets.js");
  const { TreeSitterExtractor } = await load("parsing/tree-sitter-extractor.js");
  const { chunkFile } = await load("parsing/chunker.js");
  const { definitionLines, hasDefinitionPatterns } = await load("parsing/definition-lines.js");
  const { fallbackSymbols } = await load("parsing/fallback-symbols.js");
  const { trigramSketch } = await load("search/trigram-sketch.js");
  const { featurizerFor, indexedPart, MAX_PARSE_BYTES } = await load("indexer/file-processor.js");
  const extractor = new TreeSitterExtractor();
  const featurizer = featurizerFor(task);

  async function symbolsOf(text, language, size, charge) {
    if (size > MAX_PARSE_BYTES && hasDefinitionPatterns(language)) {
      const symbols = definitionLines(text, language);
      charge("definition lines (files over MAX_PARSE_BYTES)");
      return { symbols };
    }
    if (!extractor.supports(language)) {
      const symbols = fallbackSymbols(text, language);
      charge("fallback symbols");
      return { symbols };
    }
    // The extractor's own grammar, loaded as a parse would load it (its compile is charged here).
    const grammar = await extractor.grammar(language);
    charge("grammar loads");
    const { symbols } = await extractor.extract(text, language);
    charge("tree-sitter extraction");
    const parsed = grammar.parser.parse(text);
    charge(PARSE_ALONE);
    // The definitions' and comments' nodes: a descendants walk where the build has one for the grammar, else the query's captures.
    const symbolNodes = grammar.walk ? parsed.rootNode.descendantsOfType(grammar.walk.types) : grammar.query.captures(parsed.rootNode);
    charge(SYMBOLS_ALONE);
    parsed.delete();
    charge(PARSE_ALONE);
    return { symbols, symbolNodes };
  }

  async function step(file, charge) {
    if (BINARY_EXTENSIONS.has(extensionOf(file.path))) return undefined;
    const bytes = readRegularFile(join(task.root, file.path), { noFollow: true, listedAsRegular: true });
    createHash("sha256").update(bytes).digest("hex");
    if (looksBinary(bytes)) return undefined;
    const language = detectLanguage(file.path);
    const decoded = decodeText(bytes);
    charge("read, hash, decode");
    const text = maskSecrets(decoded.text).text;
    charge("secrets");
    const found = await symbolsOf(text, language, bytes.length, charge);
    const indexed = indexedPart(file.path, text, found.symbols, task.chunkLines);
    const chunks = chunkFile(indexed.text, indexed.symbols, { maxLines: indexed.maxLines });
    charge("chunking");
    const pathTokens = featurizer.pathTokens(file.path);
    for (const chunk of chunks) featurizer.featurize(pathTokens, chunk.symbols, chunk.content);
    charge("chunk features", chunks.length);
    trigramSketch(bytes);
    charge("trigram sketch");
    return { bytes, language, chunks, ...found };
  }

  return { step, extractor, indexedPart, MAX_PARSE_BYTES };
}
