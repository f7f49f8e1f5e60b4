import { describe, expect, it } from "vitest";
import { extractKeywords, KEYWORD_STOP_WORDS, MAX_KEYWORD_LENGTH, MAX_KEYWORDS } from "../../src/knowledge/extract-keywords.js";

describe("extractKeywords", () => {
  it("Scenario: Stop word filtering — removes common English stop words (the, a, is, are, etc.)", () => {
    expect(extractKeywords("what is the retry policy for a deployment that are failing")).toEqual([
      "retry",
      "policy",
      "deployment",
      "failing",
    ]);
    for (const word of ["the", "a", "is", "are", "was", "were", "an", "and", "or", "of", "to", "in"])
      expect(KEYWORD_STOP_WORDS.has(word)).toBe(true);
  });

  it("Scenario: Short word filtering — drops words under 2 characters and keeps 2-character technical terms (Go, CI, DB)", () => {
    expect(extractKeywords("x Go CI DB y")).toEqual(["go", "ci", "db"]);
    expect(extractKeywords("set up CI for a Go DB")).toEqual(["set", "ci", "go", "db"]);
  });

  it("Scenario: Punctuation removal — strips punctuation at word boundaries", () => {
    expect(extractKeywords('"deploy," (rollback)? migrations! [staging]; "prod".')).toEqual([
      "deploy",
      "rollback",
      "migrations",
      "staging",
      "prod",
    ]);
    expect(extractKeywords("why does it fail?!")).toEqual(["fail"]);
  });

  it("Scenario: Keyword count limit — 'how to handle errors in Go deployment configuration' gives at most 5 sanitized non-stop-word keywords", () => {
    const keywords = extractKeywords("how to handle errors in Go deployment configuration");
    expect(keywords).toEqual(["handle", "errors", "go", "deployment", "configuration"]);
    expect(extractKeywords("alpha beta gamma delta epsilon zeta eta theta")).toHaveLength(MAX_KEYWORDS);
    for (const keyword of keywords ?? []) expect(keyword).toMatch(/^[a-z0-9_-]+$/);
  });

  it("Scenario: Query with only stop words — 'the a is are was' gives undefined", () => {
    expect(extractKeywords("the a is are was")).toBeUndefined();
  });

  it("Scenario: Special character sanitization — @ # $ ( ) and the like are stripped from keywords", () => {
    expect(extractKeywords("@alice #123 $HOME fn(arg) 50% ^caret")).toEqual(["alice", "123", "home", "fnarg", "50"]);
    expect(extractKeywords("don't")).toBeUndefined();
    for (const keyword of extractKeywords("a@b#c$d(e)f g%h^i`j k'l\"m") ?? []) expect(keyword).toMatch(/^[\p{L}\p{N}_-]+$/u);
  });

  it("Scenario: Long keyword truncation — a word over 50 characters is cut to 50", () => {
    const long = "a".repeat(30) + "b".repeat(40);
    expect(extractKeywords(long)).toEqual(["a".repeat(30) + "b".repeat(20)]);
    expect(extractKeywords(long)?.[0]).toHaveLength(MAX_KEYWORD_LENGTH);
  });

  it("lower-cases keywords and keeps the first of each duplicate, so five slots hold five different words", () => {
    expect(extractKeywords("Docker docker DOCKER compose Compose volumes networks secrets configs")).toEqual([
      "docker",
      "compose",
      "volumes",
      "networks",
      "secrets",
    ]);
  });

  it("splits at path, dot and list separators and keeps hyphens and underscores inside words", () => {
    expect(extractKeywords("src/search errors.go a,b")).toEqual(["src", "search", "errors", "go"]);
    expect(extractKeywords("read-only snake_case --verbose __init__ -")).toEqual(["read-only", "snake_case", "verbose", "__init__"]);
    expect(extractKeywords("--- ___ - _")).toBeUndefined();
  });

  it("keeps numbers and non-ASCII letters, and counts length in characters", () => {
    expect(extractKeywords("error 404 café 日本")).toEqual(["error", "404", "café", "日本"]);
    expect(extractKeywords("é")).toBeUndefined();
  });

  it("an empty or blank query has no keywords", () => {
    expect(extractKeywords("")).toBeUndefined();
    expect(extractKeywords("  \n\t ")).toBeUndefined();
    expect(extractKeywords("?! ... ()")).toBeUndefined();
  });
});
