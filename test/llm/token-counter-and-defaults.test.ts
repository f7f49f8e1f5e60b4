import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_ANTHROPIC_MODEL, defaultConfig } from "../../src/config/schema.js";
import { contextWindowOf, createProvider } from "../../src/llm/create-provider.js";
import { CalibratedTokenCounter } from "../../src/llm/token-counter.js";

const require = createRequire(import.meta.url);
const sdkDirectory = dirname(require.resolve("@anthropic-ai/sdk"));

describe("CalibratedTokenCounter", () => {
  it("starts at about four characters a token and follows what the API reports", () => {
    const counter = new CalibratedTokenCounter();
    const text = "x".repeat(4000);
    expect(counter.count(text)).toBe(1000);
    for (let i = 0; i < 20; i++) counter.calibrate(counter.count(text), 1500);
    expect(counter.count(text)).toBeGreaterThan(1450);
    expect(counter.count(text)).toBeLessThan(1550);
  });

  it("ignores empty observations and bounds the correction", () => {
    const counter = new CalibratedTokenCounter();
    counter.calibrate(0, 100);
    counter.calibrate(100, 0);
    expect(counter.correction).toBe(1);
    for (let i = 0; i < 50; i++) counter.calibrate(counter.count("abcd".repeat(10)), 10_000);
    expect(counter.correction).toBeLessThanOrEqual(3);
  });
});

describe("model defaults", () => {
  it("uses a current Claude model that the SDK knows and does not mark deprecated", () => {
    const sdkTypes = readFileSync(join(sdkDirectory, "resources/messages/messages.d.ts"), "utf8");
    expect(sdkTypes).toContain(`'${DEFAULT_ANTHROPIC_MODEL}'`);
    const sdkCode = readFileSync(join(sdkDirectory, "resources/messages/messages.js"), "utf8");
    const deprecated = /const DEPRECATED_MODELS = \{([^}]*)\}/.exec(sdkCode)?.[1];
    expect(deprecated).toBeDefined();
    expect(deprecated).not.toContain(`'${DEFAULT_ANTHROPIC_MODEL}'`);
  });

  it("takes the key and base URL from the environment, and says why there is no model", () => {
    const config = defaultConfig().model;
    expect(createProvider(config, {})).toEqual({ provider: undefined, reason: "ANTHROPIC_API_KEY is not set" });
    const choice = createProvider(config, { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" });
    expect(choice.provider).toMatchObject({ name: "anthropic", model: DEFAULT_ANTHROPIC_MODEL, contextWindow: 200_000 });
    expect(createProvider({ ...config, provider: "none" }, { ANTHROPIC_API_KEY: "k" }).provider).toBeUndefined();
    expect(() => createProvider({ ...config, provider: "openai-compatible" }, {})).toThrow(/model.name is required/);
    expect(
      createProvider({ ...config, provider: "openai-compatible", name: "llama3", baseUrl: "http://localhost:11434/v1" }, {}).provider,
    ).toMatchObject({
      name: "openai-compatible",
      contextWindow: 128_000,
    });
  });

  it("knows context windows of model families and honours configuration", () => {
    expect(contextWindowOf("claude-opus-5-5")).toBe(200_000);
    expect(contextWindowOf("gpt-4o-mini")).toBe(128_000);
    expect(contextWindowOf("claude-opus-5-5", 1_000_000)).toBe(1_000_000);
  });
});
