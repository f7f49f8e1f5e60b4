import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  foldersWithoutLayer,
  LAYERS,
  layerOfFile,
  layerViolations,
  readImports,
  type ImportEdge,
} from "../../scripts/lib/source-structure.mjs";

/**
 * Data flows one way (cli → tui → agent → context/llm → store and search;
 * docs/DESIGN-NOTES.md, "Layers"); the UI never touches SQL; the store never imports the agent. These
 * rules read every import in src/ with the parser `scripts/measure-structure.mjs`
 * uses, so a shortcut fails here, not in review.
 */
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

const { files, edges } = readImports(SRC);
const under = (prefix: string) => (path: string) => path === prefix || path.startsWith(`${prefix}/`);
const violations = (rule: (edge: ImportEdge) => boolean) => edges.filter(rule).map((edge) => `${edge.from} → ${edge.to}`);

const UI_PACKAGES = new Set(["ink", "react", "ink-testing-library", "@inkjs/ui"]);

const COMPOSITION = LAYERS.findIndex((layer) => layer.name === "composition");
const FEATURES = LAYERS.find((layer) => layer.name === "features")?.folders ?? [];
/** The composition: app/ and every feature's session shell (`<feature>/session/`), which the layer order places with it. */
const inComposition = (path: string) => layerOfFile(path) === COMPOSITION;
/** A feature's pure core: its folder but for its session shell. */
const inFeatureCore = (path: string) => FEATURES.some((feature) => under(feature)(path)) && !inComposition(path);
const SQLITE_PACKAGES = new Set(["better-sqlite3", "sqlite-vec"]);

describe("architecture: the one-way flow", () => {
  it("reads the imports it checks (the parser finds the edges it should)", () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(edges).toContainEqual(expect.objectContaining({ from: "tui/app.tsx", to: "ink" }));
    expect(edges.some((edge) => edge.from.startsWith("store/") && edge.to === "better-sqlite3")).toBe(true);
  });

  it("only the TUI imports ink and react", () => {
    expect(violations((edge) => UI_PACKAGES.has(edge.to) && !under("tui")(edge.from))).toEqual([]);
  });

  it("the UI never touches SQL: no store module or SQLite package at run time in tui/", () => {
    expect(
      violations((edge) => under("tui")(edge.from) && !edge.typeOnly && (under("store")(edge.to) || SQLITE_PACKAGES.has(edge.to))),
    ).toEqual([]);
  });

  it("the UI reads the project through its read model, never through the project's services (not even their types)", () => {
    expect(violations((edge) => under("tui")(edge.from) && edge.to === "app/project-services.ts")).toEqual([]);
  });

  it("only the CLI starts the TUI", () => {
    expect(violations((edge) => under("tui")(edge.to) && !under("tui")(edge.from) && !under("cli")(edge.from))).toEqual([]);
  });

  it("the TUI, app/ and the features' session shells never import the CLI: formatting lives in format/, the cross-store search in app/", () => {
    expect(violations((edge) => (under("tui")(edge.from) || inComposition(edge.from)) && under("cli")(edge.to))).toEqual([]);
  });

  it("context/ never imports app/ or a feature's session shell: the prefetcher takes the searchers it needs, not the project's services", () => {
    expect(violations((edge) => under("context")(edge.from) && inComposition(edge.to))).toEqual([]);
  });

  it("the agent, context, llm, store and search never import the UI or the CLI", () => {
    const lower = ["agent", "context", "llm", "store", "search", "indexer", "content-store", "workers", "team", "roles"].map(under);
    expect(violations((edge) => lower.some((inside) => inside(edge.from)) && (under("tui")(edge.to) || under("cli")(edge.to)))).toEqual([]);
  });

  it("a feature's pure core (team/, knowledge/, handoff/, learning/ but for their session/) never imports its own session shell, app/, the UI or the CLI", () => {
    expect(FEATURES).toEqual(expect.arrayContaining(["team", "knowledge", "handoff", "learning"]));
    expect(
      violations((edge) => inFeatureCore(edge.from) && (inComposition(edge.to) || ["tui", "cli"].some((layer) => under(layer)(edge.to)))),
    ).toEqual([]);
  });

  it("a feature's session shell sits with the composition: the layer order places <feature>/session/ with app/, its core below the agent", () => {
    expect(layerOfFile("handoff/session/handoff-controller.ts")).toBe(COMPOSITION);
    expect(layerOfFile("app/project-services.ts")).toBe(COMPOSITION);
    expect(layerOfFile("handoff/handoff-profile.ts")).toBe(LAYERS.findIndex((layer) => layer.name === "features"));
    // The MCP server opens a project and serves the agent's tools: a shell too, while the rest of mcp/ stays a core.
    expect(layerOfFile("mcp/server/served-tools.ts")).toBe(COMPOSITION);
    expect(layerOfFile("mcp/mcp-config.ts")).toBe(LAYERS.findIndex((layer) => layer.name === "features"));
    expect(files.filter((file) => inComposition(file) && !under("app")(file)).length).toBeGreaterThan(0);
  });

  it("the store never imports knowledge/ (the knowledge layers read the store through interfaces, not the other way)", () => {
    expect(violations((edge) => under("store")(edge.from) && under("knowledge")(edge.to))).toEqual([]);
  });

  it("the store never imports the agent, the context manager or team/, and takes only message types from llm/", () => {
    expect(
      violations(
        (edge) =>
          under("store")(edge.from) &&
          (["agent", "context", "team"].some((layer) => under(layer)(edge.to)) ||
            inComposition(edge.to) ||
            (under("llm")(edge.to) && !edge.typeOnly)),
      ),
    ).toEqual([]);
  });
});

/**
 * A rule that does not hold yet: the imports that break it today, each a
 * file pair (`from → to`, any number of import lines between them). The list
 * can only shrink: a new violation fails, and so does a listed one that is
 * gone, so whoever removes an import removes its line here.
 */
function expectOnlyListed(rule: (edge: ImportEdge) => boolean, listed: readonly string[]): void {
  const found = [...new Set(violations(rule))].sort();
  expect({
    "new violations (fix them; never add them to the list)": found.filter((pair) => !listed.includes(pair)),
    "listed exceptions that no longer exist (remove them from the list)": listed.filter((pair) => !found.includes(pair)),
  }).toEqual({
    "new violations (fix them; never add them to the list)": [],
    "listed exceptions that no longer exist (remove them from the list)": [],
  });
}

const BASE = LAYERS.findIndex((layer) => layer.name === "base");

// The window should hold a conversation log interface of its own, which the recorder implements.
const CONTEXT_IMPORTS_OF_THE_AGENT: string[] = [];
// Configuration reads the catalogue of agent types, which sits at the base with it (roles/).
const CONFIG_IMPORTS_ABOVE_THE_BASE: string[] = [];
// The other imports against the layer order, not covered by a rule above.
const OTHER_IMPORTS_AGAINST_THE_LAYERS: string[] = [];

describe("architecture: rules that hold but for the listed imports, a list that only shrinks", () => {
  it("context never imports the agent: the window is built over a ConversationLog, which the recorder implements", () => {
    expectOnlyListed((edge) => under("context")(edge.from) && under("agent")(edge.to), CONTEXT_IMPORTS_OF_THE_AGENT);
  });

  it("config never imports a feature, nor anything else above the base layer", () => {
    expectOnlyListed((edge) => under("config")(edge.from) && edge.internal && layerOfFile(edge.to) !== BASE, CONFIG_IMPORTS_ABOVE_THE_BASE);
  });

  it("no import runs against the layer order of scripts/lib/source-structure.mjs", () => {
    const againstTheLayers = new Set(layerViolations(edges).map((edge) => `${edge.from} → ${edge.to}`));
    expectOnlyListed(
      (edge) => againstTheLayers.has(`${edge.from} → ${edge.to}`),
      [...CONTEXT_IMPORTS_OF_THE_AGENT, ...CONFIG_IMPORTS_ABOVE_THE_BASE, ...OTHER_IMPORTS_AGAINST_THE_LAYERS].sort(),
    );
  });

  it("the layer order names every folder of src/ (a new folder takes its place in it)", () => {
    expect(foldersWithoutLayer(files)).toEqual([]);
  });
});
