import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * DESIGN.md: data flows one way (cli → tui → agent → context/llm → store and
 * search); the UI never touches SQL; the store never imports the agent. These
 * rules read every import in src/, so a shortcut fails here, not in review.
 */
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

interface ImportEdge {
  from: string;
  /** A path under src/ (no extension) for a relative import, else the package name. */
  target: string;
  typeOnly: boolean;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[\s\S]*?\sfrom\s+)?["']([^"']+)["']/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

function importsOf(file: string): ImportEdge[] {
  const text = readFileSync(file, "utf8");
  const from = relative(SRC, file).replaceAll("\\", "/");
  const edge = (specifier: string, typeOnly: boolean): ImportEdge => ({
    from,
    target: specifier.startsWith(".")
      ? relative(SRC, resolve(dirname(file), specifier)).replaceAll("\\", "/").replace(/\.js$/, "")
      : specifier.startsWith("node:")
        ? specifier
        : specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/"),
    typeOnly,
  });
  return [
    ...[...text.matchAll(IMPORT)].map((match) => edge(match[3] as string, Boolean(match[2]))),
    ...[...text.matchAll(DYNAMIC_IMPORT)].map((match) => edge(match[1] as string, false)),
  ];
}

const edges = sourceFiles(SRC).flatMap(importsOf);
const under = (prefix: string) => (path: string) => path === prefix || path.startsWith(`${prefix}/`);
const violations = (rule: (edge: ImportEdge) => boolean) => edges.filter(rule).map((edge) => `${edge.from} → ${edge.target}`);

const UI_PACKAGES = new Set(["ink", "react", "ink-testing-library", "@inkjs/ui"]);
const SQLITE_PACKAGES = new Set(["better-sqlite3", "sqlite-vec"]);

describe("architecture: the one-way flow of DESIGN.md", () => {
  it("reads the imports it checks (the parser finds the edges it should)", () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(edges).toContainEqual(expect.objectContaining({ from: "tui/app.tsx", target: "ink" }));
    expect(edges.some((edge) => edge.from.startsWith("store/") && edge.target === "better-sqlite3")).toBe(true);
  });

  it("only the TUI imports ink and react", () => {
    expect(violations((edge) => UI_PACKAGES.has(edge.target) && !under("tui")(edge.from))).toEqual([]);
  });

  it("the UI never touches SQL: no store module or SQLite package at run time in tui/", () => {
    expect(
      violations((edge) => under("tui")(edge.from) && !edge.typeOnly && (under("store")(edge.target) || SQLITE_PACKAGES.has(edge.target))),
    ).toEqual([]);
  });

  it("only the CLI starts the TUI", () => {
    expect(violations((edge) => under("tui")(edge.target) && !under("tui")(edge.from) && !under("cli")(edge.from))).toEqual([]);
  });

  it("the agent, context, llm, store and search never import the UI or the CLI", () => {
    const lower = ["agent", "context", "llm", "store", "search", "indexer", "content-store", "workers", "team", "roles"].map(under);
    expect(violations((edge) => lower.some((inside) => inside(edge.from)) && (under("tui")(edge.target) || under("cli")(edge.target)))).toEqual([]);
  });

  it("team/ is pure: it never imports the composition root (app/), the UI or the CLI", () => {
    expect(violations((edge) => under("team")(edge.from) && ["app", "tui", "cli"].some((layer) => under(layer)(edge.target)))).toEqual([]);
  });

  it("knowledge/ is pure: it never imports the composition root (app/), the UI or the CLI", () => {
    expect(violations((edge) => under("knowledge")(edge.from) && ["app", "tui", "cli"].some((layer) => under(layer)(edge.target)))).toEqual([]);
  });

  it("the context manager never imports the agent: it builds windows over a ConversationLog, which the recorder implements", () => {
    expect(violations((edge) => under("context")(edge.from) && under("agent")(edge.target))).toEqual([]);
  });

  it("the store never imports knowledge/ (the knowledge layers read the store through interfaces, not the other way)", () => {
    expect(violations((edge) => under("store")(edge.from) && under("knowledge")(edge.target))).toEqual([]);
  });

  it("the store never imports the agent, the context manager or team/, and takes only message types from llm/", () => {
    expect(
      violations(
        (edge) =>
          under("store")(edge.from) &&
          (["agent", "context", "app", "team"].some((layer) => under(layer)(edge.target)) || (under("llm")(edge.target) && !edge.typeOnly)),
      ),
    ).toEqual([]);
  });
});
