import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../../src/agent/permissions/permission-policy.js";
import { createGetSymbolContextTool } from "../../../../src/agent/tools/role-tools/get-symbol-context.js";
import { chunksMentioningFrom } from "../../../../src/agent/tools/role-tools/symbol-mentions.js";
import { ToolRegistry } from "../../../../src/agent/tools/tool-registry.js";
import { openProject, type ProjectServices } from "../../../../src/app/project-services.js";
import { estimateTokens } from "../../../../src/tokens/estimate-tokens.js";
import { drainIndex } from "../../../helpers/drain.js";
import { createTempProject, type TempProject } from "../../../helpers/temp-project.js";

const AUTH = [
  "export function validateToken(token: string): boolean {",
  "  const parts = splitToken(token); // not normalize(token)",
  '  const label = "checkAudience(token)";',
  "  return checkSignature(parts) && signer.verify(parts, label);",
  "}",
  "",
  "function splitToken(token: string): string[] {",
  '  return token.split(".");',
  "}",
  "",
].join("\n");

const SERVER = [
  'import { validateToken } from "./auth.js";',
  "",
  "export function handleRequest(header: string): number {",
  "  return validateToken(header) ? 200 : 401;",
  "}",
  "",
  "export function serve(headers: string[]): number[] {",
  "  return headers.map((header) => handleRequest(header));",
  "}",
  "",
].join("\n");

let project: TempProject;
let services: ProjectServices;

async function index(): Promise<void> {
  await drainIndex(services);
}

function run(input: Record<string, unknown>, availableTokens = 100_000) {
  const tool = createGetSymbolContextTool({
    symbols: services.files,
    chunksMentioning: chunksMentioningFrom(services.codeFullText, services.files),
    availableTokens: () => availableTokens,
  });
  const registry = new ToolRegistry([tool], new PermissionPolicy("bypass"));
  return registry.run(
    { id: "1", name: "get_symbol_context", input },
    { root: project.root, signal: new AbortController().signal, extraDirectories: [] },
  );
}

beforeEach(() => {
  project = createTempProject({
    "src/auth.ts": AUTH,
    "src/crypto.ts": [
      "export function checkSignature(parts: string[]): boolean {",
      "  return parts.length === 3;",
      "}",
      "export function checkAudience(text: string) {",
      "  return text;",
      "}",
      "export function normalize(text: string) {",
      "  return text;",
      "}",
      "export class Signer {",
      "  verify(parts: string[], label: string) {",
      "    return parts.length > 0 && label !== '';",
      "  }",
      "}",
      "",
    ].join("\n"),
    "src/server.ts": SERVER,
    "test/auth.test.ts":
      'import { validateToken } from "../src/auth.js";\n\nit("accepts three parts", () => {\n  expect(validateToken("a.b.c")).toBe(true);\n});\n',
  });
  services = openProject({ root: project.root, env: project.env });
});

afterEach(async () => {
  await services.close();
  project.cleanup();
});

describe("get_symbol_context", () => {
  it("shows the definition, its callers with their enclosing symbols, its callees same file first, and its tests", async () => {
    await index();
    const result = await run({ symbol: "validateToken" });
    expect(result.isError).toBeFalsy();
    const output = result.output;
    expect(output.split("\n")[0]).toMatch(/^source: symbols index \+ code full-text index · \d+ results · tokens: \d+ · truncated: false$/);
    expect(output).toContain("Matched by name, not by type");
    expect(output).toContain("## Definition: function validateToken · src/auth.ts:1-5");
    expect(output).toContain("1\texport function validateToken(token: string): boolean {");
    expect(output).toContain("5\t}");
    expect(output).not.toContain("stale");
    expect(output).toContain("- src/server.ts:4 in function handleRequest: return validateToken(header) ? 200 : 401;");
    // The import is no call, and the test's call is listed under tests.
    expect(output).not.toContain("src/server.ts:1");
    const callees = output.slice(output.indexOf("## Callees"), output.indexOf("## Callers"));
    expect(callees).toContain("- splitToken (function) · src/auth.ts:7 (same file)");
    expect(callees).toContain("- checkSignature (function) · src/crypto.ts:1");
    expect(callees).toContain("- verify (method) · src/crypto.ts:11 (called as .verify(: receiver type not known)");
    expect(callees.indexOf("splitToken")).toBeLessThan(callees.indexOf("checkSignature"));
    // Calls written in a string or a comment are not calls.
    expect(callees).not.toContain("checkAudience");
    expect(callees).not.toContain("normalize");
    expect(output).toContain('- test/auth.test.ts:4: expect(validateToken("a.b.c")).toBe(true);');
    expect(output).not.toContain("## Callers' callers");
    expect(result.relatedFiles).toEqual(expect.arrayContaining(["src/auth.ts", "src/server.ts"]));
  });

  it("depth 2 names the callers of each caller", async () => {
    await index();
    const result = await run({ symbol: "validateToken", depth: 2, include: ["callers"] });
    expect(result.output).toContain("## Callers' callers (names only)");
    expect(result.output).toContain("- handleRequest ← serve · src/server.ts");
    expect(result.output).not.toContain("## Callees");
    expect(result.output).not.toContain("## Tests");
  });

  it("suggests indexed names that start with an unknown symbol, and says when there are none", async () => {
    await index();
    const result = await run({ symbol: "validate" });
    expect(result.isError).toBeFalsy();
    expect(result.output).toMatch(/^source: .* · 0 results · /);
    expect(result.output).toContain("No indexed symbol is named exactly validate.");
    expect(result.output).toContain("- validateToken (function) · src/auth.ts:1");
    const nothing = await run({ symbol: "launchRocket" });
    expect(nothing.output).toContain("No indexed symbol starts with it either");
  });

  it("says when the project has no index yet", async () => {
    const result = await run({ symbol: "validateToken" });
    expect(result.output).toContain("0 results");
    expect(result.output).toContain("has not been indexed yet");
  });

  it("marks a definition stale when its file changed since indexing, and shows the current lines", async () => {
    await index();
    project.write("src/auth.ts", AUTH.replace("const parts", "const pieces"));
    const result = await run({ symbol: "validateToken", include: ["callees"] });
    expect(result.output).toContain("(stale: the file changed since it was indexed");
    expect(result.output).toContain("2\t  const pieces = splitToken(token); // not normalize(token)");
  });

  it("keeps within max_tokens and says where to read the rest", async () => {
    const body = Array.from({ length: 300 }, (_, line) => `  total += step(${line}, "padding text to make the line longer");`).join("\n");
    project.write(
      "src/big.ts",
      `export function bigFunction(): number {\n  let total = 0;\n${body}\n  return total;\n}\n\nfunction step(a: number, b: string) {\n  return a + b.length;\n}\n`,
    );
    await index();
    const result = await run({ symbol: "bigFunction", max_tokens: 400 });
    const header = result.output.split("\n")[0] ?? "";
    expect(header).toContain("truncated: true");
    expect(estimateTokens(result.output)).toBeLessThanOrEqual(400);
    expect(Number(/tokens: (\d+)/.exec(header)?.[1])).toBe(estimateTokens(result.output));
    expect(result.output).toMatch(/… lines \d+-304 not shown: read_file path "src\/big.ts" offset \d+\./);
    // The callees still get room after the clipped definition.
    expect(result.output).toContain("- step (function) · src/big.ts:306 (same file)");
    // The window's room caps the budget too.
    const cramped = await run({ symbol: "bigFunction" }, 150);
    expect(estimateTokens(cramped.output)).toBeLessThanOrEqual(150);
  });

  it("refuses a file outside the project", async () => {
    await index();
    const result = await run({ symbol: "validateToken", file: "../elsewhere/auth.ts" });
    expect(result.isError).toBe(true);
    expect(result.output).toContain("outside the project");
  });

  it("narrows to the definition in the given file", async () => {
    project.write("src/other.ts", "export function splitToken(value: string) {\n  return [value];\n}\n");
    await index();
    const result = await run({ symbol: "splitToken", file: "src/other.ts", include: ["callees"] });
    expect(result.output).toContain("## Definition: function splitToken · src/other.ts:1-3");
    expect(result.output).not.toContain("src/auth.ts:6-8");
  });
});
