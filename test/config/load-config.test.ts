import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse as parseJsonc } from "jsonc-parser";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { availableParallelism } from "node:os";
import { loadConfig } from "../../src/config/load-config.js";
import { clampToMachine } from "../../src/config/machine-limits.js";
import { configDefaults } from "../../src/config/defaults.js";
import { configSchema, defaultConfig } from "../../src/config/schema.js";
import { unconfigured } from "../../src/config/unconfigured.js";
import { ConfigError, ExitCode, errorMessage } from "../../src/errors.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
beforeEach(() => {
  project = createTempProject();
});
afterEach(() => project.cleanup());

const load = (env: NodeJS.ProcessEnv = {}, flags?: Record<string, unknown>) =>
  loadConfig({ projectRoot: project.root, env: { ...env, HOME: `${project.root}/../home-dir` }, ...(flags ? { flags } : {}) });

describe("configuration without zod", () => {
  it("has the defaults a parse of nothing gives", () => {
    expect(configDefaults()).toEqual(configSchema.parse({}));
  });

  it("is what loadConfig returns when nothing is configured, and stands aside as soon as anything is", () => {
    const home = `${project.root}/../home-dir`;
    const check = (env: NodeJS.ProcessEnv = {}, flags?: Record<string, unknown>) =>
      unconfigured({ projectRoot: project.root, env: { ...env, HOME: home }, ...(flags ? { flags } : {}) });
    expect(check({ SYLK_HOME: "/somewhere", SYLK_DEBUG: "1" })).toEqual(load({ SYLK_HOME: "/somewhere" }));
    expect(check({ SYLK_SEARCH_RRF_K: "7" })).toBeUndefined();
    expect(check({ SYLK_EMBEDDING_BASE_URL: "http://localhost" })).toBeUndefined();
    expect(check({}, { "search.rrfK": 7 })).toBeUndefined();
    project.write(".sylkrc", "{}");
    expect(check()).toBeUndefined();
    project.remove(".sylkrc");
    project.write("../home-dir/.sylkrc", "{}");
    expect(check()).toBeUndefined();
  });
});

describe("configuration", () => {
  it("defaults match the startup indexer's documented defaults", () => {
    const { config } = load();
    expect(config.index.batchSize).toBe(100);
    expect(config.index.maxFileSize).toBe(1 << 20);
    expect(config.index.priorityPaths[0]).toBe("cmd/");
    expect(config.index.excludePaths).toContain("node_modules");
    expect(config.index.excludePatterns).toContain("*.min.js");
    expect(config.search.rrfK).toBe(60);
    expect(config.embedding.provider).toBe("builtin");
  });

  it("layers user < project < environment < flags and says where each value came from", () => {
    project.write("../home-dir/.sylkrc", JSON.stringify({ index: { batchSize: 10, chunkLines: 20 } }));
    project.write(".sylkrc", '// project settings\n{ "index": { "batchSize": 20, }, "search": { "defaultLimit": 7 } }');
    const { config, sources } = load({ SYLK_SEARCH_DEFAULT_LIMIT: "8" }, { "search.defaultLimit": 9 });
    expect(config.index.chunkLines).toBe(20);
    expect(config.index.batchSize).toBe(20);
    expect(config.search.defaultLimit).toBe(9);
    expect(sources.get("index.chunkLines")?.source).toBe("user");
    expect(sources.get("index.batchSize")?.source).toBe("project");
    expect(sources.get("search.defaultLimit")?.source).toBe("flag");
    expect(sources.get("search.rrfK")).toBeUndefined();
  });

  it("parses environment values as JSON when they are JSON", () => {
    const { config, sources } = load({ SYLK_INDEX_EXCLUDE_PATHS: '["out"]', SYLK_INDEX_RESPECT_GITIGNORE: "false" });
    expect(config.index.excludePaths).toEqual(["out"]);
    expect(config.index.respectGitignore).toBe(false);
    expect(sources.get("index.respectGitignore")?.source).toBe("env");
  });

  it("names the file and the key of a wrong value", () => {
    project.write(".sylkrc", JSON.stringify({ index: { batchSize: "lots" } }));
    expect(() => load()).toThrow(ConfigError);
    expect(() => load()).toThrow(/\.sylkrc: key "index\.batchSize"/);
  });

  it("names an unknown key in the user's own file, and stops", () => {
    project.write("../home-dir/.sylkrc", JSON.stringify({ index: { batchSise: 5 } }));
    expect(() => load()).toThrow(/home-dir\/\.sylkrc: key "index\.batchSise": unknown key/);
  });

  it("leaves out the keys of a project's file it does not know (a newer Sylk's), keeps the rest, and says which", () => {
    project.write(
      ".sylkrc",
      JSON.stringify({ index: { batchSize: 7, futureSetting: true }, futureSection: { a: 1 }, hooks: { PreToolUse: [] } }),
    );
    const { config, unknownProjectSettings, sources } = load();
    expect(config.index.batchSize).toBe(7);
    expect(unknownProjectSettings?.keys.sort()).toEqual(["futureSection", "index.futureSetting"]);
    expect(unknownProjectSettings?.file).toBe(`${project.root}/.sylkrc`);
    expect(sources.has("index.futureSetting")).toBe(false);
    // A known key with a wrong value is still an error: only what this Sylk cannot read is left out.
    project.write(".sylkrc", JSON.stringify({ index: { batchSize: "lots", futureSetting: true } }));
    expect(() => load()).toThrow(/key "index\.batchSize"/);
  });

  it("reports a syntax error with its line and column, never falling back to defaults", () => {
    project.write(".sylkrc", '{\n  "index": {\n    "batchSize": 5\n  \n');
    let error: unknown;
    try {
      load();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(ExitCode.Configuration);
    expect(errorMessage(error)).toMatch(/Malformed config file .*\.sylkrc at line \d+, column \d+/);
  });

  it("names the environment variable that is wrong", () => {
    expect(() => load({ SYLK_INDEX_BATCH_SIZE: "-3" })).toThrow(/environment variable SYLK_INDEX_BATCH_SIZE/);
  });

  it("brings workerThreads down to two per CPU core and says what it asked and got", () => {
    project.write(".sylkrc", JSON.stringify({ index: { workerThreads: 10_000 } }));
    const { config, clampedSettings } = load();
    const most = availableParallelism() * 2;
    expect(config.index.workerThreads).toBe(most);
    expect(clampedSettings).toEqual([
      { key: "index.workerThreads", requested: 10_000, used: most, limit: expect.stringMatching(/^2 per CPU core, \d+ cores? here$/) },
    ]);
    expect(load({ SYLK_INDEX_WORKER_THREADS: String(most) }).clampedSettings).toBeUndefined();
    expect(clampToMachine(configSchema.parse({ index: { workerThreads: 9 } }), 4).config.index.workerThreads).toBe(8);
    expect(clampToMachine(configSchema.parse({ index: { workerThreads: 8 } }), 4).clamped).toEqual([]);
  });

  it("requires baseUrl and model for an OpenAI-compatible embedder", () => {
    project.write(".sylkrc", JSON.stringify({ embedding: { provider: "openai-compatible" } }));
    expect(() => load()).toThrow(/key "embedding\.baseUrl": required when provider is openai-compatible/);
  });

  it(".sylkrc.example documents every key with its default", () => {
    const examplePath = fileURLToPath(new URL("../../.sylkrc.example", import.meta.url));
    const text = readFileSync(examplePath, "utf8");
    const example = configSchema.parse(parseJsonc(text));
    const defaults = defaultConfig();
    // Machine-dependent defaults (CPU count) are shown for a 2-core machine.
    expect({ ...example, index: { ...example.index, maxConcurrency: 0, workerThreads: 0 } }).toEqual({
      ...defaults,
      index: { ...defaults.index, maxConcurrency: 0, workerThreads: 0 },
    });
    let documented = 0;
    for (const [section, shape] of Object.entries(configSchema.shape)) {
      const fields = (shape as unknown as { def: { innerType: { shape?: object } } }).def.innerType.shape;
      // A section of named entries (mcpServers) or of the user's own keys (hooks' events) has no fixed keys: the section itself is documented.
      const keys = fields ? Object.keys(fields) : [section];
      for (const key of keys) {
        expect(text, `${section}.${key}`).toContain(`"${key}"`);
        documented++;
      }
    }
    expect(documented).toBe(80);
  });
});
