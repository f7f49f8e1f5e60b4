import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { unreachable } from "../../src/llm/model-errors.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject } from "../helpers/temp-project.js";

/** A port nothing listens on: one the system gave out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("a model server that cannot be reached", () => {
  it("is named by its URL, and a refused local port is not retried for half a minute", async () => {
    const project = createTempProject({ "a.ts": "export const a = 1;\n" });
    try {
      const url = `http://127.0.0.1:${await closedPort()}`;
      const started = Date.now();
      const run = await runCli(["ask", "--yes", "hi"], {
        cwd: project.root,
        env: { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: url },
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `Could not reach the model at ${url}: connection refused (nothing listens there). Start the server, or fix ANTHROPIC_BASE_URL or model.baseUrl.`,
      );
      expect(run.stderr).not.toMatch(/retrying/);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      project.cleanup();
    }
  });

  it("is retried when the failure may pass (a reset), and never for an unknown host", () => {
    const cause = (code: string) => Object.assign(new Error("fetch failed"), { cause: Object.assign(new Error(code), { code }) });
    expect(unreachable(cause("ECONNRESET"), "https://api.example.com", "x")).toMatchObject({
      retryable: true,
      message: "Could not reach the model at https://api.example.com (ECONNRESET).",
    });
    expect(unreachable(cause("ENOTFOUND"), "https://api.exmaple.com", "x")).toMatchObject({
      retryable: false,
      message: expect.stringContaining("the host api.exmaple.com is unknown"),
    });
    expect(unreachable(cause("ECONNREFUSED"), "https://api.example.com", "x").retryable).toBe(true);
  });
});
