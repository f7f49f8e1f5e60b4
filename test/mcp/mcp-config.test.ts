import { describe, expect, it } from "vitest";
import { mcpServersSchema } from "../../src/config/mcp-servers-schema.js";
import { expandServerConfig } from "../../src/mcp/mcp-config.js";

describe("mcpServers in .sylkrc", () => {
  it("reads the stdio and HTTP shapes users already write, and refuses names that would not split one way", () => {
    const parsed = mcpServersSchema.safeParse({
      github: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" } },
      docs: { url: "https://docs.example.com/mcp", headers: { Authorization: "Bearer ${DOCS_TOKEN}" } },
      old: { type: "sse", url: "http://127.0.0.1:9000/sse" },
    });
    expect(parsed.success).toBe(true);
    expect(mcpServersSchema.safeParse({ a__b: { command: "x" } }).success).toBe(false);
    expect(mcpServersSchema.safeParse({ "a b": { command: "x" } }).success).toBe(false);
    expect(mcpServersSchema.safeParse({ web: { url: "ftp://example.com" } }).success).toBe(false);
    expect(mcpServersSchema.safeParse({ both: { command: "x", url: "https://example.com" } }).success).toBe(false);
  });

  it("expands ${VAR} and ${VAR:-default} in args, env, headers and url from the given environment, and names what is unset", () => {
    const env = { TOKEN: "t0k", HOST: "example.com" };
    expect(expandServerConfig({ command: "srv", args: ["--token=${TOKEN}", "${MODE:-fast}"], env: { KEY: "${TOKEN}" } }, env)).toEqual({
      ok: true,
      value: { command: "srv", args: ["--token=t0k", "fast"], env: { KEY: "t0k" } },
    });
    expect(expandServerConfig({ url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${TOKEN}" } }, env)).toEqual({
      ok: true,
      value: { url: "https://example.com/mcp", headers: { Authorization: "Bearer t0k" } },
    });
    expect(expandServerConfig({ command: "srv", args: ["${MISSING}", "${ALSO_MISSING}"] }, env)).toEqual({
      ok: false,
      missing: ["MISSING", "ALSO_MISSING"],
    });
    // The command itself is never expanded: it is what the user wrote.
    expect(expandServerConfig({ command: "${TOKEN}" }, env)).toEqual({ ok: true, value: { command: "${TOKEN}" } });
  });
});
